# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernel files it includes:
# -Iphases (relative: make runs nvcc from the repository's root) makes those includes
# resolve to the frozen rungs wherever this rung's files are copied. Two translation units
# (attention.cu, rung12.cu), and rung 11's rung10.cu object linked as rung 11 built it: the
# Makefile's PHASE_LINKS_13_wide_keys. Their targets in parallel.
NVCCFLAGS_13_wide_keys := -gencode arch=compute_90a,code=sm_90a --threads 0 -Iphases
