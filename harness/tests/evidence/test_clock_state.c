/* test_clock_state.c: what a run's clocks say of its numbers (reader.h, run_data.clocks).
 * A run is marked throttled (context.throttled) when a clock snapshot taken at its start
 * or end names a reason that holds the clocks down, and an H100 at its power cap names
 * sw_power_cap under any load. The clock discard rule keeps samples taken at the cap and
 * paired ratios cancel it, so a run marked for the cap alone reads POWER_CAP, not
 * THROTTLED; a thermal or brake reason, a throttled result, or snapshots that cannot tell
 * (no reason, a reason not known, a list that is not one) read THROTTLED. The recorded
 * flag itself is kept as written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "evidence/reader.h"
#include "measure/nvml_shim.h"

#define FIXTURE "harness/tests/data/evidence/nvidia-test-gpu/20260101T000000Z_aaaaaaa.json"
#define H100_REF "evidence/nvidia-h100-80gb-hbm3/20261127T230115Z_49b36b5.json.gz"
#define H200_CAPPED "evidence/nvidia-h200/studies/q_ahead/paired_long_20261203T0712Z_e86bed9.json.gz"
#define H200_REF "evidence/nvidia-h200/20261204T192149Z_fe23a4b.json.gz"
#define H200_UNMARKED "evidence/nvidia-h200/studies/q_ahead/heldout_run_cut_20261203T073503Z_f88de61.json.gz"
#define H100_UNMARKED "evidence/nvidia-h100-80gb-hbm3/20261123T082246Z_27d5592.json.gz"

/* The fixture run (no result throttled) with context.throttled and the snapshots' throttle
 * lists set: throttled < 0 leaves the flag out; a list NULL leaves its snapshot's list
 * out, "absent" the whole snapshot, "null" makes the snapshot null; otherwise the list is
 * read as JSON. */
static json_t *run_with(int throttled, const char *before, const char *after)
{
    json_error_t je;
    json_t *doc = json_load_file(FIXTURE, 0, &je);
    if (!doc) fail_msg("%s: %s", FIXTURE, je.text);
    json_t *ctx = json_object_get(doc, "context");
    if (throttled < 0) json_object_del(ctx, "throttled");
    else json_object_set_new(ctx, "throttled", json_boolean(throttled));
    const char *lists[] = { before, after }, *keys[] = { "clocks_before", "clocks_after" };
    for (size_t i = 0; i < 2; i++) {
        json_t *snap = json_object_get(ctx, keys[i]);
        if (!lists[i]) json_object_del(snap, "throttle");
        else if (!strcmp(lists[i], "absent")) json_object_del(ctx, keys[i]);
        else if (!strcmp(lists[i], "null")) json_object_set_new(ctx, keys[i], json_null());
        else {
            json_t *v = json_loads(lists[i], JSON_DECODE_ANY, &je);
            if (!v) fail_msg("%s: %s", lists[i], je.text);
            json_object_set_new(snap, "throttle", v);
        }
    }
    return doc;
}

/* The state read from doc (taken), and the flag kept as recorded. */
static run_clock_state state_of(json_t *doc)
{
    char err[1024];
    run_data r;
    if (run_from_doc(&r, doc, FIXTURE, err, sizeof err)) fail_msg("%s", err);
    json_t *flag = json_object_get(json_object_get(doc, "context"), "throttled");
    assert_int_equal(r.throttled, json_is_true(flag));
    run_clock_state s = r.clocks;
    run_close(&r);
    json_decref(doc);
    return s;
}

static void expect(int throttled, const char *before, const char *after, run_clock_state want)
{
    run_clock_state got = state_of(run_with(throttled, before, after));
    if (got != want)
        fail_msg("throttled %d, before %s, after %s: state %d, expected %d", throttled, before ? before : "(none)",
                 after ? after : "(none)", (int)got, (int)want);
}

