# This rung needs the architecture-specific sm_90a target for wgmma; the Makefile's
# sm_80/89/90 targets still build (the kernel body is empty there and the rung declines any
# device but compute capability 9.0).
NVCCFLAGS_07_wgmma_tma := -gencode arch=compute_90a,code=sm_90a

# Test-only: the Hopper pieces checked alone on the GPU (README.md, "Pieces"). Not part of
# `make build` or `make run`; run build/checks/07_wgmma_tma_pieces on an H100/H200.
.PHONY: hopper-pieces
hopper-pieces: $(BUILD)/checks/07_wgmma_tma_pieces
$(BUILD)/checks/07_wgmma_tma_pieces: phases/07_wgmma_tma/pieces/pieces.cu phases/07_wgmma_tma/hopper_ptx.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -Iphases/07_wgmma_tma \
	  -I$(CUDA)/include -o $@ $< 2> $(BUILD)/checks/07_wgmma_tma_pieces.ptxas.txt \
	  || { cat $(BUILD)/checks/07_wgmma_tma_pieces.ptxas.txt >&2; exit 1; }
