# This rung needs the architecture-specific sm_90a target for wgmma and setmaxnreg; the
# Makefile's sm_80/89/90 targets still build (the kernel body is empty there and the rung
# declines any device but compute capability 9.0).
NVCCFLAGS_08_warpgroup_pingpong := -gencode arch=compute_90a,code=sm_90a
