/* test_resume.c: `run --resume`'s rules on the CPU: which options make another run, the
 * refusals (a complete file, another GPU model, another or a dirty build, other
 * implementations, no progress), which rows of a partial run are kept, and how the
 * segments and the cost of the processes add up. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "measure/resume.h"
#include "measure/run_options.h"

static run_opts A, B;   /* large: off the stack */

static int parse(run_opts *o, const char *line)
{
    static char buf[8][512];
    static int which;
    char *text = buf[which++ % 8];
    snprintf(text, 512, "run %s", line);
    char *argv[64];
    int argc = 0;
    for (char *t = strtok(text, " "); t && argc < 63; t = strtok(NULL, " ")) argv[argc++] = t;
    argv[argc] = NULL;
    run_opts_free(o);
    return parse_run_opts(argc, argv, o);
}

static void identity_names_what_changes_the_run(void **st)
{
    (void)st;
    char why[512];
    assert_int_equal(parse(&A, "--sweep --build a --evidence e --device 1"), 0);
    assert_int_equal(parse(&B, "--sweep --build b --out x.json --external t.json"), 0);
    assert_int_equal(A.n_measuring, 1);
    assert_int_equal(B.n_measuring, 1);
    json_t *a = resume_identity(&A), *b = resume_identity(&B);
    assert_int_equal(resume_options_differ(a, b, why, sizeof why), 0);
    json_decref(b);
    assert_int_equal(parse(&B, "--sweep --seed 5"), 0);
    b = resume_identity(&B);
    assert_int_equal(resume_options_differ(a, b, why, sizeof why), -1);
    assert_non_null(strstr(why, "'seed'"));
    json_decref(b);
    assert_int_equal(parse(&B, "--headline"), 0);   /* fewer points */
    b = resume_identity(&B);
    assert_int_equal(resume_options_differ(a, b, why, sizeof why), -1);
    assert_non_null(strstr(why, "'shapes'"));
    json_decref(b);
    assert_int_equal(parse(&B, "--sweep --min-gpu-seconds 0.1"), 0);
    b = resume_identity(&B);
    assert_int_equal(resume_options_differ(a, b, why, sizeof why), -1);
    assert_non_null(strstr(why, "min_gpu_seconds"));
    json_decref(a);
    json_decref(b);
    assert_int_equal(parse(&B, "--resume p.partial.json --build b"), 0);
    assert_int_equal(B.n_measuring, 0);
    assert_string_equal(B.resume, "p.partial.json");
}

static json_t *partial_doc(void)
{
    return json_pack("{s:b, s:s, s:{s:{s:s, s:s, s:i}, s:{s:s, s:b}, s:s},"
                     " s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}],"
                     " s:{s:i, s:i}, s:{s:f, s:f, s:i, s:{s:f}, s:[]}}",
                     "partial", 1, "created_utc", "2026-11-25T10:00:00Z",
                     "context", "gpu", "name", "NVIDIA H100 80GB HBM3", "uuid", "GPU-1", "index", 0,
                     "git", "commit", "abc1234def", "dirty", 0, "host", "box1",
                     "implementations", "name", "sdpa_cudnn", "kind", "baseline", "name", "01_scalar", "kind",
                     "phase", "name", "launch_floor", "kind", "floor", "name", "torch_flash", "kind", "external",
                     "progress", "points", 3, "done", 1,
                     "cost", "wall_s", 100.0, "gpu_timed_s", 10.0, "measurements", 7, "steps_s", "inputs", 1.0,
                     "points");
}

/* A clock snapshot as the context holds one (the throttle list is what the report reads). */
static json_t *snapshot(int mhz, const char *reason)
{
    return json_pack("{s:i, s:[s*]}", "sm_mhz", mhz, "throttle", reason);
}

/* Each segment keeps its process's clock snapshots, the first (built from the partial
 * file) the one taken where that process was cut; the run's context keeps the first
 * process's snapshot before and the last one's after, and is marked throttled when either
 * process was. Without the segments' snapshots a resumed run could not say what marked it. */
