# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernels it runs: -Iphases
# (relative: make runs nvcc from the repository's root) makes its includes of rungs 09 and
# 12 resolve to those rungs wherever this rung's files are copied. Two translation units
# (attention.cu, rung12.cu), and rung 11's rung10.cu object linked as rung 11 built it: the
# Makefile's PHASE_LINKS_13_row_blocks. Their targets in parallel.
NVCCFLAGS_13_row_blocks := -gencode arch=compute_90a,code=sm_90a --threads 0 -Iphases