/* Marked throttled for the power cap alone, at the start, the end or both, the other
 * snapshot empty, without its list, null or absent; reasons that do not hold the
 * clocks down (idle, application clocks, sync boost, display) beside it change nothing. */
static void the_power_cap_alone_is_the_power_cap(void **st)
{
    (void)st;
    expect(1, "[]", "[\"sw_power_cap\"]", RUN_CLOCKS_POWER_CAP);
    expect(1, "[\"sw_power_cap\"]", "[]", RUN_CLOCKS_POWER_CAP);
    expect(1, "[\"sw_power_cap\"]", "[\"sw_power_cap\"]", RUN_CLOCKS_POWER_CAP);
    expect(1, "null", "[\"sw_power_cap\"]", RUN_CLOCKS_POWER_CAP);
    expect(1, "absent", "[\"sw_power_cap\"]", RUN_CLOCKS_POWER_CAP);
    expect(1, NULL, "[\"sw_power_cap\"]", RUN_CLOCKS_POWER_CAP);
    expect(1, "[\"sw_power_cap\"]", "null", RUN_CLOCKS_POWER_CAP);
    expect(1, "[\"gpu_idle\", \"applications_clocks\"]",
           "[\"sw_power_cap\", \"sync_boost\", \"display_clocks\"]", RUN_CLOCKS_POWER_CAP);
}

/* A thermal or brake reason in either snapshot, with the cap or without it. */
static void a_thermal_reason_is_throttled(void **st)
{
    (void)st;
    expect(1, "[]", "[\"sw_power_cap\", \"sw_thermal\"]", RUN_CLOCKS_THROTTLED);
    const char *const thermal[] = { "[\"hw_slowdown\"]", "[\"sw_thermal\"]", "[\"hw_thermal\"]",
                                    "[\"hw_power_brake\"]" };
    for (size_t i = 0; i < sizeof thermal / sizeof thermal[0]; i++) {
        expect(1, thermal[i], "[\"sw_power_cap\"]", RUN_CLOCKS_THROTTLED);
        expect(1, "[]", thermal[i], RUN_CLOCKS_THROTTLED);
    }
}

/* Marked throttled, but the snapshots cannot say for what: no throttling reason (only
 * idle, none, no list, no snapshot), a name this build does not know, a list that is not
 * an array of strings. The flag is believed. */
static void snapshots_that_cannot_tell_are_throttled(void **st)
{
    (void)st;
    expect(1, "[]", "[\"gpu_idle\"]", RUN_CLOCKS_THROTTLED);
    expect(1, "[]", "[]", RUN_CLOCKS_THROTTLED);
    expect(1, NULL, NULL, RUN_CLOCKS_THROTTLED);
    expect(1, "absent", "null", RUN_CLOCKS_THROTTLED);
    expect(1, "[]", "[\"sw_power_cap\", \"a_newer_reason\"]", RUN_CLOCKS_THROTTLED);
    expect(1, "[]", "4", RUN_CLOCKS_THROTTLED);
    expect(1, "4", "[\"sw_power_cap\"]", RUN_CLOCKS_THROTTLED);
    expect(1, "[]", "\"sw_power_cap\"", RUN_CLOCKS_THROTTLED);
    expect(1, "[]", "[\"sw_power_cap\", 4]", RUN_CLOCKS_THROTTLED);
    expect(1, "[]", "{}", RUN_CLOCKS_THROTTLED);
}

/* Not marked throttled (false or no flag): not throttled, whatever the snapshots hold. */
static void unmarked_is_not_throttled(void **st)
{
    (void)st;
    expect(0, "[]", "[]", RUN_CLOCKS_NOT_THROTTLED);
    expect(-1, "[]", "[]", RUN_CLOCKS_NOT_THROTTLED);
    expect(0, "[]", "[\"sw_power_cap\"]", RUN_CLOCKS_NOT_THROTTLED);
    expect(0, "absent", "4", RUN_CLOCKS_NOT_THROTTLED);
}

