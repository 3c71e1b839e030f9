/* measure/device_info.h: what the evidence says about the machine: the GPU, its clocks and
 * throttling (NVML), driver/toolkit/library versions, and the source tree's commit. */
#ifndef ATTNLADDER_DEVICE_INFO_H
#define ATTNLADDER_DEVICE_INFO_H
#include <stddef.h>
#include "measure/clock_watch.h"

/* 0 when a CUDA device is usable; else -1 and why (no device, no driver). */
int device_probe(char *why, size_t len);

/* Makes device `index` (among those CUDA_VISIBLE_DEVICES shows) current. 0, or -1 with
 * why, naming the count and the accepted range. */
int device_select(int index, char *why, size_t len);

/* context.gpu (evidence/writer.h writes it): the device current now. */
typedef struct {
    int known;                         /* 0: its properties could not be read */
    char name[256], slug[128], uuid[64];
    int sm_count, cc_major, cc_minor, clock_khz, mem_clock_khz, mem_bus_bits, index;
    long long l2_bytes, mem_bytes, smem_per_block_optin;
    const char *cuda_visible_devices;  /* the environment's, NULL when unset */
} device_gpu;

/* What context.versions says of cuDNN: not loaded into this process (null), loaded
 * without a version entry point (left out), or its version. */
enum { DEVICE_CUDNN_NOT_LOADED, DEVICE_CUDNN_NO_VERSION, DEVICE_CUDNN_VERSION };

/* context.versions: driver, CUDA driver and runtime, cuBLAS, cuDNN (where loaded into
 * this process, with the path of the library that was loaded), nvcc at build time.
 * A path or the driver string empty or NULL: not known, left out. */
typedef struct {
    int cuda_driver, cuda_runtime;
    int has_cublas, cublas;            /* major * 10000 + minor * 100 + patch */
    const char *cublas_path, *cudart_path;
    int cudnn;                         /* DEVICE_CUDNN_* */
    long long cudnn_version;
    char cudnn_path[512];
    int has_driver;
    char driver[96];
    const char *nvcc;
} device_versions;

/* context.git: commit and dirty flag of the tree the harness runs in, and where they
 * were read ("build/gitinfo", "git", "none"). */
typedef struct {
    char commit[128];
    int dirty;
    const char *source;
} device_git;

void device_gpu_read(device_gpu *g);
void device_versions_read(device_versions *v);
/* From git, or (a copy of the tree without .git) from build_dir/gitinfo written by make. */
void device_git_read(const char *build_dir, device_git *g);

/* A clock/throttle snapshot through NVML (libnvidia-ml.so.1, loaded at run time so the
 * harness needs no NVML at build time). 0, or -1 with `why` when NVML is absent. */
int device_clocks_read(clock_reading *r, char *why, size_t len);
/* 1 when a snapshot shows a throttle reason that lowers clocks under load. */
int device_clocks_throttled(const clock_reading *snapshot);

#endif
