# This rung needs sm_90a (wgmma, clusters with distributed shared memory) like rung 09,
# whose kernels it includes for the shapes its own kernel does not take: -I phases makes
# `#include "09_tile_scheduling/attention.cu"` resolve to the frozen rung wherever this
# rung's files are copied (the planted builds copy them under the build directory).
NVCCFLAGS_10_cluster_latency := -gencode arch=compute_90a,code=sm_90a --threads 0 -I$(CURDIR)/phases