/* A result stopped past the clock discard limit (graph sampling, its pairs, or every
 * round of its rotation) makes the run throttled, whatever the snapshots say. */
static void a_throttled_result_is_throttled(void **st)
{
    (void)st;
    static const char *const marks[] = { "graph", "paired", "paired_throttled" };
    for (size_t m = 0; m < 3; m++)
        for (int flag = 0; flag < 2; flag++) {
            json_t *doc = run_with(flag, "[]", flag ? "[\"sw_power_cap\"]" : "[]");
            json_t *res = json_array_get(json_object_get(doc, "results"), 3);
            if (m == 0)
                json_object_set_new(json_object_get(json_object_get(res, "timing"), "graph"), "stop",
                                    json_string("throttled"));
            else if (m == 1)
                json_object_set_new(res, "paired", json_pack("{s:s, s:[f], s:[f], s:s}", "baseline", "01_scalar",
                                                             "impl_us", 2.0, "baseline_us", 3.0, "stop", "throttled"));
            else
                json_object_set_new(res, "paired_throttled", json_pack("{s:s, s:i}", "baseline", "01_scalar",
                                                                       "discarded_pairs", 12));
            if (state_of(doc) != RUN_CLOCKS_THROTTLED) fail_msg("%s, flag %d: not throttled", marks[m], flag);
        }
}

/* A resumed run keeps the first process's snapshot before and the last one's after; the
 * flag may have come from a snapshot in between that is no longer in the file. */
static void a_resumed_run_is_believed(void **st)
{
    (void)st;
    json_t *doc = run_with(1, "[]", "[\"sw_power_cap\"]");
    json_object_set_new(doc, "resumed", json_pack("{s:[]}", "segments"));
    assert_int_equal(state_of(doc), RUN_CLOCKS_THROTTLED);
}

/* A segment of a resumed run as the writer keeps it: its process's snapshots' throttle
 * lists (NULL: that snapshot not kept). */
static json_t *segment(const char *before, const char *after)
{
    json_t *seg = json_pack("{s:[i, i]}", "points", 0, 1);
    const char *lists[] = { before, after }, *keys[] = { "clocks_before", "clocks_after" };
    for (size_t i = 0; i < 2; i++) {
        if (!lists[i]) continue;
        json_error_t je;
        json_t *v = json_loads(lists[i], JSON_DECODE_ANY, &je);
        if (!v) fail_msg("%s: %s", lists[i], je.text);
        json_object_set_new(seg, keys[i], json_pack("{s:i, s:o}", "sm_mhz", 1980, "throttle", v));
    }
    return seg;
}

/* The fixture run marked throttled, resumed in two segments with these snapshots. */
static run_clock_state resumed_state(json_t *first, json_t *second)
{
    json_t *doc = run_with(1, "[]", "[]");
    json_object_set_new(doc, "resumed", json_pack("{s:[s], s:[o, o]}", "from", "a.partial.json", "segments",
                                                  first, second));
    return state_of(doc);
}

#define CAP "[\"sw_power_cap\"]"

/* A resumed run whose every segment keeps both its snapshots is read as one process's
 * run is: the cap alone at the cut is the power cap, a thermal reason in any segment is
 * throttled, and segments whose snapshots name nothing leave the flag believed. A
 * segment without its snapshots (runs written before segments kept them) cannot say. */
