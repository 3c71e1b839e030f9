# The rung below needs sm_90a (wgmma, clusters), and this rung passes shapes on to it:
# -Iphases (relative: make runs nvcc from the repository's root) makes the includes of rung
# 11 resolve to the frozen rung wherever this rung's files are copied. This rung's own path
# is rung 11's 16-row kernel, plain sm_80 code. One translation unit of its own (rung
# 11's second is linked as rung 11 built it, the Makefile says so): its targets in parallel.
NVCCFLAGS_12_decode_rows := -gencode arch=compute_90a,code=sm_90a --threads 0 -Iphases
