# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernels it runs. The
# include path puts overlay/ before phases/: overlay/ holds a link to the rung below's
# overlay of rung 09's folder, so the rung 09 kernels this rung compiles (in row_tail.cu,
# which holds rung 15's q_ahead.cu whole) are the rung below's, step descriptors and all.
# Three translation units (attention.cu, row_tail.cu, rung16.cu), and the rung below's
# rung13.cu and rung10.cu objects, rung 15's rung14.cu and rung 13's rung12.cu objects,
# linked as those rungs built them: the Makefile's PHASE_LINKS_17_row_tail.
NVCCFLAGS_17_row_tail := -gencode arch=compute_90a,code=sm_90a --threads 0 \
                         -Iphases/17_row_tail/overlay -Iphases