static void a_resumed_run_reads_its_segments(void **st)
{
    (void)st;
    assert_int_equal(resumed_state(segment("[]", CAP), segment("[]", "[]")), RUN_CLOCKS_POWER_CAP);
    assert_int_equal(resumed_state(segment("[]", "[]"), segment(CAP, "[\"gpu_idle\"]")), RUN_CLOCKS_POWER_CAP);
    assert_int_equal(resumed_state(segment("[]", CAP), segment("[]", "[\"hw_slowdown\"]")), RUN_CLOCKS_THROTTLED);
    assert_int_equal(resumed_state(segment("[\"sw_thermal\"]", "[]"), segment("[]", CAP)), RUN_CLOCKS_THROTTLED);
    assert_int_equal(resumed_state(segment("[]", "[]"), segment("[]", "[]")), RUN_CLOCKS_THROTTLED);
    assert_int_equal(resumed_state(segment("[]", CAP), segment("[]", NULL)), RUN_CLOCKS_THROTTLED);
    assert_int_equal(resumed_state(segment(NULL, CAP), segment("[]", "[]")), RUN_CLOCKS_THROTTLED);
    assert_int_equal(resumed_state(segment("[]", "[\"sw_power_cap\", \"a_newer_reason\"]"), segment("[]", "[]")),
                     RUN_CLOCKS_THROTTLED);
    assert_int_equal(resumed_state(segment("[]", CAP), segment("[]", "4")), RUN_CLOCKS_THROTTLED);
    /* not marked: not throttled, whatever a segment holds */
    json_t *doc = run_with(0, "[]", "[]");
    json_object_set_new(doc, "resumed", json_pack("{s:[o]}", "segments", segment("[\"sw_thermal\"]", "[]")));
    assert_int_equal(state_of(doc), RUN_CLOCKS_NOT_THROTTLED);
}

/* A snapshot's violation counters: power, thermal, board, reliability (nanoseconds). */
static json_t *counters(long long power, long long thermal, long long board, long long reliability)
{
    return json_pack("{s:I, s:I, s:I, s:I}", "power", (json_int_t)power, "thermal", (json_int_t)thermal,
                     "board_limit", (json_int_t)board, "reliability", (json_int_t)reliability);
}

/* doc's snapshot `key` (context's, or a segment's) given counters (taken). */
static void put_counters(json_t *holder, const char *key, json_t *c)
{
    json_t *snap = json_object_get(holder, key);
    if (!json_is_object(snap)) {
        snap = json_pack("{s:i, s:[]}", "sm_mhz", 1980, "throttle");
        json_object_set_new(holder, key, snap);
    }
    json_object_set_new(snap, "violation_ns", c);
}

/* The run read from doc (taken): its state, and the seconds of each limit into s (NAN
 * each when the run has no counters). */
static run_clock_state read_counters(json_t *doc, double s[CLOCK_LIMITS])
{
    char err[1024];
    run_data r;
    if (run_from_doc(&r, doc, FIXTURE, err, sizeof err)) fail_msg("%s", err);
    for (int i = 0; i < CLOCK_LIMITS; i++) s[i] = r.have_violation ? r.violation_s[i] : NAN;
    run_clock_state st = r.clocks;
    run_close(&r);
    json_decref(doc);
    return st;
}

/* The fixture run, marked or not, with snapshots naming nothing, its counters at the start
 * and the end. */
static run_clock_state counted(int throttled, json_t *before, json_t *after, double s[CLOCK_LIMITS])
{
    json_t *doc = run_with(throttled, "[]", "[]");
    json_t *ctx = json_object_get(doc, "context");
    put_counters(ctx, "clocks_before", before);
    put_counters(ctx, "clocks_after", after);
    return read_counters(doc, s);
}

/* NVML's violation counters say how long each limit held the clocks down between the
 * snapshots: a thermal, board or reliability limit makes the run throttled whether it was
 * marked or not; the power cap alone explains a mark the snapshots cannot; counters that
 * went back, or a limit missing or not a count, are not read. A resumed run's seconds are
 * its segments' summed. */
