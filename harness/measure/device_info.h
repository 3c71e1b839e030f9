/* measure/device_info.h: what the evidence says about the machine: the GPU, its clocks and
 * throttling (NVML), driver/toolkit/library versions, and the source tree's commit. */
#ifndef ATTNLADDER_DEVICE_INFO_H
#define ATTNLADDER_DEVICE_INFO_H
#include <jansson.h>

/* 0 when a CUDA device is usable; else -1 and why (no device, no driver). */
int device_probe(char *why, size_t len);

/* Makes device `index` (among those CUDA_VISIBLE_DEVICES shows) current. 0, or -1 with
 * why, naming the count and the accepted range. */
int device_select(int index, char *why, size_t len);

/* context.gpu: name, slug, SM count, compute capability, memory sizes, clocks, and which
 * device it is (index, UUID, CUDA_VISIBLE_DEVICES). */
json_t *device_gpu_json(void);
/* context.versions: driver, CUDA driver and runtime, cuBLAS, cuDNN (where loaded into
 * this process, with the path of the library that was loaded), nvcc at build time. */
json_t *device_versions_json(void);
/* context.git: commit and dirty flag of the tree the harness runs in, from git, or
 * (a copy of the tree without .git) from build_dir/gitinfo written by make. */
json_t *device_git_json(const char *build_dir);

/* A clock/throttle snapshot through NVML (libnvidia-ml.so.1, loaded at run time so the
 * harness needs no NVML at build time). Returns NULL with `why` when NVML is absent. */
json_t *device_clocks_json(char *why, size_t len);
/* 1 when a snapshot shows a throttle reason that lowers clocks under load. */
int device_clocks_throttled(const json_t *snapshot);

#endif
