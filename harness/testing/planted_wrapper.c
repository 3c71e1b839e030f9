/* planted_wrapper: a test-only stand-in for one implementation in a head build of the A/B
 * study (ci/tools/ab_study.sh), slower by a chosen delay (never built by `make build`).
 *
 * Installed as <dir>/phases/NAME.so beside a file <dir>/phases/NAME.plant holding
 * "REAL_SO NANOSECONDS": it loads the real object, takes its name and title, and after
 * every run() enqueues a spin kernel of that many nanoseconds (plant_delay.so, found
 * beside this object's real testing/ directory or through $ATTN_PLANT_SO). The spin is a
 * second launch, so its cost includes a launch gap (~1 us in a graph): fine-grained on
 * implementations that take hundreds of microseconds, coarse on the fastest rungs at the
 * headline shape. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "attn_phase.h"

typedef int (*delay_fn)(cudaStream_t, long long);

static const attn_phase *g_real;
static delay_fn g_delay;
static long long g_ns;
static char g_error[8800];
/* the real object's name and title, copied in by the constructor below */
static char g_name[128] = "planted_wrapper", g_title[256] = "planted wrapper (not loaded)";
extern const attn_phase attn_phase_entry;

static int load(void)
{
    if (g_real) return 0;
    Dl_info info;
    char plant[4096], real[4096] = "";
    if (!dladdr((void *)&attn_phase_entry, &info) || !info.dli_fname) return -1;
    snprintf(plant, sizeof plant, "%s", info.dli_fname);
    char *dot = strrchr(plant, '.');
    if (!dot) return -1;
    snprintf(dot, sizeof plant - (size_t)(dot - plant), ".plant");
    FILE *f = fopen(plant, "r");
    if (!f || fscanf(f, "%4095s %lld", real, &g_ns) != 2) {
        snprintf(g_error, sizeof g_error, "cannot read %s (\"REAL_SO NANOSECONDS\")", plant);
        if (f) fclose(f);
        return -1;
    }
    fclose(f);
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    g_real = h ? (const attn_phase *)dlsym(h, "attn_phase_entry") : NULL;
    const char *so = getenv("ATTN_PLANT_SO");
    void *d = dlopen(so ? so : "build/testing/plant_delay.so", RTLD_NOW | RTLD_LOCAL);
    g_delay = d ? (delay_fn)dlsym(d, "plant_delay_enqueue") : NULL;
    if (!g_real || !g_delay) {
        snprintf(g_error, sizeof g_error, "planted wrapper: cannot load %s or the delay kernel: %s",
                 real, dlerror());
        g_real = NULL;
        return -1;
    }
    return 0;
}

static const char *unsupported(const attn_shape *s) { return load() ? g_error : g_real->unsupported(s); }
static size_t workspace_bytes(const attn_shape *s) { return load() ? 0 : g_real->workspace_bytes(s); }
static int init(void **state, const attn_shape *s) { return load() ? 1 : g_real->init(state, s); }
static void fini(void *state) { if (g_real) g_real->fini(state); }

static int run(void *state, const attn_args *a)
{
    int rc = g_real->run(state, a);
    if (rc) return rc;
    return g_delay(a->stream, g_ns) ? 900 : 0;
}

static const char *error_string(int code)
{
    if (code == 900) return "the planted delay kernel did not launch";
    return g_real ? g_real->error_string(code) : g_error;
}

/* The name and title are the real object's, so the A/B gate pairs the two. */
__attribute__((constructor)) static void copy_names(void)
{
    if (load() == 0) {
        snprintf(g_name, sizeof g_name, "%s", g_real->name);
        snprintf(g_title, sizeof g_title, "%s (planted +%lld ns)", g_real->title, g_ns);
    }
}

ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    ATTN_PHASE_ABI_VERSION, g_name, g_title, unsupported, workspace_bytes, init, run, fini, error_string,
};
