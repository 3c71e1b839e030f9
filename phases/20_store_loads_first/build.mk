# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernels it runs. The
# include path puts overlay/ before phases/: every include of a file of rung 09's folder in
# the units below then finds the overlay's copy of it, whose files are links to rung 19's
# overlay, but for epilogue.cuh, this rung's one change.
# Five translation units (attention.cu, short_dynamic.cu, row_tail.cu, rung13.cu,
# rung10.cu), as rung 19 has them: every unit that holds rung 09's kernels compiled again
# with this include path; rung 18's rung17.cu, rung 17's rung16.cu, rung 15's rung14.cu and
# rung 13's rung12.cu objects hold none (dispatch only): linked as those rungs built them,
# the Makefile's PHASE_LINKS_20_store_loads_first.
NVCCFLAGS_20_store_loads_first := -gencode arch=compute_90a,code=sm_90a --threads 0 \
                                  -Iphases/20_store_loads_first/overlay -Iphases
