/* evidence/run_clocks.c: what a run's clock readings say of its numbers (run_clocks.h). */
#include "evidence/run_clocks.h"

#include "measure/clock_watch.h"
#include "measure/nvml_shim.h"

/* The reason bits a list of reason names holds (a snapshot's throttle, a clock watch's
 * reasons_seen), added to *seen; an absent or null list names none. -1 when the list
 * cannot be read whole: not an array of strings, or a name this build does not know (a
 * newer driver's reason may hold the clocks down). */
static int reason_list(json_t *list, unsigned long long *seen)
{
    if (!list || json_is_null(list)) return 0;
    if (!json_is_array(list)) return -1;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        unsigned long long bit;
        if (!json_is_string(v) || clock_reason_parse(json_string_value(v), &bit)) return -1;
        *seen |= bit;
    }
    return 0;
}

/* A clock snapshot's (context.clocks_before or clocks_after, a segment's): an absent or
 * null snapshot names none. */
static int snapshot_reasons(json_t *snapshot, unsigned long long *seen)
{
    return reason_list(json_object_get(snapshot, "throttle"), seen);
}

/* The reasons every snapshot of a resumed run names (each segment's, at its process's
 * start and end), added to *seen; -1 when they cannot be read: no segments, or a segment
 * without both snapshots (runs written before segments kept them) or with a list that
 * cannot be read. */
static int segment_reasons(json_t *resumed, unsigned long long *seen)
{
    json_t *segs = json_object_get(resumed, "segments");
    if (!json_is_array(segs) || json_array_size(segs) == 0) return -1;
    size_t i;
    json_t *seg;
    json_array_foreach(segs, i, seg) {
        json_t *before = json_object_get(seg, "clocks_before"), *after = json_object_get(seg, "clocks_after");
        if (!before || !after || snapshot_reasons(before, seen) || snapshot_reasons(after, seen)) return -1;
    }
    return 0;
}

/* A snapshot's violation counters, limit by limit; -1 when it has not every one of them
 * as a non-negative integer. */
static int snapshot_violations(json_t *snapshot, unsigned long long ns[CLOCK_LIMITS])
{
    json_t *v = json_object_get(snapshot, "violation_ns");
    if (!json_is_object(v)) return -1;
    for (int i = 0; i < CLOCK_LIMITS; i++) {
        json_t *n = json_object_get(v, clock_violation_name(i));
        if (!json_is_integer(n) || json_integer_value(n) < 0) return -1;
        ns[i] = (unsigned long long)json_integer_value(n);
    }
    return 0;
}

/* Adds to s what the counters grew by between one process's two snapshots; -1 when
 * either has none or one went back. */
static int add_violations(json_t *before, json_t *after, double s[CLOCK_LIMITS])
{
    unsigned long long a[CLOCK_LIMITS], b[CLOCK_LIMITS];
    if (snapshot_violations(before, a) || snapshot_violations(after, b)) return -1;
    for (int i = 0; i < CLOCK_LIMITS; i++) {
        if (b[i] < a[i]) return -1;
        s[i] += (double)(b[i] - a[i]) * 1e-9;
    }
    return 0;
}

/* run_data.violation_s: over the run's one process, or over every segment of a resumed
 * run (the time between processes is not the run's). */
static void read_violations(run_data *r, json_t *ctx)
{
    double s[CLOCK_LIMITS] = { 0 };
    json_t *resumed = json_object_get(r->doc, "resumed");
    int ok;
    if (resumed) {
        json_t *segs = json_object_get(resumed, "segments"), *seg;
        size_t i;
        ok = json_is_array(segs) && json_array_size(segs) > 0;
        json_array_foreach(segs, i, seg)
            if (ok && add_violations(json_object_get(seg, "clocks_before"), json_object_get(seg, "clocks_after"), s))
                ok = 0;
    } else {
        ok = add_violations(json_object_get(ctx, "clocks_before"), json_object_get(ctx, "clocks_after"), s) == 0;
    }
    r->have_violation = ok;
    for (int i = 0; i < CLOCK_LIMITS; i++) r->violation_s[i] = ok ? s[i] : 0;
}

/* One measurement's clock watch (a timing mode's or a rotation's `clock`): counted, and
 * its reasons added; -1 when its list cannot be read. */
