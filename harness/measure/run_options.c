/* measure/run_options.c: parsing the options of `attnladder run`. */
#include "measure/run_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/args.h"
#include "core/names.h"


const char RUN_USAGE[] =
    "usage: attnladder run [options]\n"
    "  --impl NAME[,NAME]    implementations to measure (default: all found)\n"
    "  --shape B,H,S,D[,causal] | B,H,Sq,Skv,D,causal   (repeatable)\n"
    "  --headline            the headline shapes (default when no --shape/--sweep)\n"
    "  --sweep               the headline shapes and the standard sweep\n"
    "  --ragged              the headline shapes and the sweep's ragged points only\n"
    "  --modes LIST          modes at headline shapes (graph,single,cold; default all)\n"
    "  --sweep-modes LIST    modes at other shapes (default graph)\n"
    "  --min-samples N --max-samples N --max-seconds S --rel-ci X --inner N --seed N\n"
    "  --min-gpu-seconds S   GPU time a measurement takes before the noise rule may stop it (0.25)\n"
    "  --discard WHICH       samples discarded for the clock-event reasons NVML reports after\n"
    "                        them: thermal (hw slowdown, thermal, power brake; default), power\n"
    "                        (those and the software power cap), none\n"
    "  --discard-limit F     a measurement that discards more than F of its samples stops,\n"
    "                        marked throttled, which the gate refuses (0.25)\n"
    "  --baseline NAME       the ratio's denominator (default sdpa_cudnn)\n"
    "  --external FILE       import external baselines (ci/tools/torch_sdpa.py output)\n"
    "  --build DIR           where the shared objects are (default build)\n"
    "  --device N            the CUDA device to measure (default 0; of those CUDA_VISIBLE_DEVICES shows)\n"
    "  --evidence DIR        evidence root (default evidence); --out FILE overrides\n"
    "  --no-ceilings         skip the copy/GEMM ceilings\n"
    "  --independent         ratios from each implementation's own measurement, one after\n"
    "                        another (method \"independent\"); by default every point's\n"
    "                        implementations are timed again in rotation and each ratio is\n"
    "                        the median of per-round quotients (method \"paired\"; --paired\n"
    "                        names that default)\n"
    "  --full-ref-gflop X    without the GPU reference: the CPU reference's every row up to\n"
    "                        X GFLOP, sampled rows above (default 40)\n"
    "  --cpu-check-gflop X   with it: the CPU rows that check the GPU reference, every row up\n"
    "                        to X GFLOP, sampled rows above (default 4)\n"
    "  --no-gpu-ref          the CPU reference alone (sampled rows plus the baseline's output\n"
    "                        on large shapes), as before the GPU reference existed\n"
    "  --sample-rows N       rows sampled above that (default 4096: whole heads, a row in every 64-row tile)\n"
    "  --ref-threads N       CPU reference threads (default: all CPUs)\n"
    "  --resume FILE         continue the interrupted run FILE (*.partial.json) on the same GPU\n"
    "                        model and build, with its options: the points it completed are\n"
    "                        kept, the rest measured, one complete run written\n";

/* The whole text is read (no fixed buffer that would drop a bad mode past its end). */
static int parse_modes(const char *opt, const char *text, int *modes)
{
    if (arg_list("run", opt, text, "graph, single, cold")) return -1;
    memset(modes, 0, MODE_COUNT * sizeof *modes);
    char *buf = strdup(text), *save = NULL;
    int rc = buf ? 0 : -1;
    for (char *tok = buf ? strtok_r(buf, ",", &save) : NULL; tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        int m = time_mode_parse(tok);
        if (m < 0) {
            fprintf(stderr, "attnladder run: unknown mode '%s'; accepted: graph, single, cold\n", tok);
            rc = -1;
        } else {
            modes[m] = 1;
        }
    }
    free(buf);
    return rc;
}

static int add_point(run_opts *o, const shape_point *pt)
{
    if (o->n_shapes == MAX_SHAPES) {
        fprintf(stderr, "attnladder run: more than %d shapes\n", MAX_SHAPES);
        return -1;
    }
    o->shapes[o->n_shapes++] = *pt;
    return 0;
}

static int add_shape(run_opts *o, const attn_shape *s, const char *tag)
{
    shape_point pt = { *s, tag, 0 };
    return add_point(o, &pt);
}