static void segments_keep_their_clocks(void **st)
{
    (void)st;
    json_t *p = partial_doc();
    json_t *pctx = json_object_get(p, "context");
    json_object_set_new(pctx, "clocks_before", snapshot(1980, NULL));
    json_object_set_new(pctx, "clocks_after", snapshot(1755, "sw_power_cap"));
    json_object_set_new(pctx, "throttled", json_true());
    json_t *own = json_pack("{s:{s:s}, s:s, s:o, s:o, s:b}", "gpu", "uuid", "GPU-2", "host", "box2",
                            "clocks_before", snapshot(1965, NULL), "clocks_after", snapshot(1980, NULL),
                            "throttled", 0);
    json_t *now = json_pack("{s:f}", "wall_s", 50.0);
    resume_join(p, "a.partial.json", 1, resume_segment("2026-11-25T11:00:00Z", own, 1, 3, now, 0), own);
    json_t *segs = json_object_get(json_object_get(p, "resumed"), "segments");
    assert_int_equal(json_array_size(segs), 2);
    json_t *s0 = json_array_get(segs, 0), *s1 = json_array_get(segs, 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(s0, "clocks_before"), "sm_mhz")), 1980);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(s0, "clocks_after"), "sm_mhz")), 1755);
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(s0, "clocks_after"),
                                                                         "throttle"), 0)), "sw_power_cap");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(s1, "clocks_before"), "sm_mhz")), 1965);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(s1, "clocks_after"), "sm_mhz")), 1980);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(pctx, "clocks_before"), "sm_mhz")), 1980);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(pctx, "clocks_after"), "sm_mhz")), 1980);
    assert_true(json_is_true(json_object_get(pctx, "throttled")));
    assert_int_equal(json_array_size(json_object_get(json_object_get(p, "resumed"), "from")), 1);

    /* a process marked throttled marks the run, though the first was not */
    json_t *q = partial_doc();
    json_object_set_new(json_object_get(q, "context"), "throttled", json_false());
    json_object_set_new(own, "throttled", json_true());
    resume_join(q, "b.partial.json", 1, resume_segment("2026-11-25T11:00:00Z", own, 1, 3, now, 0), own);
    assert_true(json_is_true(json_object_get(json_object_get(q, "context"), "throttled")));
    /* a context without snapshots leaves the segment without them: the reader tells
     * "not kept" from "kept and empty" */
    s0 = json_array_get(json_object_get(json_object_get(q, "resumed"), "segments"), 0);
    assert_null(json_object_get(s0, "clocks_before"));
    assert_null(json_object_get(s0, "clocks_after"));
    json_decref(q);
    json_decref(now);
    json_decref(own);
    json_decref(p);
}

static void refusals(void **st)
{
    (void)st;
    char why[1024];
    json_t *p = partial_doc();
    json_t *gpu = json_pack("{s:s}", "name", "NVIDIA H100 80GB HBM3");
    json_t *git = json_pack("{s:s, s:b}", "commit", "abc1234def", "dirty", 0);
    json_t *impls = json_pack("[s, s, s]", "sdpa_cudnn", "01_scalar", "launch_floor");
    assert_int_equal(resume_refuse(p, gpu, git, impls, why, sizeof why), 0);

    json_t *other = json_pack("{s:s}", "name", "NVIDIA H200");
    assert_int_equal(resume_refuse(p, other, git, impls, why, sizeof why), -1);
    assert_non_null(strstr(why, "NVIDIA H100 80GB HBM3"));
    assert_non_null(strstr(why, "NVIDIA H200"));
    json_decref(other);

    json_t *git2 = json_pack("{s:s, s:b}", "commit", "fff1234def", "dirty", 0);
    assert_int_equal(resume_refuse(p, gpu, git2, impls, why, sizeof why), -1);
    assert_non_null(strstr(why, "build"));
    json_decref(git2);
    json_t *dirty = json_pack("{s:s, s:b}", "commit", "abc1234def", "dirty", 1);
    assert_int_equal(resume_refuse(p, gpu, dirty, impls, why, sizeof why), -1);
    assert_non_null(strstr(why, "dirty"));
    /* a dirty build is not continued even from a run of the same dirty build: the
     * uncommitted source may have changed between the two */
    json_t *git_then = json_object_get(json_object_get(p, "context"), "git");
    json_object_set_new(git_then, "dirty", json_true());
    assert_int_equal(resume_refuse(p, gpu, dirty, impls, why, sizeof why), -1);
    assert_non_null(strstr(why, "same clean build"));
    json_object_set_new(git_then, "dirty", json_false());
    json_decref(dirty);

    json_t *fewer = json_pack("[s, s]", "sdpa_cudnn", "launch_floor");
    assert_int_equal(resume_refuse(p, gpu, git, fewer, why, sizeof why), -1);
    assert_non_null(strstr(why, "implementations"));
    json_decref(fewer);

    json_object_set_new(p, "partial", json_false());
    assert_int_equal(resume_refuse(p, gpu, git, impls, why, sizeof why), -1);
    assert_non_null(strstr(why, "complete run"));

    json_object_set_new(p, "partial", json_true());
    assert_int_equal(resume_points_done(p, 3, why, sizeof why), 1);
    assert_int_equal(resume_points_done(p, 4, why, sizeof why), -1);
    json_object_set_new(json_object_get(p, "progress"), "done", json_integer(5));
    assert_int_equal(resume_points_done(p, 3, why, sizeof why), -1);
    json_object_del(p, "progress");
    assert_int_equal(resume_points_done(p, 3, why, sizeof why), -1);
    assert_non_null(strstr(why, "progress"));
    json_decref(p);
    json_decref(gpu);
    json_decref(git);
    json_decref(impls);
}

static json_t *row(const char *impl, int seq, const char *tag)
{
    return json_pack("{s:s, s:{s:i, s:i, s:i, s:i, s:i, s:i}, s:s}", "impl", impl, "shape", "batch", 1,
                     "heads", 8, "seq_q", seq, "seq_kv", seq, "head_dim", 64, "causal", 0, "tag", tag);
}

