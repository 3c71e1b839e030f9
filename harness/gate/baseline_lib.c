/* gate/baseline_lib.c: the baseline library of two runs (baseline_lib.h). */
#include "gate/baseline_lib.h"

#include <stdio.h>

baseline_lib baseline_lib_of(const run_data *run, const run_data *refs, size_t n)
{
    baseline_lib b = { BASELINE_LIB_SAME, run->ctx.cudnn > 0 ? run->ctx.cudnn : -1, -1, NULL };
    for (size_t i = 0; i < n; i++) {
        long v = refs[i].ctx.cudnn > 0 ? refs[i].ctx.cudnn : -1;
        if (b.now > 0 && v > 0 && v != b.now)
            return (baseline_lib){ BASELINE_LIB_CHANGED, b.now, v, refs[i].path };
        if ((b.now < 0 || v < 0) && b.verdict == BASELINE_LIB_SAME) {
            b.verdict = BASELINE_LIB_UNKNOWN;
            b.ref = v;
            b.ref_path = refs[i].path;
        }
    }
    if (b.verdict == BASELINE_LIB_SAME && n > 0) {
        b.ref = refs[0].ctx.cudnn;
        b.ref_path = refs[0].path;
    }
    return b;
}

/* CUDNN_VERSION (major x 10000 + minor x 100 + patch since 9) as text */
static void version_text(long v, char *buf, size_t len)
{
    if (v > 0) snprintf(buf, len, "cuDNN %ld.%ld.%ld", v / 10000, v % 10000 / 100, v % 100);
    else snprintf(buf, len, "a cuDNN the run does not record");
}

void baseline_lib_text(const baseline_lib *b, char *buf, size_t len)
{
    char now[64], ref[64];
    version_text(b->now, now, sizeof now);
    version_text(b->ref, ref, sizeof ref);
    if (b->verdict == BASELINE_LIB_CHANGED)
        snprintf(buf, len, "baseline changed: %s in this run, %s in %s; every ratio is to another library, so "
                 "no row is judged as drift (the ladder gate still runs); accept runs of the new library to "
                 "judge it again", now, ref, b->ref_path ? b->ref_path : "the reference");
    else if (b->verdict == BASELINE_LIB_UNKNOWN)
        snprintf(buf, len, "baseline library unknown: %s in this run, %s in %s; judged as before", now, ref,
                 b->ref_path ? b->ref_path : "the reference");
    else
        snprintf(buf, len, "baseline library: %s in this run and the reference%s", now, b->ref_path ? "s" : "");
}