static void violation_counters_say_how_long(void **st)
{
    (void)st;
    double s[CLOCK_LIMITS];
    assert_int_equal(counted(0, counters(10, 20, 30, 40), counters(10, 21, 30, 40), s), RUN_CLOCKS_THROTTLED);
    assert_true(s[CLOCK_LIMIT_THERMAL] == 1e-9);
    assert_int_equal(counted(0, counters(0, 0, 5, 0), counters(0, 0, 6, 0), s), RUN_CLOCKS_THROTTLED);
    assert_int_equal(counted(0, counters(0, 0, 0, 5), counters(0, 0, 0, 6), s), RUN_CLOCKS_THROTTLED);
    assert_int_equal(counted(0, counters(1000000000, 7, 7, 7), counters(3500000000, 7, 7, 7), s),
                     RUN_CLOCKS_NOT_THROTTLED);
    assert_true(s[CLOCK_LIMIT_POWER] == 2.5);
    assert_true(s[CLOCK_LIMIT_THERMAL] == 0 && s[CLOCK_LIMIT_BOARD] == 0 && s[CLOCK_LIMIT_RELIABILITY] == 0);
    assert_int_equal(counted(1, counters(0, 0, 0, 0), counters(4000000000, 0, 0, 0), s), RUN_CLOCKS_POWER_CAP);
    assert_int_equal(counted(1, counters(9, 0, 0, 0), counters(9, 0, 0, 0), s), RUN_CLOCKS_THROTTLED);
    /* not read: back, missing, not a count, negative */
    assert_int_equal(counted(1, counters(5000000000, 0, 0, 0), counters(1000000000, 0, 0, 0), s),
                     RUN_CLOCKS_THROTTLED);
    assert_true(isnan(s[CLOCK_LIMIT_POWER]));
    json_t *missing = counters(4000000000, 0, 0, 0);
    json_object_del(missing, "reliability");
    assert_int_equal(counted(1, counters(0, 0, 0, 0), missing, s), RUN_CLOCKS_THROTTLED);
    assert_true(isnan(s[CLOCK_LIMIT_POWER]));
    json_t *text = counters(4000000000, 0, 0, 0);
    json_object_set_new(text, "power", json_string("4000000000"));
    assert_int_equal(counted(1, counters(0, 0, 0, 0), text, s), RUN_CLOCKS_THROTTLED);
    assert_int_equal(counted(0, counters(0, -5, 0, 0), counters(0, 0, 0, 0), s), RUN_CLOCKS_NOT_THROTTLED);
    assert_true(isnan(s[CLOCK_LIMIT_THERMAL]));

    /* resumed: each segment's growth, summed; the time between processes is not counted */
    json_t *first = segment("[]", "[]"), *second = segment("[]", "[]");
    put_counters(first, "clocks_before", counters(1000000000, 0, 0, 0));
    put_counters(first, "clocks_after", counters(3000000000, 0, 0, 0));
    put_counters(second, "clocks_before", counters(9000000000, 0, 0, 0));
    put_counters(second, "clocks_after", counters(12000000000, 0, 0, 0));
    json_t *doc = run_with(1, "[]", "[]");
    json_object_set_new(doc, "resumed", json_pack("{s:[o, o]}", "segments", first, second));
    assert_int_equal(read_counters(doc, s), RUN_CLOCKS_POWER_CAP);
    assert_true(s[CLOCK_LIMIT_POWER] == 5.0);
    /* one segment without counters: the run has none */
    first = segment("[]", "[]");
    second = segment("[]", "[]");
    put_counters(second, "clocks_before", counters(0, 0, 0, 0));
    put_counters(second, "clocks_after", counters(0, 1, 0, 0));
    doc = run_with(0, "[]", "[]");
    json_object_set_new(doc, "resumed", json_pack("{s:[o, o]}", "segments", first, second));
    assert_int_equal(read_counters(doc, s), RUN_CLOCKS_NOT_THROTTLED);
    assert_true(isnan(s[CLOCK_LIMIT_THERMAL]));
}