static void keeps_the_completed_points_only(void **st)
{
    (void)st;
    shape_point pts[3] = {
        { { 1, 8, 512, 512, 64, 0, 0.125f }, "headline", 0 },
        { { 1, 8, 1024, 1024, 64, 0, 0.125f }, "sweep", 0 },
        { { 1, 8, 2048, 2048, 64, 0, 0.125f }, "sweep", 0 },
    };
    json_t *doc = json_pack("{s:[o, o, o, o, o], s:[o, o], s:[o], s:{s:[o, o]}}",
                            "results", row("a", 512, "headline"), row("b", 512, "headline"),
                            row("a", 1024, "sweep"), row("a", 512, "sweep"), row("b", 1024, "sweep"),
                            "input_checks", row("a", 512, "headline"), row("a", 1024, "sweep"),
                            "reference_checks", row("", 1024, "sweep"),
                            "cost", "points", row("", 512, "headline"), row("", 1024, "sweep"));
    resume_keep(doc, pts, 1);
    json_t *r = json_object_get(doc, "results");
    assert_int_equal(json_array_size(r), 2);   /* the headline point's two rows; 512 "sweep" is no point */
    assert_string_equal(json_string_value(json_object_get(json_array_get(r, 1), "impl")), "b");
    assert_int_equal(json_array_size(json_object_get(doc, "input_checks")), 1);
    assert_int_equal(json_array_size(json_object_get(doc, "reference_checks")), 0);
    assert_int_equal(json_array_size(json_object_get(json_object_get(doc, "cost"), "points")), 1);
    json_decref(doc);
}

static void segments_and_cost_add_up(void **st)
{
    (void)st;
    json_t *p = partial_doc();
    json_t *ctx = json_pack("{s:{s:s, s:s, s:i}, s:s}", "gpu", "name", "NVIDIA H100 80GB HBM3", "uuid", "GPU-2",
                            "index", 3, "host", "box2");
    json_t *now = json_pack("{s:f, s:f, s:i, s:{s:f}, s:[{s:i}]}", "wall_s", 50.0, "gpu_timed_s", 5.0,
                            "measurements", 4, "steps_s", "inputs", 0.5, "points", "x", 1);
    json_t *seg = resume_segment("2026-11-25T11:00:00Z", ctx, 1, 3, now, 0);
    json_t *doc = json_object();
    resume_add_segment(doc, p, "a.partial.json", 1, seg);
    json_t *segs = json_object_get(json_object_get(doc, "resumed"), "segments");
    assert_int_equal(json_array_size(segs), 2);
    json_t *s0 = json_array_get(segs, 0), *s1 = json_array_get(segs, 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(s0, "gpu"), "uuid")), "GPU-1");
    assert_string_equal(json_string_value(json_object_get(s0, "host")), "box1");
    assert_true(json_is_true(json_object_get(s0, "partial")));
    assert_int_equal(json_integer_value(json_array_get(json_object_get(s0, "points"), 1)), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(s1, "gpu"), "uuid")), "GPU-2");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(s1, "gpu"), "index")), 3);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(s1, "points"), 1)), 3);
    assert_true(json_is_false(json_object_get(s1, "partial")));

    /* a second interruption and resume: the segments go on, the files too */
    json_object_set(p, "resumed", json_object_get(doc, "resumed"));
    json_t *seg2 = resume_segment("2026-11-25T12:00:00Z", ctx, 2, 3, now, 0);
    json_t *doc2 = json_object();
    resume_add_segment(doc2, p, "a.partial.json", 2, seg2);
    segs = json_object_get(json_object_get(doc2, "resumed"), "segments");
    assert_int_equal(json_array_size(segs), 3);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(json_array_get(segs, 1), "points"), 1)), 2);
    assert_int_equal(json_array_size(json_object_get(json_object_get(doc2, "resumed"), "from")), 2);

    json_t *cost = resume_merge_cost(json_object_get(p, "cost"), now);
    assert_true(json_number_value(json_object_get(cost, "wall_s")) == 150.0);
    assert_true(json_number_value(json_object_get(cost, "gpu_timed_s")) == 15.0);
    assert_int_equal(json_integer_value(json_object_get(cost, "measurements")), 11);
    assert_true(json_number_value(json_object_get(json_object_get(cost, "steps_s"), "inputs")) == 1.5);
    assert_int_equal(json_array_size(json_object_get(cost, "points")), 1);
    json_decref(cost);
    json_decref(doc);
    json_decref(doc2);
    json_decref(ctx);
    json_decref(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identity_names_what_changes_the_run),
        cmocka_unit_test(refusals),
        cmocka_unit_test(keeps_the_completed_points_only),
        cmocka_unit_test(segments_and_cost_add_up),
        cmocka_unit_test(segments_keep_their_clocks),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    run_opts_free(&A);
    run_opts_free(&B);
    return rc;
}
