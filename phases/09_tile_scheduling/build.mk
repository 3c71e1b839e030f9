# This rung needs the architecture-specific sm_90a target for wgmma and setmaxnreg; the
# Makefile's sm_80/89/90 targets still build (the kernel body is empty there and the rung
# declines any device but compute capability 9.0). Fourteen kernels for five targets:
# compile the targets in parallel.
NVCCFLAGS_09_tile_scheduling := -gencode arch=compute_90a,code=sm_90a --threads 0
