# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernels it runs. The
# include path puts overlay/ before phases/: every include of a file of rung 09's folder in
# the units below then finds the overlay's copy of it, whose files are links to rung 21's
# overlay, but for host_choice.cuh, this rung's one change (the choice, not a kernel).
# Five translation units (attention.cu, short_dynamic.cu, row_tail.cu, rung13.cu,
# rung10.cu), as rung 21 has them: every unit that holds rung 09's kernels and choice compiled
# again with this include path; the dispatch objects rung 21 links are linked as those rungs
# built them, the Makefile's PHASE_LINKS_22_causal_rows.
NVCCFLAGS_22_causal_rows := -gencode arch=compute_90a,code=sm_90a --threads 0 \
                            -Iphases/22_causal_rows/overlay -Iphases