/* The fixture run marked throttled, resumed (so its snapshots cannot tell), its per-sample
 * clock watch on or off, every timed result's watch naming `reasons` (JSON), one result's
 * `odd` instead when odd is not NULL. */
static json_t *watched_run(int per_sample, const char *reasons, const char *odd)
{
    json_t *doc = run_with(1, "[]", "[]");
    json_object_set_new(doc, "resumed", json_pack("{s:[]}", "segments"));
    json_object_set_new(json_object_get(doc, "method"), "clock_watch",
                        json_pack("{s:b, s:s}", "per_sample", per_sample, "discard", "thermal"));
    json_t *res = json_object_get(doc, "results"), *x;
    size_t i, timed = 0;
    json_array_foreach(res, i, x) {
        json_t *g = json_object_get(json_object_get(x, "timing"), "graph");
        if (!json_is_object(g)) continue;
        const char *text = odd && timed == 3 ? odd : reasons;
        json_error_t je;
        json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
        if (!v) fail_msg("%s: %s", text, je.text);
        json_object_set_new(g, "clock", json_pack("{s:o, s:i}", "reasons_seen", v, "discarded", 0));
        timed++;
    }
    assert_true(timed > 3);
    return doc;
}

/* A marked run whose snapshots cannot say why (a resumed run written before its segments
 * kept theirs) is at the power cap when the reads after every timed sample saw the cap
 * in some measurements and nothing that holds the clocks down harder; a harder reason in
 * any measurement, a list not read, the cap never seen, or no per-sample watch leave the
 * flag believed. The basis says which reading decided. */