static int add_watched(run_data *r, json_t *clock)
{
    if (!json_is_object(clock)) return 0;
    unsigned long long seen = 0;
    json_t *list = json_object_get(clock, "reasons_seen");
    if (!list) return 0;
    if (reason_list(list, &seen)) return -1;
    r->watched++;
    r->watched_capped += (seen & NVML_REASON_SW_POWER_CAP) != 0;
    r->sample_reasons |= seen;
    return 0;
}

/* run_data.samples_read and what the watch saw, over every result's measurements. */
static void read_sample_clocks(run_data *r)
{
    json_t *cw = json_object_get(json_object_get(r->doc, "method"), "clock_watch");
    r->samples_read = 0;
    if (!json_is_true(json_object_get(cw, "per_sample"))) return;
    json_t *res = json_object_get(r->doc, "results"), *x;
    size_t i;
    static const char *const modes[] = { "graph", "single", "cold" };
    json_array_foreach(res, i, x) {
        json_t *t = json_object_get(x, "timing");
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
            if (add_watched(r, json_object_get(json_object_get(t, modes[m]), "clock"))) return;
        if (add_watched(r, json_object_get(json_object_get(x, "paired"), "clock"))) return;
    }
    r->samples_read = r->watched > 0;
}

/* run_data.clocks. context.throttled is set when the snapshot at the run's start or end
 * names any reason that holds the clocks down, sw_power_cap included, and an H100 under
 * load sits at its 700 W cap: the flag alone would call every such run throttled. The
 * clock discard rule ("thermal") keeps the samples taken at the cap and a paired ratio's
 * two sides share it, so a run flagged for the cap alone is POWER_CAP. A resumed run is
 * read over every segment's snapshots, where it was cut and went on too. A throttled
 * result, a thermal or brake reason, or a thermal, board or reliability limit in the
 * violation counters is THROTTLED. Snapshots that cannot say why the flag was set (no
 * throttling reason, a list not read, a resumed run whose segments do not keep their
 * snapshots) leave the flag believed, THROTTLED, unless the counters say the power cap
 * held the clocks down (the snapshots are an instant each, the counters the whole run) or
 * the reads after every timed sample saw the cap and no harder reason: thousands of
 * instants across the run, the one where it was cut among them. */
static run_clock_state clock_state(const run_data *r, json_t *ctx, run_cap_basis *basis)
{
    for (size_t i = 0; i < r->n_results; i++)
        if (r->results[i].throttled) return RUN_CLOCKS_THROTTLED;
    /* the counters measured it: a limit other than power held the clocks down, flag or none */
    if (r->have_violation && (r->violation_s[CLOCK_LIMIT_THERMAL] > 0 || r->violation_s[CLOCK_LIMIT_BOARD] > 0 ||
                              r->violation_s[CLOCK_LIMIT_RELIABILITY] > 0))
        return RUN_CLOCKS_THROTTLED;
    if (!r->throttled) return RUN_CLOCKS_NOT_THROTTLED;
    unsigned long long seen = 0, thermal = 0;
    clock_discard_parse("thermal", &thermal);
    json_t *resumed = json_object_get(r->doc, "resumed");
    int told = !(resumed && segment_reasons(resumed, &seen)) &&
               !snapshot_reasons(json_object_get(ctx, "clocks_before"), &seen) &&
               !snapshot_reasons(json_object_get(ctx, "clocks_after"), &seen);
    if (told && (seen & thermal)) return RUN_CLOCKS_THROTTLED;
    if (told && (seen & NVML_REASON_SW_POWER_CAP)) {
        *basis = RUN_CAP_FROM_SNAPSHOTS;
        return RUN_CLOCKS_POWER_CAP;
    }
    /* the snapshots cannot say why the run was marked: counters that saw the power cap
     * can, or the reads after every sample, when they saw the cap and nothing that holds
     * the clocks down harder (none of these leave the flag believed) */
    if (r->have_violation && r->violation_s[CLOCK_LIMIT_POWER] > 0) {
        *basis = RUN_CAP_FROM_COUNTERS;
        return RUN_CLOCKS_POWER_CAP;
    }
    if (r->samples_read && (r->sample_reasons & NVML_REASON_SW_POWER_CAP) && !(r->sample_reasons & thermal)) {
        *basis = RUN_CAP_FROM_SAMPLES;
        return RUN_CLOCKS_POWER_CAP;
    }
    return RUN_CLOCKS_THROTTLED;
}

void run_read_clocks(run_data *r, json_t *ctx)
{
    read_violations(r, ctx);
    read_sample_clocks(r);
    r->clocks = clock_state(r, ctx, &r->cap_basis);
}
