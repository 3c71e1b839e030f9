/* measure/device_info.c: GPU properties, NVML clocks and throttling, versions, git state. */
#include "measure/device_info.h"

#include <ctype.h>
#include <dlfcn.h>
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

json_t *device_gpu_json(void)
{
    int dev = 0;
    struct cudaDeviceProp p;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
        return json_pack("{s:s, s:s}", "name", "unknown", "slug", "unknown");
    char slug[128];
    name_gpu_slug(p.name, slug, sizeof slug);
    int clock_khz = 0, mem_khz = 0, bus = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev);
    cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev);
    char uuid[64];
    uuid_text((const unsigned char *)p.uuid.bytes, uuid, sizeof uuid);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    json_t *g = json_pack("{s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:s}",
                          "name", p.name, "slug", slug, "sm_count", p.multiProcessorCount,
                          "cc_major", p.major, "cc_minor", p.minor,
                          "l2_bytes", (json_int_t)p.l2CacheSize,
                          "mem_bytes", (json_int_t)p.totalGlobalMem,
                          "smem_per_block_optin", (json_int_t)p.sharedMemPerBlockOptin,
                          "clock_khz", clock_khz, "mem_clock_khz", mem_khz, "mem_bus_bits", bus,
                          "index", dev, "uuid", uuid);
    json_object_set_new(g, "cuda_visible_devices", visible ? json_string(visible) : json_null());
    return g;
}

/* Path of the shared object that defines `sym` in this process, or NULL. */
static const char *library_of(void *sym)
{
    Dl_info info;
    if (sym && dladdr(sym, &info) && info.dli_fname) return info.dli_fname;
    return NULL;
}

static void add_cudnn(json_t *v)
{
    /* The harness does not link cuDNN; the baseline does. RTLD_NOLOAD finds the copy
     * the baseline loaded (the GPU machine has two: the system's and PyTorch's). */
    void *h = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
    if (!h) {
        json_object_set_new(v, "cudnn", json_null());
        return;
    }
    size_t (*get_version)(void) = (size_t (*)(void))dlsym(h, "cudnnGetVersion");
    if (get_version) {
        json_object_set_new(v, "cudnn", json_integer((json_int_t)get_version()));
        const char *path = library_of((void *)get_version);
        if (path) json_object_set_new(v, "cudnn_path", json_string(path));
    }
    dlclose(h);
}

static void add_driver_string(json_t *v)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    nvml_init_fn init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
    nvml_shutdown_fn shut = (nvml_shutdown_fn)dlsym(h, "nvmlShutdown");
    nvml_driver_fn drv = (nvml_driver_fn)dlsym(h, "nvmlSystemGetDriverVersion");
    char buf[96];
    if (init && shut && drv && init() == 0) {
        if (drv(buf, sizeof buf) == 0) json_object_set_new(v, "driver", json_string(buf));
        shut();
    }
    dlclose(h);
}

json_t *device_versions_json(void)
{
    int drv = 0, rt = 0, major = 0, minor = 0, patch = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    json_t *v = json_object();
    json_object_set_new(v, "cuda_driver", json_integer(drv));
    json_object_set_new(v, "cuda_runtime", json_integer(rt));
    const cublas_lib *cb = cublas_lib_get(NULL, 0);
    if (cb && cb->get_property(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cb->get_property(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cb->get_property(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
        json_object_set_new(v, "cublas", json_integer(major * 10000 + minor * 100 + patch));
    if (cb && cb->path) json_object_set_new(v, "cublas_path", json_string(cb->path));
    const char *cudart_path = library_of((void *)cudaRuntimeGetVersion);
    if (cudart_path) json_object_set_new(v, "cudart_path", json_string(cudart_path));
    add_cudnn(v);
    add_driver_string(v);
    json_object_set_new(v, "nvcc", json_string(ATTN_NVCC_VERSION));
    return v;
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

json_t *device_git_json(const char *build_dir)
{
    /* build_dir/gitinfo (written by make) describes the tree the measured objects were
     * built from; the working directory's git may be another tree (a copy carried to a
     * GPU machine, a worktree), so it is asked only when the build left no gitinfo */
    char commit[128] = "", dirty[16] = "", *path = NULL, err[256];
    size_t len = 0;
    /* read by the input rule: a FIFO named gitinfo is refused, not waited on */
    char *text = asprintf(&path, "%s/gitinfo", build_dir) < 0 ? NULL
               : files_read_input(path, 4096, &len, err, sizeof err);
    free(path);
    int got = text && sscanf(text, "%127s %15s", commit, dirty) == 2;
    free(text);
    if (got)
        return json_pack("{s:s, s:b, s:s}", "commit", commit, "dirty",
                         strcmp(dirty, "clean") != 0, "source", "build/gitinfo");
    if (first_line("git rev-parse HEAD 2>/dev/null", commit, sizeof commit) == 0) {
        /* tracked changes only: build outputs and scratch files do not make a tree dirty */
        FILE *p = popen("git status --porcelain --untracked-files=no 2>/dev/null", "r");
        int any = p && fgetc(p) != EOF;
        if (p) pclose(p);
        return json_pack("{s:s, s:b, s:s}", "commit", commit, "dirty", any, "source", "git");
    }
    return json_pack("{s:s, s:b, s:s}", "commit", "unknown", "dirty", 1, "source", "none");
}

/* The reasons that mean the clocks were held down under load. */
#define THROTTLING_REASONS (NVML_REASON_SW_POWER_CAP | NVML_REASON_HW_SLOWDOWN | \
    NVML_REASON_SW_THERMAL | NVML_REASON_HW_THERMAL | NVML_REASON_HW_POWER_BRAKE)

json_t *device_clocks_json(char *why, size_t len)
{
    clock_watch *w = clock_watch_open(why, len);
    if (!w) return NULL;
    clock_reading r;
    json_t *snap = NULL;
    if (clock_watch_read(w, &r) == 0) {
        json_t *names = clock_reasons_json(r.reasons);
        snap = json_pack("{s:i, s:i, s:i, s:f, s:I, s:o}", "sm_mhz", (int)r.sm_mhz, "mem_mhz",
                         (int)r.mem_mhz, "temp_c", (int)r.temp_c, "power_w", r.power_w,
                         "throttle_mask", (json_int_t)r.reasons, "throttle", names);
    } else {
        snprintf(why, len, "NVML could not read the clocks");
    }
    clock_watch_close(w);
    return snap;
}

int device_clocks_throttled(const json_t *snapshot)
{
    json_t *m = json_object_get(snapshot, "throttle_mask");
    return json_is_integer(m) && ((unsigned long long)json_integer_value(m) & THROTTLING_REASONS);
}