static void run_opts_defaults(run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->build_dir = "build";
    o->evidence_dir = "evidence";
    o->baseline = "sdpa_cudnn";
    o->ceilings = 1;
    o->paired = 1;
    o->modes[MODE_GRAPH] = o->modes[MODE_SINGLE] = o->modes[MODE_COLD] = 1;
    o->sweep_modes[MODE_GRAPH] = 1;
    o->tc = (time_config){ .rule = { 10, 200, 1.0, 0.02 }, .resamples = 2000, .ci_level = 0.95,
                           .seed = 20261122, .inner_max = 20, .graph_target_us = 2000.0,
                           .min_gpu_s = 0.25, .clock = { .discard_limit = 0.25 } };
    clock_discard_parse("thermal", &o->tc.clock.discard_mask);
    o->seed = 1234;
    o->full_ref_gflop = 40;
    o->cpu_check_gflop = 4;
    o->sample_rows = 4096;
    o->oracle_threads = 0;
}

/* Each group of options below takes argv[*i] when it is one of its own: 1 taken (with
 * its value, *i moved past it), 0 not one of the group's, -1 refused (said). */
#define VALUE() do { if (!(v = arg_value("run", argc, argv, i))) return -1; } while (0)

/* What is measured: implementations and shapes. */
static int opt_selection(run_opts *o, int argc, char **argv, int *i, int *custom)
{
    const char *a = argv[*i], *v = NULL;
    if (!strcmp(a, "--impl")) {
        VALUE();
        if (arg_list("run", a, v, "implementation names (see `attnladder list`)")) return -1;
        char *copy = strdup(v);
        char *save = NULL;
        for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
            if (o->n_names == MAX_NAMES) {
                fprintf(stderr, "attnladder run: more than %d implementations named\n", MAX_NAMES);
                free(copy);
                return -1;
            }
            o->names[o->n_names++] = strdup(t);
        }
        free(copy);
    } else if (!strcmp(a, "--shape")) {
        VALUE();
        attn_shape s;
        if (arg_shape("run", a, v, &s)) return -1;
        if (add_shape(o, &s, "custom")) return -1;
        *custom = 1;
    } else if (!strcmp(a, "--headline")) {
        o->want_headline = 1;
    } else if (!strcmp(a, "--sweep")) {
        o->want_sweep = 1;
    } else if (!strcmp(a, "--ragged")) {
        o->want_ragged = 1;
    } else {
        return 0;
    }
    return 1;
}

/* How it is timed: modes, the stop rule, the clock discards, the inner count, the seed. */
static int opt_sampling(run_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = NULL;
    long l;
    double d;
    if (!strcmp(a, "--modes") || !strcmp(a, "--sweep-modes")) {
        VALUE();
        if (parse_modes(a, v, !strcmp(a, "--modes") ? o->modes : o->sweep_modes)) return -1;
    } else if (!strcmp(a, "--min-samples") || !strcmp(a, "--max-samples")) {
        VALUE();
        if (arg_long("run", a, v, 1, 100000, &l)) return -1;
        *(!strcmp(a, "--min-samples") ? &o->tc.rule.min_samples : &o->tc.rule.max_samples) = (size_t)l;
    } else if (!strcmp(a, "--max-seconds")) {
        VALUE();
        if (arg_double("run", a, v, 0.001, 3600, &d)) return -1;
        o->tc.rule.max_seconds = d;
    } else if (!strcmp(a, "--min-gpu-seconds")) {
        VALUE();
        if (arg_double("run", a, v, 0, 60, &d)) return -1;
        o->tc.min_gpu_s = d;
    } else if (!strcmp(a, "--discard")) {
        VALUE();
        if (clock_discard_parse(v, &o->tc.clock.discard_mask)) {
            fprintf(stderr, "attnladder run: --discard: '%s' is not one of thermal, power, none\n", v);
            return -1;
        }
    } else if (!strcmp(a, "--discard-limit") || !strcmp(a, "--rel-ci")) {
        VALUE();
        if (arg_double("run", a, v, 0, 1, &d)) return -1;
        *(!strcmp(a, "--rel-ci") ? &o->tc.rule.rel_ci_target : &o->tc.clock.discard_limit) = d;
    } else if (!strcmp(a, "--inner")) {
        VALUE();
        if (arg_long("run", a, v, 1, 10000, &l)) return -1;
        o->tc.inner_max = (int)l;
    } else if (!strcmp(a, "--seed")) {
        VALUE();
        if (arg_long("run", a, v, 0, 0x7fffffffL, &l)) return -1;
        o->seed = (uint64_t)l;
    } else {
        return 0;
    }
    return 1;
}