static void sample_reads_explain_a_mark(void **st)
{
    (void)st;
    char err[1024];
    run_data r;
    json_t *doc = watched_run(1, "[]", CAP);
    if (run_from_doc(&r, doc, FIXTURE, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(r.clocks, RUN_CLOCKS_POWER_CAP);
    assert_int_equal(r.cap_basis, RUN_CAP_FROM_SAMPLES);
    assert_int_equal(r.watched_capped, 1);
    assert_true(r.watched > 3);
    run_close(&r);
    json_decref(doc);
    assert_int_equal(state_of(watched_run(1, CAP, "[\"gpu_idle\", \"sw_power_cap\"]")), RUN_CLOCKS_POWER_CAP);
    assert_int_equal(state_of(watched_run(1, CAP, "[\"sw_power_cap\", \"hw_thermal\"]")), RUN_CLOCKS_THROTTLED);
    assert_int_equal(state_of(watched_run(1, CAP, "[\"hw_power_brake\"]")), RUN_CLOCKS_THROTTLED);
    assert_int_equal(state_of(watched_run(1, CAP, "[\"a_newer_reason\"]")), RUN_CLOCKS_THROTTLED);
    assert_int_equal(state_of(watched_run(1, CAP, "\"sw_power_cap\"")), RUN_CLOCKS_THROTTLED);
    assert_int_equal(state_of(watched_run(1, "[]", NULL)), RUN_CLOCKS_THROTTLED);
    assert_int_equal(state_of(watched_run(0, CAP, NULL)), RUN_CLOCKS_THROTTLED);

    /* the other bases: snapshots that name the cap, counters that grew for it */
    doc = run_with(1, "[]", CAP);
    if (run_from_doc(&r, doc, FIXTURE, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(r.clocks, RUN_CLOCKS_POWER_CAP);
    assert_int_equal(r.cap_basis, RUN_CAP_FROM_SNAPSHOTS);
    run_close(&r);
    json_decref(doc);
    doc = run_with(1, "[]", "[]");
    put_counters(json_object_get(doc, "context"), "clocks_before", counters(0, 0, 0, 0));
    put_counters(json_object_get(doc, "context"), "clocks_after", counters(1, 0, 0, 0));
    if (run_from_doc(&r, doc, FIXTURE, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(r.clocks, RUN_CLOCKS_POWER_CAP);
    assert_int_equal(r.cap_basis, RUN_CAP_FROM_COUNTERS);
    run_close(&r);
    json_decref(doc);
}

/* The committed runs that raised this: the H100 reference run and an H200 study run,
 * marked throttled for sw_power_cap at their end, no result throttled; the H200 reference
 * run, resumed, marked throttled by a snapshot it no longer keeps, at the power cap by its
 * per-sample reads; an older H100 run and an H200 session held out of an accepted set, not
 * marked. The watch's counts are the file's, counted outside the harness (every timing
 * mode's and rotation's clock with a reasons_seen list; those naming sw_power_cap). */
static void committed_runs(void **st)
{
    (void)st;
    static const struct {
        const char *path;
        int flag;
        run_clock_state want;
        run_cap_basis basis;
        size_t watched, capped;
    } runs[] = {
        { H100_REF, 1, RUN_CLOCKS_POWER_CAP, RUN_CAP_FROM_SNAPSHOTS, 1318, 636 },
        /* an H200 study run of one segment (q_ahead's paired_long, build e86bed9:
         * GPU-ed6c9979) flagged sw_power_cap at its end (1695 MHz, 690 W; nothing at its
         * start, 1980 MHz), no row throttled */
        { H200_CAPPED, 1, RUN_CLOCKS_POWER_CAP, RUN_CAP_FROM_SNAPSHOTS, 0, 0 },
        /* the accepted set's reference run (build fe23a4b, 192149Z), cut by a call's limit
         * and resumed on the same GPU-d76d0606, flagged, though the snapshots it keeps name
         * no reason (1980 MHz at its start and at its end, 617 W) and its segments keep none
         * (written before they did): the reads after every sample named sw_power_cap in
         * 1499 of its 2893 watched measurements and no other reason */
        { H200_REF, 1, RUN_CLOCKS_POWER_CAP, RUN_CAP_FROM_SAMPLES, 2893, 1499 },
        /* a session held out of an earlier set (the study's copy, cut to four
         * implementations: GPU-b723ead0), no flag at its start or end (1980 MHz both, 628 W
         * at its end), so kept when the accepted set changes. The reference of build
         * 727334b had rows throttled at 1x1x16384x128: a_throttled_result_is_throttled
         * keeps that case */
        { H200_UNMARKED, 0, RUN_CLOCKS_NOT_THROTTLED, RUN_CAP_FROM_SNAPSHOTS, 0, 0 },
        { H100_UNMARKED, 0, RUN_CLOCKS_NOT_THROTTLED, RUN_CAP_FROM_SNAPSHOTS, 0, 0 },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char err[1024];
        run_data r;
        if (run_open(&r, runs[i].path, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(r.throttled, runs[i].flag);
        if (r.clocks != runs[i].want) fail_msg("%s: state %d, expected %d", runs[i].path, (int)r.clocks,
                                               (int)runs[i].want);
        if (runs[i].want == RUN_CLOCKS_POWER_CAP) assert_int_equal(r.cap_basis, runs[i].basis);
        if (runs[i].watched) {
            assert_int_equal(r.watched, runs[i].watched);
            assert_int_equal(r.watched_capped, runs[i].capped);
            assert_int_equal(r.sample_reasons, NVML_REASON_SW_POWER_CAP);
        }
        run_close(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_power_cap_alone_is_the_power_cap),
        cmocka_unit_test(a_thermal_reason_is_throttled),
        cmocka_unit_test(snapshots_that_cannot_tell_are_throttled),
        cmocka_unit_test(unmarked_is_not_throttled),
        cmocka_unit_test(a_throttled_result_is_throttled),
        cmocka_unit_test(a_resumed_run_is_believed),
        cmocka_unit_test(a_resumed_run_reads_its_segments),
        cmocka_unit_test(violation_counters_say_how_long),
        cmocka_unit_test(sample_reads_explain_a_mark),
        cmocka_unit_test(committed_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
