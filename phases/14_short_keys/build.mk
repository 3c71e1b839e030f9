# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernels it runs: -Iphases
# (relative: make runs nvcc from the repository's root) makes its include of rung 13 (and
# through it rungs 09 and 12) resolve to those rungs wherever this rung's files are copied.
# Two translation units (attention.cu, rung13.cu), and rung 13's rung12.cu and rung 11's
# rung10.cu objects linked as those rungs built them: the Makefile's
# PHASE_LINKS_14_short_keys. Their targets in parallel.
NVCCFLAGS_14_short_keys := -gencode arch=compute_90a,code=sm_90a --threads 0 -Iphases
