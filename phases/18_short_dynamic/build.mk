# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernels it runs. The
# include path puts overlay/ before phases/: overlay/ holds a link to rung 16's overlay of
# rung 09's folder, so the rung 09 kernels this rung compiles (in short_dynamic.cu, which
# holds rung 13 whole) are rung 16's, step descriptors and all.
# Three translation units (attention.cu, short_dynamic.cu, rung17.cu), and rung 17's
# row_tail.cu and rung16.cu objects and the objects rung 17 links, linked as those rungs
# built them: the Makefile's PHASE_LINKS_18_short_dynamic.
NVCCFLAGS_18_short_dynamic := -gencode arch=compute_90a,code=sm_90a --threads 0 \
                              -Iphases/18_short_dynamic/overlay -Iphases
