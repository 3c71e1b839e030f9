/* measure/planted_slowdown.c: the planted-slowdown switch (compiled in only with ATTN_TEST_SWITCHES). */
#include "measure/planted_slowdown.h"

#ifdef ATTN_TEST_SWITCHES
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*delay_fn)(cudaStream_t, long long);

static const attn_phase *g_real;
static attn_phase g_proxy;
static long long g_ns;
static delay_fn g_delay;
static char g_text[256];

static int proxy_run(void *state, const attn_args *a)
{
    int rc = g_real->run(state, a);
    if (rc) return rc;
    return g_delay(a->stream, g_ns) ? 900 : 0;
}

static const char *proxy_error(int code)
{
    return code == 900 ? "planted delay kernel failed to launch" : g_real->error_string(code);
}

const attn_phase *plant_wrap(const attn_phase *ph)
{
    const char *spec = getenv("ATTN_PLANT");
    char name[128];
    long long ns;
    if (!spec || sscanf(spec, "%127[^:]:%lld", name, &ns) != 2 || strcmp(name, ph->name) != 0)
        return ph;
    if (!g_delay) {
        const char *so = getenv("ATTN_PLANT_SO");
        void *h = dlopen(so ? so : "build/testing/plant_delay.so", RTLD_NOW | RTLD_LOCAL);
        g_delay = h ? (delay_fn)dlsym(h, "plant_delay_enqueue") : NULL;
        if (!g_delay) {
            fprintf(stderr, "attnladder: ATTN_PLANT set but plant_delay.so not loadable: %s\n", dlerror());
            exit(2);
        }
    }
    g_real = ph;
    g_ns = ns;
    g_proxy = *ph;
    g_proxy.run = proxy_run;
    g_proxy.error_string = proxy_error;
    snprintf(g_text, sizeof g_text, "%s", spec);
    return &g_proxy;
}

const char *plant_describe(void)
{
    return getenv("ATTN_PLANT");
}

#else

const attn_phase *plant_wrap(const attn_phase *ph) { return ph; }
const char *plant_describe(void) { return NULL; }

#endif
