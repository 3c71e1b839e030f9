# The rung below needs sm_90a (wgmma, clusters), and this rung passes shapes on to it:
# -Iphases (relative: make runs nvcc from the repository's root) makes rung10.cu's include
# of it resolve to the frozen rung wherever this rung's files are copied. This rung's own
# kernels are plain sm_80 code (mma.sync, cp.async). Two translation units: compile them
# and their targets in parallel.
NVCCFLAGS_11_split_keys := -gencode arch=compute_90a,code=sm_90a --threads 0 -Iphases
