# This rung needs sm_90a (wgmma, clusters with distributed shared memory) like the rung
# below, whose attention.cu it includes for the shapes its own kernel does not take:
# -Iphases (relative: make runs nvcc from the repository's root, in every checkout) makes
# that include resolve to the frozen rung wherever this rung's files are copied (the
# planted builds copy them under the build directory).
NVCCFLAGS_10_latency := -gencode arch=compute_90a,code=sm_90a --threads 0 -Iphases
