# Eighteen kernel variants for four targets: compile the targets in parallel.
NVCCFLAGS_06_tiling := --threads 0
