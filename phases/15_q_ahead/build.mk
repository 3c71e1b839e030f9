# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernels it runs: -Iphases
# (relative: make runs nvcc from the repository's root) makes its includes of rungs 13 and
# 14 (and through them 09 and 12) resolve to those rungs wherever this rung's files are
# copied. Three translation units (attention.cu, q_ahead.cu, rung14.cu), and rung 14's
# rung13.cu, rung 13's rung12.cu and rung 11's rung10.cu objects linked as those rungs
# built them: the Makefile's PHASE_LINKS_15_q_ahead. Their targets in parallel.
NVCCFLAGS_15_q_ahead := -gencode arch=compute_90a,code=sm_90a --threads 0 -Iphases
