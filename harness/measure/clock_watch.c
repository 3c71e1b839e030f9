/* measure/clock_watch.c: NVML per sample (clock_watch.h). */
#include "measure/clock_watch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "measure/nvml_shim.h"

struct clock_watch {
    void *lib;
    nvml_device dev;
    nvml_shutdown_fn shutdown;
    nvml_clock_fn clock;
    nvml_temp_fn temp;
    nvml_power_fn power;
    nvml_reasons_fn reasons;
    nvml_violation_fn violation;   /* NULL: not exported by this driver */
};

clock_watch *clock_watch_open(char *why, size_t len)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, len, "libnvidia-ml.so.1 not loadable: %s", dlerror());
        return NULL;
    }
    clock_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(why, len, "out of host memory");
        dlclose(h);
        return NULL;
    }
    w->lib = h;
    nvml_init_fn init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
    nvml_by_pci_fn by_pci = (nvml_by_pci_fn)dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
    w->shutdown = (nvml_shutdown_fn)dlsym(h, "nvmlShutdown");
    w->clock = (nvml_clock_fn)dlsym(h, "nvmlDeviceGetClockInfo");
    w->temp = (nvml_temp_fn)dlsym(h, "nvmlDeviceGetTemperature");
    w->power = (nvml_power_fn)dlsym(h, "nvmlDeviceGetPowerUsage");
    /* renamed in NVML 12.x; the old name stays exported by older drivers only */
    w->reasons = (nvml_reasons_fn)dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!w->reasons) w->reasons = (nvml_reasons_fn)dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    w->violation = (nvml_violation_fn)dlsym(h, "nvmlDeviceGetViolationStatus");
    if (!init || !by_pci || !w->shutdown || !w->clock || !w->temp || !w->power || !w->reasons) {
        snprintf(why, len, "libnvidia-ml.so.1 lacks an entry point the harness uses");
        dlclose(h);
        free(w);
        return NULL;
    }
    if (init() != 0) {
        snprintf(why, len, "nvmlInit failed");
        dlclose(h);
        free(w);
        return NULL;
    }
    char bus[64];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess ||
        by_pci(bus, &w->dev) != 0) {
        snprintf(why, len, "NVML does not know the CUDA device's PCI bus id");
        clock_watch_close(w);
        return NULL;
    }
    return w;
}

int clock_watch_sample(clock_watch *w, unsigned *sm_mhz, unsigned long long *reasons)
{
    *sm_mhz = 0;
    *reasons = 0;
    if (w->clock(w->dev, NVML_CLOCK_SM_, sm_mhz) != 0) return -1;
    return w->reasons(w->dev, reasons) != 0 ? -1 : 0;
}

static const struct { int policy; const char *name; } LIMITS[CLOCK_LIMITS] = {
    [CLOCK_LIMIT_POWER] = { NVML_POLICY_POWER_, "power" },
    [CLOCK_LIMIT_THERMAL] = { NVML_POLICY_THERMAL_, "thermal" },
    [CLOCK_LIMIT_BOARD] = { NVML_POLICY_BOARD_LIMIT_, "board_limit" },
    [CLOCK_LIMIT_RELIABILITY] = { NVML_POLICY_RELIABILITY_, "reliability" },
};

const char *clock_violation_name(int limit)
{
    return limit >= 0 && limit < CLOCK_LIMITS ? LIMITS[limit].name : NULL;
}

/* Every limit's counter, or none: a snapshot with some of them could not be compared
 * with another limit by limit. */
static void read_violations(clock_watch *w, clock_reading *r)
{
    r->have_violation = 0;
    if (!w->violation) return;
    for (int i = 0; i < CLOCK_LIMITS; i++) {
        nvml_violation v = { 0, 0 };
        if (w->violation(w->dev, LIMITS[i].policy, &v) != 0) return;
        r->violation_ns[i] = v.violation_ns;
    }
    r->have_violation = 1;
}

int clock_watch_read(clock_watch *w, clock_reading *r)
{
    unsigned mw = 0;
    memset(r, 0, sizeof *r);
    if (clock_watch_sample(w, &r->sm_mhz, &r->reasons) || w->clock(w->dev, NVML_CLOCK_MEM_, &r->mem_mhz) ||
        w->temp(w->dev, NVML_TEMPERATURE_GPU_, &r->temp_c) || w->power(w->dev, &mw))
        return -1;
    r->power_w = mw / 1000.0;
    read_violations(w, r);
    return 0;
}

void clock_watch_close(clock_watch *w)
{
    if (!w) return;
    w->shutdown();
    dlclose(w->lib);
    free(w);
}

int clock_tally_sample(const clock_policy *p, clock_tally *t, unsigned *mhz)
{
    unsigned long long why = 0;
    *mhz = 0;
    if (!p->watch || clock_watch_sample(p->watch, mhz, &why)) return 0;
    return clock_tally_add(p, t, why);
}

int clock_tally_add(const clock_policy *p, clock_tally *t, unsigned long long why)
{
    t->seen |= why;
    if (why & p->discard_mask) {
        t->discarded++;
        return 1;
    }
    if (why & NVML_REASON_SW_POWER_CAP) t->power_capped++;
    return 0;
}

int clock_tally_over(const clock_policy *p, const clock_tally *t, size_t kept)
{
    return t->discarded >= 10 && (double)t->discarded > p->discard_limit * (double)(t->discarded + kept);
}

#define THERMAL_REASONS (NVML_REASON_HW_SLOWDOWN | NVML_REASON_SW_THERMAL | NVML_REASON_HW_THERMAL | \
                         NVML_REASON_HW_POWER_BRAKE)

int clock_discard_parse(const char *name, unsigned long long *mask)
{
    if (!strcmp(name, "thermal")) *mask = THERMAL_REASONS;
    else if (!strcmp(name, "power")) *mask = THERMAL_REASONS | NVML_REASON_SW_POWER_CAP;
    else if (!strcmp(name, "none")) *mask = 0;
    else return -1;
    return 0;
}

const char *clock_discard_name(unsigned long long mask)
{
    return mask == 0 ? "none" : mask == THERMAL_REASONS ? "thermal"
         : mask == (THERMAL_REASONS | NVML_REASON_SW_POWER_CAP) ? "power" : "custom";
}

static const struct { unsigned long long bit; const char *name; } REASONS[] = {
    { NVML_REASON_GPU_IDLE, "gpu_idle" },
    { NVML_REASON_APP_CLOCKS, "applications_clocks" },
    { NVML_REASON_SW_POWER_CAP, "sw_power_cap" },
    { NVML_REASON_HW_SLOWDOWN, "hw_slowdown" },
    { NVML_REASON_SYNC_BOOST, "sync_boost" },
    { NVML_REASON_SW_THERMAL, "sw_thermal" },
    { NVML_REASON_HW_THERMAL, "hw_thermal" },
    { NVML_REASON_HW_POWER_BRAKE, "hw_power_brake" },
    { NVML_REASON_DISPLAY_CLOCKS, "display_clocks" },
};

json_t *clock_reasons_json(unsigned long long mask)
{
    json_t *names = json_array();
    for (size_t i = 0; i < sizeof REASONS / sizeof REASONS[0]; i++)
        if (mask & REASONS[i].bit) json_array_append_new(names, json_string(REASONS[i].name));
    return names;
}

int clock_reason_parse(const char *name, unsigned long long *bit)
{
    for (size_t i = 0; i < sizeof REASONS / sizeof REASONS[0]; i++)
        if (!strcmp(name, REASONS[i].name)) {
            *bit = REASONS[i].bit;
            return 0;
        }
    return -1;
}
