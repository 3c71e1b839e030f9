/* measure/device_info.c: GPU properties, NVML clocks and throttling, versions, git state. */
#include "measure/device_info.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "core/files.h"
#include "core/names.h"
#include "measure/clock_watch.h"
#include "measure/cublas_lib.h"
#include "measure/nvml_shim.h"

#ifndef ATTN_NVCC_VERSION
#define ATTN_NVCC_VERSION "unknown"
#endif

int device_probe(char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    /* without a driver the runtime says its driver is "insufficient": say what is missing */
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (e != cudaSuccess && !driver) {
        snprintf(why, len, "no NVIDIA driver on this machine (libcuda.so.1 not found)");
        return -1;
    }
    if (driver) dlclose(driver);
    if (e != cudaSuccess) {
        snprintf(why, len, "%s", cudaGetErrorString(e));
        return -1;
    }
    if (n < 1) {
        snprintf(why, len, "no CUDA device");
        return -1;
    }
    return 0;
}

int device_select(int index, char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, len, "%s", cudaGetErrorString(e));
        return -1;
    }
    if (index < 0 || index >= n) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        snprintf(why, len, "this machine shows %d CUDA device%s (accepted: 0..%d)%s%s", n, n == 1 ? "" : "s",
                 n - 1, vis ? "; CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "");
        return -1;
    }
    e = cudaSetDevice(index);
    if (e != cudaSuccess) {
        snprintf(why, len, "cudaSetDevice: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi writes a device's UUID. */
static void uuid_text(const unsigned char b[16], char *out, size_t len)
{
    char hex[33];
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", b[i]);
    snprintf(out, len, "GPU-%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
}

void device_gpu_read(device_gpu *g)
{
    memset(g, 0, sizeof *g);
    int dev = 0;
    struct cudaDeviceProp p;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) return;
    g->known = 1;
    snprintf(g->name, sizeof g->name, "%s", p.name);
    name_gpu_slug(p.name, g->slug, sizeof g->slug);
    cudaDeviceGetAttribute(&g->clock_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&g->mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
    cudaDeviceGetAttribute(&g->mem_bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
    uuid_text((const unsigned char *)p.uuid.bytes, g->uuid, sizeof g->uuid);
    g->sm_count = p.multiProcessorCount;
    g->cc_major = p.major;
    g->cc_minor = p.minor;
    g->l2_bytes = p.l2CacheSize;
    g->mem_bytes = (long long)p.totalGlobalMem;
    g->smem_per_block_optin = (long long)p.sharedMemPerBlockOptin;
    g->index = dev;
    g->cuda_visible_devices = getenv("CUDA_VISIBLE_DEVICES");
}

/* Path of the shared object that defines `sym` in this process, or NULL. */
static const char *library_of(void *sym)
{
    Dl_info info;
    if (sym && dladdr(sym, &info) && info.dli_fname) return info.dli_fname;
    return NULL;
}

static void read_cudnn(device_versions *v)
{
    /* The harness does not link cuDNN; the baseline does. RTLD_NOLOAD finds the copy
     * the baseline loaded (the GPU machine has two: the system's and PyTorch's). */
    void *h = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
    if (!h) {
        v->cudnn = DEVICE_CUDNN_NOT_LOADED;
        return;
    }
    v->cudnn = DEVICE_CUDNN_NO_VERSION;
    size_t (*get_version)(void) = (size_t (*)(void))dlsym(h, "cudnnGetVersion");
    if (get_version) {
        v->cudnn = DEVICE_CUDNN_VERSION;
        v->cudnn_version = (long long)get_version();
        /* the file, not the soname's link: the machine's and PyTorch's cuDNN share the
         * soname, and the file names the release (libcudnn.so.9.14.0) */
        const char *path = library_of((void *)get_version);
        char real[PATH_MAX];
        const char *file = path && realpath(path, real) ? real : path;
        if (file && strlen(file) < sizeof v->cudnn_path) memcpy(v->cudnn_path, file, strlen(file) + 1);
    }
    dlclose(h);
}

static void read_driver_string(device_versions *v)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    nvml_init_fn init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
    nvml_shutdown_fn shut = (nvml_shutdown_fn)dlsym(h, "nvmlShutdown");
    nvml_driver_fn drv = (nvml_driver_fn)dlsym(h, "nvmlSystemGetDriverVersion");
    if (init && shut && drv && init() == 0) {
        v->has_driver = drv(v->driver, sizeof v->driver) == 0;
        shut();
    }
    dlclose(h);
}

void device_versions_read(device_versions *v)
{
    int major = 0, minor = 0, patch = 0;
    memset(v, 0, sizeof *v);
    cudaDriverGetVersion(&v->cuda_driver);
    cudaRuntimeGetVersion(&v->cuda_runtime);
    const cublas_lib *cb = cublas_lib_get(NULL, 0);
    if (cb && cb->get_property(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cb->get_property(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cb->get_property(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS) {
        v->has_cublas = 1;
        v->cublas = major * 10000 + minor * 100 + patch;
    }
    v->cublas_path = cb ? cb->path : NULL;
    v->cudart_path = library_of((void *)cudaRuntimeGetVersion);
    read_cudnn(v);
    read_driver_string(v);
    v->nvcc = ATTN_NVCC_VERSION;
}

/* First line of a command's output, trimmed; 0 on success. */
static int first_line(const char *cmd, char *buf, size_t len)
{
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    buf[0] = '\0';
    char *got = fgets(buf, (int)len, f);
    int rc = pclose(f);
    if (!got || rc != 0) return -1;
    buf[strcspn(buf, "\r\n")] = '\0';
    return 0;
}

void device_git_read(const char *build_dir, device_git *g)
{
    /* build_dir/gitinfo (written by make) describes the tree the measured objects were
     * built from; the working directory's git may be another tree (a copy carried to a
     * GPU machine, a worktree), so it is asked only when the build left no gitinfo */
    char dirty[16] = "", *path = NULL, err[256];
    size_t len = 0;
    memset(g, 0, sizeof *g);
    /* read by the input rule: a FIFO named gitinfo is refused, not waited on */
    char *text = asprintf(&path, "%s/gitinfo", build_dir) < 0 ? NULL
               : files_read_input(path, 4096, &len, err, sizeof err);
    free(path);
    int got = text && sscanf(text, "%127s %15s", g->commit, dirty) == 2;
    free(text);
    if (got) {
        g->dirty = strcmp(dirty, "clean") != 0;
        g->source = "build/gitinfo";
        return;
    }
    if (first_line("git rev-parse HEAD 2>/dev/null", g->commit, sizeof g->commit) == 0) {
        /* tracked changes only: build outputs and scratch files do not make a tree dirty */
        FILE *p = popen("git status --porcelain --untracked-files=no 2>/dev/null", "r");
        g->dirty = p && fgetc(p) != EOF;
        if (p) pclose(p);
        g->source = "git";
        return;
    }
    snprintf(g->commit, sizeof g->commit, "unknown");
    g->dirty = 1;
    g->source = "none";
}

/* The reasons that mean the clocks were held down under load. */
#define THROTTLING_REASONS (NVML_REASON_SW_POWER_CAP | NVML_REASON_HW_SLOWDOWN | \
    NVML_REASON_SW_THERMAL | NVML_REASON_HW_THERMAL | NVML_REASON_HW_POWER_BRAKE)

int device_clocks_read(clock_reading *r, char *why, size_t len)
{
    clock_watch *w = clock_watch_open(why, len);
    if (!w) return -1;
    int rc = clock_watch_read(w, r);
    if (rc) snprintf(why, len, "NVML could not read the clocks");
    clock_watch_close(w);
    return rc ? -1 : 0;
}

int device_clocks_throttled(const clock_reading *snapshot)
{
    return (snapshot->reasons & THROTTLING_REASONS) != 0;
}
