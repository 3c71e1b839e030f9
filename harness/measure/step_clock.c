/* measure/step_clock.c: per-step wall-time buckets (step_clock.h). */
#include "measure/step_clock.h"

#include <math.h>
#include <stdio.h>
#include "measure/timing.h"

static const char *const NAMES[STEP_COUNT] = {
    "inputs", "ref_cpu", "ref_gpu", "device_mem", "init", "check_run", "compare",
    "timing", "recheck", "paired", "other_inputs",
};

const char *step_name(step_id id) { return id < STEP_COUNT ? NAMES[id] : "?"; }

double step_add(step_times *st, step_id id, double t0)
{
    double now = time_now_s();
    if (st && id < STEP_COUNT && now > t0) st->s[id] += now - t0;
    return now;
}

void step_times_accumulate(step_times *into, const step_times *add)
{
    for (int i = 0; i < STEP_COUNT; i++) into->s[i] += add->s[i];
}

void step_times_text(const step_times *st, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (int i = 0; i < STEP_COUNT && used < len; i++) {
        if (st->s[i] < 0.005) continue;
        int n = snprintf(buf + used, len - used, "%s%s %.2f", used ? ", " : "", NAMES[i], st->s[i]);
        if (n < 0) break;
        used += (size_t)n;
    }
}