/* Where things are: the baseline's name, the builds, the device, the files. */
static int opt_places(run_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = NULL;
    long l;
    if (!strcmp(a, "--baseline")) {
        VALUE();
        /* it becomes method.baseline, a name the evidence readers hold to names.h's rule */
        if (!name_is_safe(v)) {
            fprintf(stderr, "attnladder run: --baseline '%s' is not an implementation name "
                    "(letters, digits, '-', '_', '.')\n", v);
            return -1;
        }
        o->baseline = v;
    } else if (!strcmp(a, "--device")) {
        VALUE();
        if (arg_long("run", a, v, 0, 1023, &l)) return -1;   /* the count is checked on the GPU */
        o->device = (int)l;
    } else {
        static const char *const names[] = { "--external", "--build", "--evidence", "--out", "--resume" };
        const char **dst[] = { &o->external, &o->build_dir, &o->evidence_dir, &o->out_path, &o->resume };
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (!strcmp(a, names[k])) {
                VALUE();
                *dst[k] = v;
                return 1;
            }
        return 0;
    }
    return 1;
}

/* The ceilings, the ratio's design and the reference's settings. */
static int opt_reference(run_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = NULL;
    long l;
    double d;
    if (!strcmp(a, "--no-ceilings")) {
        o->ceilings = 0;
    } else if (!strcmp(a, "--paired") || !strcmp(a, "--independent")) {
        o->paired = !strcmp(a, "--paired");
    } else if (!strcmp(a, "--full-ref-gflop") || !strcmp(a, "--cpu-check-gflop")) {
        VALUE();
        if (arg_double("run", a, v, 0, 1e6, &d)) return -1;
        *(!strcmp(a, "--full-ref-gflop") ? &o->full_ref_gflop : &o->cpu_check_gflop) = d;
    } else if (!strcmp(a, "--no-gpu-ref")) {
        o->no_gpu_ref = 1;
    } else if (!strcmp(a, "--sample-rows")) {
        VALUE();
        if (arg_long("run", a, v, 1, 1 << 20, &l)) return -1;
        o->sample_rows = l;
    } else if (!strcmp(a, "--ref-threads")) {
        VALUE();
        if (arg_long("run", a, v, 0, 4096, &l)) return -1;
        o->oracle_threads = l;
    } else {
        return 0;
    }
    return 1;
}
#undef VALUE

/* The options that say where, not what or how: a resumed run may be given these alone. */
static int is_place(const char *a)
{
    static const char *const where[] = { "--resume", "--build", "--evidence", "--out", "--device",
                                         "--external", NULL };
    for (const char *const *w = where; *w; w++)
        if (!strcmp(a, *w)) return 1;
    return 0;
}

/* The headline points unless only custom shapes were named; the sweep's or its ragged
 * points when asked. 0, or -1 (said). */
static int add_standard_points(run_opts *o, int custom)
{
    shape_point pts[MAX_SHAPES];
    if (o->want_headline || o->want_sweep || o->want_ragged || !custom) {
        size_t n = shapes_headline(pts, MAX_SHAPES);
        for (size_t i = 0; i < n; i++)
            if (add_point(o, &pts[i])) return -1;
    }
    if (o->want_sweep || o->want_ragged) {
        size_t n = shapes_sweep(pts, MAX_SHAPES);
        for (size_t i = 0; i < n; i++)
            if ((o->want_sweep || strcmp(pts[i].tag, "ragged") == 0) && add_point(o, &pts[i])) return -1;
    }
    return 0;
}

int parse_run_opts(int argc, char **argv, run_opts *o)
{
    run_opts_defaults(o);
    int custom = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(RUN_USAGE, stdout);
            return 1;
        }
        int got = opt_selection(o, argc, argv, &i, &custom);
        if (!got) got = opt_sampling(o, argc, argv, &i);
        if (!got) got = opt_places(o, argc, argv, &i);
        if (!got) got = opt_reference(o, argc, argv, &i);
        if (got < 0) return -1;
        if (!got) {
            fprintf(stderr, "attnladder run: unknown option '%s'\n%s", a, RUN_USAGE);
            return -1;
        }
        o->n_measuring += !is_place(a);
    }
    if (o->tc.rule.min_samples > o->tc.rule.max_samples) {
        fprintf(stderr, "attnladder run: --min-samples %zu exceeds --max-samples %zu\n",
                o->tc.rule.min_samples, o->tc.rule.max_samples);
        return -1;
    }
    return add_standard_points(o, custom);
}

void run_opts_free(run_opts *o)
{
    for (size_t i = 0; i < o->n_names; i++) free((char *)o->names[i]);
    o->n_names = 0;
}
