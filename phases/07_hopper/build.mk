# Rung 07 needs the architecture-specific sm_90a target for wgmma and setmaxnreg; the
# Makefile's sm_80/89/90 targets still build (the kernel body is empty there and the rung
# declines any device but compute capability 9.0).
NVCCFLAGS_07_hopper := -gencode arch=compute_90a,code=sm_90a

# Test-only: the Hopper pieces checked alone on the GPU (README.md, "Pieces"). Not part of
# `make build` or `make run`; run build/checks/07_hopper_pieces on an H100/H200.
.PHONY: hopper-pieces
hopper-pieces: $(BUILD)/checks/07_hopper_pieces
$(BUILD)/checks/07_hopper_pieces: phases/07_hopper/pieces/pieces.cu phases/07_hopper/hopper_ptx.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -Iphases/07_hopper \
	  -I$(CUDA)/include -o $@ $< 2> $(BUILD)/checks/07_hopper_pieces.ptxas.txt \
	  || { cat $(BUILD)/checks/07_hopper_pieces.ptxas.txt >&2; exit 1; }

# Measuring only: the trace build of the rung (-DATTN07_TRACE=1, sm_90a) and its driver
# (README.md, "The boundary traced"). Not part of `make build`, `make run` or the gate; run
# build/trace/07_trace_driver build/trace/07_hopper_trace.so B H SQ SKV D on an H100/H200.
.PHONY: hopper-trace
hopper-trace: $(BUILD)/trace/07_hopper_trace.so $(BUILD)/trace/07_trace_driver
$(BUILD)/trace/07_hopper_trace.so: phases/07_hopper/attention.cu phases/07_hopper/hopper_ptx.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden -cudart shared \
	  -gencode arch=compute_90a,code=sm_90a -DATTN07_TRACE=1 -Xptxas -v -Iharness/include \
	  -I$(CUDA)/include -o $@ $< 2> $(BUILD)/trace/07_hopper_trace.ptxas.txt \
	  || { cat $(BUILD)/trace/07_hopper_trace.ptxas.txt >&2; exit 1; }
$(BUILD)/trace/07_trace_driver: phases/07_hopper/trace/trace_driver.c harness/include/attn_phase.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -Iharness/include -I$(CUDA)/include \
	  -o $@ $< -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 -lcudart -ldl -lm
