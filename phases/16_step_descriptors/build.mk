# This rung needs sm_90a (wgmma, TMA) like the rungs below, whose kernels it runs. The
# include path puts overlay/ before phases/: every include of a file of rung 09's folder
# in the units below (through rungs 10, 13 and 15) then finds the overlay's copy of that
# folder, whose files are links to rung 09's, but for mainloop.cuh, this rung's one change.
# Four translation units (attention.cu, q_ahead.cu, rung13.cu, rung10.cu), and
# rung 15's rung14.cu and rung 13's rung12.cu objects (no rung 09 kernel inside) linked as
# those rungs built them: the Makefile's PHASE_LINKS_16_step_descriptors.
NVCCFLAGS_16_step_descriptors := -gencode arch=compute_90a,code=sm_90a --threads 0 \
                                 -Iphases/16_step_descriptors/overlay -Iphases
