/* planted_wrapper: a test-only stand-in for one implementation in a head build of the A/B
 * study (ci/tools/ab_planted.py), slower by a chosen delay (never built by `make build`).
 *
 * Installed as <dir>/phases/NAME.so beside a file <dir>/phases/NAME.plant holding
 * "REAL_SO AMOUNT [ns|cycles]"; it loads REAL_SO and takes its name and title.
 *  - cycles (the fine plant): REAL_SO is the phase's planted build (make planted-phases:
 *    every kernel spins AMOUNT SM cycles at entry); after the phase's init() this sets
 *    the amount through the object's attn_plant_set_cycles_<i> setters. No extra launch,
 *    so the plant can be a small fraction even of a 6 us rung.
 *  - ns (the default; the coarse plant): after every run() a spin kernel of AMOUNT
 *    nanoseconds (plant_delay.so, found through $ATTN_PLANT_SO or build/testing/). A
 *    second launch, so its cost includes a launch gap (~1 us in a graph). */
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
static int g_cycles;    /* 1: AMOUNT is in-kernel cycles, set through the real object's setters */
static void *g_handle;
static char g_error[8800];
/* the real object's name and title, copied in by the constructor below */
static char g_name[128] = "planted_wrapper", g_title[256] = "planted wrapper (not loaded)";
extern const attn_phase attn_phase_entry;

static int load(void)
{
    if (g_real) return 0;
    Dl_info info;
    char plant[4096], real[4096] = "", unit[16] = "ns";
    if (!dladdr((void *)&attn_phase_entry, &info) || !info.dli_fname) return -1;
    snprintf(plant, sizeof plant, "%s", info.dli_fname);
    char *dot = strrchr(plant, '.');
    if (!dot) return -1;
    snprintf(dot, sizeof plant - (size_t)(dot - plant), ".plant");
    FILE *f = fopen(plant, "r");
    int got = f ? fscanf(f, "%4095s %lld %15s", real, &g_ns, unit) : 0;
    if (f) fclose(f);
    if (got < 2 || g_ns < 0 || (strcmp(unit, "ns") != 0 && strcmp(unit, "cycles") != 0)) {
        snprintf(g_error, sizeof g_error, "cannot read %s (\"REAL_SO AMOUNT [ns|cycles]\", "
                 "AMOUNT >= 0)", plant);
        return -1;
    }
    g_cycles = strcmp(unit, "cycles") == 0;
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    g_real = h ? (const attn_phase *)dlsym(h, "attn_phase_entry") : NULL;
    g_handle = h;
    if (g_cycles) {
        if (g_real && !dlsym(h, "attn_plant_set_cycles_0")) {
            snprintf(g_error, sizeof g_error, "planted wrapper: %s has no attn_plant_set_cycles_0 "
                     "(not a planted build: make planted-phases)", real);
            g_real = NULL;
            return -1;
        }
        if (g_real) return 0;
    } else {
        const char *so = getenv("ATTN_PLANT_SO");
        void *d = dlopen(so ? so : "build/testing/plant_delay.so", RTLD_NOW | RTLD_LOCAL);
        g_delay = d ? (delay_fn)dlsym(d, "plant_delay_enqueue") : NULL;
    }
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
typedef int (*set_cycles_fn)(unsigned long long);

/* Every setter of the planted object (one per .cu file): the delay its kernels spin. */
static int set_cycles(void)
{
    char sym[64];
    int found = 0;
    for (int i = 0; i < 64; i++) {
        snprintf(sym, sizeof sym, "attn_plant_set_cycles_%d", i);
        set_cycles_fn fn = (set_cycles_fn)dlsym(g_handle, sym);
        if (!fn) break;
        if (fn((unsigned long long)g_ns) != 0) return -1;
        found++;
    }
    return found ? 0 : -1;
}

static int init(void **state, const attn_shape *s)
{
    if (load()) return 1;
    int rc = g_real->init(state, s);
    if (rc || !g_cycles) return rc;
    /* after the phase's init: its CUDA context is current */
    if (set_cycles()) {
        g_real->fini(*state);
        return 901;
    }
    return 0;
}
static void fini(void *state) { if (g_real) g_real->fini(state); }

static int run(void *state, const attn_args *a)
{
    int rc = g_real->run(state, a);
    if (rc || g_cycles) return rc;
    return g_delay(a->stream, g_ns) ? 900 : 0;
}

static const char *error_string(int code)
{
    if (code == 900) return "the planted delay kernel did not launch";
    if (code == 901) return "the planted build's delay could not be set (attn_plant_set_cycles_*)";
    return g_real ? g_real->error_string(code) : g_error;
}

/* The name and title are the real object's, so the A/B gate pairs the two. */
__attribute__((constructor)) static void copy_names(void)
{
    if (load() == 0) {
        snprintf(g_name, sizeof g_name, "%s", g_real->name);
        snprintf(g_title, sizeof g_title, "%s (planted +%lld %s)", g_real->title, g_ns,
                 g_cycles ? "cycles per block" : "ns");
    }
}

ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    ATTN_PHASE_ABI_VERSION, g_name, g_title, unsupported, workspace_bytes, init, run, fini, error_string,
};
