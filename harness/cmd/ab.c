/* ab.c: `attnladder ab`: the A/B regression gate. Every implementation that both builds
 * have (the pull request's base and head), loaded into this one process, checked on the
 * same inputs and then timed in alternation (measure/interleave.h); the change of each
 * is the median paired quotient head/base with its bootstrap CI, decided by gate/ab_rule.h.
 * Which build is loaded first is drawn from the seed (an instance loaded second can run
 * faster, whatever file it is), and recorded. By default each phase is also timed at one
 * shape of every code path it takes on the standard sweep (gate/code_paths.h: the paths
 * are read from each build's own init notes), and a rung the head changed (its binary or
 * its sources differ: gate/rung_change.h) at every point of the standard sweep, since one
 * shape per path cannot see a change to the rule that picks the path; and at one rule
 * probe (core/shapes.h) for each way a rule moved between the sweep's points. `--judge FILE`
 * decides a recorded comparison again with this binary's rule, without a GPU
 * (gate/ab_judge.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "attn_oracle.h"
#include "cmd/commands.h"
#include "core/args.h"
#include "core/files.h"
#include "core/rng.h"
#include "core/shapes.h"
#include "core/stats.h"
#include "evidence/evidence_file.h"
#include "evidence/writer.h"
#include "gate/ab_rule.h"
#include "gate/ab_judge.h"
#include "gate/code_paths.h"
#include "gate/rung_change.h"
#include "measure/correctness.h"
#include "measure/cuda_check.h"
#include "measure/device_info.h"
#include "measure/inputs.h"
#include "measure/interleave.h"
#include "measure/loader.h"
#include "measure/timing.h"

#define AB_MAX_SHAPES 16
#define AB_MAX_SWEEP 128
#define AB_MAX_PROBES 1024   /* the rule probes a phase is initialised at */
#define AB_MAX_EXTRA 192     /* a phase's added shapes: paths, moved, probes, its sweep */

typedef struct {
    const char *base_dir, *head_dir, *out, *names, *order, *judge;
    attn_shape shapes[AB_MAX_SHAPES];
    size_t n_shapes;
    int paths;          /* time one shape of every code path too (the default set only) */
    int sweep;          /* and every sweep point of a changed rung (the default set only) */
    const char *sweep_off; /* the option that left the sweep out, for the changed rungs' lines */
    int list_paths;     /* print the paths and the shapes chosen; time nothing */
    double tolerance, baseline_tolerance;
    uint64_t seed;
    interleave_config ic;
} ab_opts;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: attnladder ab --base DIR --head DIR [--impl A,B] [--shape S]... [--headline-only] [--no-paths] [--no-sweep]\n"
        "                     [--tolerance X] [--baseline-tolerance X] [--min-samples N] [--max-samples N]\n"
        "                     [--min-gpu-seconds S] [--seed N] [--order random|base-first|head-first]\n"
        "                     [--discard thermal|power|none]\n"
        "                     [--out FILE]\n"
        "       attnladder ab --base DIR --head DIR --list-paths [--impl A,B]\n"
        "       attnladder ab --judge AB.json [--out FILE]\n"
        "  every implementation both build directories have (phases and baselines), at the\n"
        "  headline shapes and 4x16x4096x128 (non-causal, causal) unless --shape, and each\n"
        "  phase at one shape of every code path it takes on the standard sweep (its init\n"
        "  note names the path, and every sweep shape where the builds' notes differ in full;\n"
        "  --no-paths: not), and a phase whose binary or sources differ\n"
        "  between the builds (BUILD/phases/NAME.so.sha256, NAME.sources.sha256) at every\n"
        "  point of the standard sweep (--no-sweep: not): checked on the same inputs, timed in\n"
        "  alternation, the change = median(head_i / base_i)\n"
        "  --list-paths     which phases changed, the paths of each phase and the shape that\n"
        "                   times each, the sweep points a changed one adds; nothing timed\n"
        "  --judge AB.json  decide a recorded comparison again with this binary's rule (no GPU)\n"
        "  --tolerance X    regressed when the change's 95%% CI lies above 1 + X (default 0.01)\n"
        "  --baseline-tolerance X   the same for baselines (vendor code; default 0.03)\n"
        "exit status: 0 nothing regressed, 1 a regression or a failed check, 2 bad input, 3 no GPU\n");
}

/* Longer than a harness function should be, on purpose: one branch per option, in the
 * order usage() lists them, so that an option is checked against its line of the usage
 * text in one place. */
static int parse(int argc, char **argv, ab_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tolerance = 0.01;
    /* cuDNN's engine runs up to ~2.3% faster in the instance loaded second of two copies,
     * whatever file it is (measured A/A, evidence/<gpu>/studies/ab/): below 3% the
     * baseline's verdict would be the load order's */
    o->baseline_tolerance = 0.03;
    o->seed = (uint64_t)time(NULL);
    o->order = "random";
    o->paths = 1;
    o->sweep = 1;
    o->ic = (interleave_config){ .min_samples = 30, .max_samples = 2000, .min_gpu_s = 0.25,
                                 .max_seconds = 3.0, .inner_max = 20, .graph_target_us = 2000.0,
                                 .warmup = 5, .clock = { .discard_limit = 0.25 } };
    clock_discard_parse("thermal", &o->ic.clock.discard_mask);
    int headline_only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        long l;
        double d;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--headline-only")) {
            headline_only = 1;
            o->sweep_off = a;
            continue;
        }
        if (!strcmp(a, "--no-sweep")) {
            o->sweep = 0;
            o->sweep_off = a;
            continue;
        }
        if (!strcmp(a, "--no-paths") || !strcmp(a, "--list-paths")) {
            if (a[2] == 'n') {
                o->paths = 0;
                o->sweep_off = a;
            } else {
                o->list_paths = 1;
            }
            continue;
        }
        static const char *const with_value[] = { "--base", "--head", "--out", "--impl", "--judge", "--discard",
            "--order", "--shape", "--tolerance", "--baseline-tolerance", "--min-samples", "--max-samples",
            "--min-gpu-seconds", "--seed", NULL };
        if (!arg_known("ab", a, with_value, "see --help")) return -1;
        if (!(v = arg_value("ab", argc, argv, &i))) return -1;
        if (!strcmp(a, "--base")) o->base_dir = v;
        else if (!strcmp(a, "--head")) o->head_dir = v;
        else if (!strcmp(a, "--out")) o->out = v;
        else if (!strcmp(a, "--impl")) {
            if (arg_list("ab", a, v, "implementation names")) return -1;
            o->names = v;
        }
        else if (!strcmp(a, "--judge")) o->judge = v;
        else if (!strcmp(a, "--discard")) {
            if (clock_discard_parse(v, &o->ic.clock.discard_mask)) {
                fprintf(stderr, "attnladder ab: --discard '%s'; accepted: thermal, power, none\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--order")) {
            if (strcmp(v, "random") && strcmp(v, "base-first") && strcmp(v, "head-first")) {
                fprintf(stderr, "attnladder ab: --order '%s'; accepted: random, base-first, head-first\n", v);
                return -1;
            }
            o->order = v;
        } else if (!strcmp(a, "--shape")) {
            char err[256];
            if (o->n_shapes == AB_MAX_SHAPES || shape_parse(v, &o->shapes[o->n_shapes], err, sizeof err)) {
                fprintf(stderr, "attnladder ab: %s\n", o->n_shapes == AB_MAX_SHAPES ? "too many shapes" : err);
                return -1;
            }
            o->n_shapes++;
            o->sweep_off = "--shape";
        } else if (!strcmp(a, "--tolerance")) {
            if (arg_double("ab", a, v, 0.0001, 0.5, &d)) return -1;
            o->tolerance = d;
        } else if (!strcmp(a, "--baseline-tolerance")) {
            if (arg_double("ab", a, v, 0.0001, 0.5, &d)) return -1;
            o->baseline_tolerance = d;
        } else if (!strcmp(a, "--min-samples")) {
            if (arg_long("ab", a, v, 5, 100000, &l)) return -1;
            o->ic.min_samples = (size_t)l;
        } else if (!strcmp(a, "--max-samples")) {
            if (arg_long("ab", a, v, 5, 100000, &l)) return -1;
            o->ic.max_samples = (size_t)l;
        } else if (!strcmp(a, "--min-gpu-seconds")) {
            if (arg_double("ab", a, v, 0, 60, &d)) return -1;
            o->ic.min_gpu_s = d;
        } else if (!strcmp(a, "--seed")) {
            if (arg_long("ab", a, v, 0, 0x7fffffffL, &l)) return -1;
            o->seed = (uint64_t)l;
        } else {
            fprintf(stderr, "attnladder ab: unknown option '%s'; see --help\n", a);
            return -1;
        }
    }
    /* --out is written whole over what is there: never over the judged file or into a build */
    const char *inputs[] = { o->judge, o->base_dir, o->head_dir };
    char err[1024];
    if (o->out && files_output_file("--out", o->out, inputs, 3, err, sizeof err)) {
        fprintf(stderr, "attnladder ab: %s\n", err);
        return -1;
    }
    if (o->judge) {
        if (o->base_dir || o->head_dir || o->n_shapes || o->list_paths || o->names) {
            fprintf(stderr, "attnladder ab: --judge takes only --out and the tolerances\n");
            return -1;
        }
        return 0;
    }
    if (!o->base_dir || !o->head_dir) {
        fprintf(stderr, "attnladder ab: --base DIR and --head DIR are both needed\n");
        return -1;
    }
    if (o->ic.min_samples > o->ic.max_samples) {
        fprintf(stderr, "attnladder ab: --min-samples exceeds --max-samples\n");
        return -1;
    }
    if (o->n_shapes || headline_only) o->paths = 0;   /* shapes chosen by hand are the set */
    if (!o->paths) o->sweep = 0;
    if (o->list_paths && !o->paths) {
        fprintf(stderr, "attnladder ab: --list-paths lists the default set's paths: no --shape, --headline-only or --no-paths\n");
        return -1;
    }
    if (!o->n_shapes) {
        shape_point pts[4];
        size_t n = shapes_headline(pts, 4);
        for (size_t k = 0; k < n; k++) o->shapes[o->n_shapes++] = pts[k].s;
        if (!headline_only)
            for (int causal = 0; causal <= 1; causal++)
                o->shapes[o->n_shapes++] = (attn_shape){ 4, 16, 4096, 4096, 128, causal, (float)(1.0 / sqrt(128.0)) };
    }
    return 0;
}

static int wanted(const ab_opts *o, const char *name)
{
    if (!o->names) return 1;
    size_t n = strlen(name);
    for (const char *p = o->names; (p = strstr(p, name)); p += n)
        if ((p == o->names || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* Two output and workspace sets (interleave.h says why). */
typedef struct {
    void *q, *k, *v, *o1, *o2, *ws1, *ws2;
} ab_bufs;

static void free_bufs(ab_bufs *b)
{
    void *all[] = { b->q, b->k, b->v, b->o1, b->o2, b->ws1, b->ws2 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) cudaFree(all[i]);
    memset(b, 0, sizeof *b);
}

/* The inputs on the device and both output and workspace sets (ws bytes each). 0, or -1
 * (err); what was allocated is free_bufs's to free either way. */
static int alloc_bufs(ab_bufs *d, const host_inputs *in, size_t ws, char *err, size_t errlen)
{
    CUDA_OR_GOTO(cudaMalloc(&d->q, in->nq * 2), fail);
    CUDA_OR_GOTO(cudaMalloc(&d->k, in->nkv * 2), fail);
    CUDA_OR_GOTO(cudaMalloc(&d->v, in->nkv * 2), fail);
    CUDA_OR_GOTO(cudaMalloc(&d->o1, in->nq * 2), fail);
    CUDA_OR_GOTO(cudaMalloc(&d->o2, in->nq * 2), fail);
    if (ws) CUDA_OR_GOTO(cudaMalloc(&d->ws1, ws), fail);
    if (ws) CUDA_OR_GOTO(cudaMalloc(&d->ws2, ws), fail);
    return inputs_upload(in, d->q, d->k, d->v, err, errlen);
fail:
    return -1;
}

/* Both outputs from one poisoned run each: the head must match the base, the base the
 * CPU reference on sampled rows. 1 pass, 0 fail (why), -1 CUDA failure (err). */
static int check_pair(const timed_impl *base, const timed_impl *head, const attn_shape *s,
                      const host_inputs *in, char *why, size_t whylen, char *err, size_t errlen)
{
    size_t nq = in->nq;
    uint16_t *ob = malloc(nq * 2), *oh = malloc(nq * 2);
    size_t rows_n = 2048, *rows = malloc(rows_n * sizeof *rows);
    double *ref = NULL;
    int rc = -1;
    if (!ob || !oh || !rows) goto done;
    const timed_impl *both[2] = { base, head };
    uint16_t *outs[2] = { ob, oh };
    for (int k = 0; k < 2; k++) {
        CUDA_OR_GOTO(cudaMemset(both[k]->args.o, 0xff, nq * 2), done);
        int r = both[k]->ph->run(both[k]->state, &both[k]->args);
        if (r) {
            snprintf(why, whylen, "%s run failed (%d): %s", k ? "head" : "base", r, both[k]->ph->error_string(r));
            rc = 0;
            goto done;
        }
        CUDA_OR_GOTO(cudaStreamSynchronize(both[k]->args.stream), done);
        CUDA_OR_GOTO(cudaGetLastError(), done);
        CUDA_OR_GOTO(cudaMemcpy(outs[k], both[k]->args.o, nq * 2, cudaMemcpyDeviceToHost), done);
    }
    size_t n = oracle_sample_rows(s, rows_n, 17, rows);
    ref = malloc(n * (size_t)s->head_dim * sizeof *ref);
    if (!ref || oracle_attention_rows(s, in->q, in->k, in->v, rows, n, ref, 0)) goto done;
    compare_result cb = compare_output(s, ob, rows, n, ref, compare_default_bounds());
    compare_result ch = compare_half_outputs(s, oh, ob, compare_default_bounds());
    rc = cb.pass && ch.pass;
    if (!rc)
        snprintf(why, whylen, "base vs reference %s (rel_l2 %.2e), head vs base %s (rel_l2 %.2e)",
                 cb.pass ? "ok" : "FAIL", cb.rel_l2, ch.pass ? "ok" : "FAIL", ch.rel_l2);
done:
    free(ob);
    free(oh);
    free(rows);
    free(ref);
    return rc;
}

/* The index of the probe that times this side's path (fixed first, then chosen). */
static size_t timed_by(const code_path_probe *p, size_t n, int head, const char *key)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if ((pass ? p[i].chosen : p[i].fixed) && !strcmp(head ? p[i].head_key : p[i].base_key, key)) return i;
    return n;
}

/* The largest work of the gate's fixed shapes (the throughput shape's): a path's shape, or
 * a moved rule's probe, is the largest within it (gate/code_paths.h). */
static double fixed_work(const ab_opts *o)
{
    double w = 0;
    for (size_t k = 0; k < o->n_shapes; k++)
        if (shape_flops(&o->shapes[k]) > w) w = shape_flops(&o->shapes[k]);
    return w;
}

/* Both builds of one phase initialised at s, each init note read as a path into pr
 * (base_key, head_key, note_moved, work). 0, or -1 when either build does not take s
 * (unsupported, or its init fails here: no path of it). */
static int note_probe(const loaded_impl *bi, const loaded_impl *hi, const attn_shape *s, code_path_probe *pr)
{
    if (bi->ph->unsupported(s) || hi->ph->unsupported(s)) return -1;
    char base_note[CODE_PATH_KEY_MAX] = "";
    memset(pr, 0, sizeof *pr);
    for (int side = 0; side < 2; side++) {
        const attn_phase *ph = side ? hi->ph : bi->ph;
        void *state = NULL;
        if (ph->init(&state, s)) return -1;
        const char *note = ph->error_string(0);
        code_path_of_note(note, side ? pr->head_key : pr->base_key, CODE_PATH_KEY_MAX);
        if (!side) snprintf(base_note, sizeof base_note, "%s", note ? note : "");
        else pr->note_moved = strncmp(base_note, note ? note : "", sizeof base_note - 1) != 0;
        ph->fini(state);
    }
    pr->work = shape_flops(s);
    return 0;
}

/* The rule probes (core/shapes.h: the sweep's points with rows, keys or batch doubled or
 * halved): a rule can move between the sweep's points and change no sweep point's choice.
 * Each probe is initialised in both builds; for each way a rule moved there (base path ->
 * head path, gate/code_paths.h) one probe is added to extra with why[] "probe", up to cap
 * in all (n already there), the largest within work_cap. Returns the new count. */
static size_t probe_rules(const loaded_impl *bi, const loaded_impl *hi, attn_shape *extra, const char **why, size_t n,
                          size_t cap, double work_cap, int print)
{
    static shape_point probes[AB_MAX_PROBES];   /* large; ab is single-threaded */
    size_t np = shapes_rule_probes(probes, AB_MAX_PROBES), m = 0, moved = 0;
    if (np > AB_MAX_PROBES) np = AB_MAX_PROBES;
    code_path_probe *p = calloc(np ? np : 1, sizeof *p);
    attn_shape *at = calloc(np ? np : 1, sizeof *at);
    if (!p || !at) goto done;
    for (size_t c = 0; c < np; c++)
        if (!note_probe(bi, hi, &probes[c].s, &p[m])) {
            moved += p[m].note_moved;
            at[m++] = probes[c].s;
        }
    size_t chosen = code_paths_choose_moved(p, m, work_cap), added = 0;
    if (print && moved)
        printf("%-22s %zu rule probe(s) where the builds' notes differ, %zu timed\n", bi->ph->name, moved, chosen);
    for (size_t i = 0; i < m && n < cap; i++) {
        if (!p[i].chosen) continue;
        why[n] = "probe";
        extra[n++] = at[i];
        added++;
        if (print) {
            char text[96];
            shape_format(&at[i], text, sizeof text);
            printf("  %-24s probe  %s (base: %s)\n", text, p[i].head_key, p[i].base_key);
        }
    }
    if (added < chosen)
        fprintf(stderr, "attnladder ab: %s: %zu of %zu moved rule probes not timed (at most %zu shapes a phase)\n",
                bi->ph->name, chosen - added, chosen, cap);
done:
    free(p);
    free(at);
    return n;
}

/* One phase's code paths: it is initialised in each build at the gate's fixed shapes and
 * at every shape of the standard sweep both builds support, each init note read as a path
 * (gate/code_paths.h), and one shape chosen for every path of either build that no fixed
 * shape reaches; then every other sweep shape where the two builds' notes differ in full
 * (the same path with other numbers: a split count, a grid; a compiler that changes a
 * kernel's registers changes what an occupancy-driven rule picks). Writes the added shapes
 * to extra with why[] "path" or "moved" (at most cap), records every path in *paths_json,
 * prints them when asked, and returns the number added. */
static size_t probe_paths(const ab_opts *o, const loaded_impl *bi, const loaded_impl *hi, attn_shape *extra,
                          const char **why, size_t cap, json_t **paths_json, int print)
{
    shape_point sweep[AB_MAX_SWEEP];
    size_t ns = shapes_sweep(sweep, AB_MAX_SWEEP), nc = o->n_shapes + (ns < AB_MAX_SWEEP ? ns : AB_MAX_SWEEP);
    code_path_probe *p = calloc(nc, sizeof *p);
    attn_shape *at = calloc(nc, sizeof *at);
    size_t n = 0, added = 0;
    double cap_work = fixed_work(o);
    run_ab_path listed[2][64];
    char texts[2][64][96];
    size_t n_listed[2] = { 0, 0 };
    *paths_json = NULL;
    if (!p || !at) goto done;
    for (size_t c = 0; c < nc; c++) {
        const attn_shape *s = c < o->n_shapes ? &o->shapes[c] : &sweep[c - o->n_shapes].s;
        if (note_probe(bi, hi, s, &p[n])) continue;
        p[n].fixed = c < o->n_shapes;
        at[n++] = *s;
    }
    code_paths_choose(p, n, cap_work);
    for (size_t i = 0; i < n; i++)
        if (p[i].chosen && added < cap) {
            why[added] = "path";
            extra[added++] = at[i];
        }
    for (size_t i = 0; i < n; i++)
        if (p[i].note_moved && !p[i].fixed && !p[i].chosen && added < cap) {
            why[added] = "moved";
            extra[added++] = at[i];
        }
    for (int side = 0; side < 2; side++) {
        size_t first[64], m = code_paths_distinct(p, n, side, first, 64);
        if (print)
            printf("%-22s %zu path(s) in the %s build\n", bi->ph->name, m, side ? "head" : "base");
        for (size_t k = 0; k < m && k < 64; k++) {
            const char *key = side ? p[first[k]].head_key : p[first[k]].base_key;
            size_t by = timed_by(p, n, side, key);
            char *text = texts[side][k];
            strcpy(text, "-");
            if (by < n) shape_format(&at[by], text, sizeof texts[side][k]);
            listed[side][n_listed[side]++] = (run_ab_path){ key, text, by < n && p[by].fixed };
            if (print)
                printf("  %-24s %-6s %s\n", text, by < n && p[by].fixed ? "fixed" : "added", key);
        }
    }
    if (print)
        for (size_t i = 0; i < n; i++)
            if (p[i].note_moved && !p[i].fixed && !p[i].chosen) {
                char text[96];
                shape_format(&at[i], text, sizeof text);
                printf("  %-24s moved  the builds' notes differ here\n", text);
            }
    if (print && !n)
        printf("%-22s no shape could be initialised in both builds (no GPU here?)\n", bi->ph->name);
done:
    *paths_json = run_write_ab_paths(listed[0], n_listed[0], listed[1], n_listed[1]);
    free(p);
    free(at);
    return added;
}

static int same_shape(const attn_shape *a, const attn_shape *b)
{
    return a->batch == b->batch && a->heads == b->heads && a->seq_q == b->seq_q && a->seq_kv == b->seq_kv &&
           a->head_dim == b->head_dim && a->causal == b->causal && a->scale == b->scale;
}

/* A changed rung's sweep: every point of the standard sweep that both builds support and
 * that neither a fixed shape nor a path's shape (extra[0..n)) already times, appended to
 * extra with why[] "sweep". Returns the new count. */
static size_t add_sweep(const ab_opts *o, const loaded_impl *bi, const loaded_impl *hi, attn_shape *extra,
                        const char **why, size_t n, size_t cap)
{
    shape_point sweep[AB_MAX_SWEEP];
    size_t ns = shapes_sweep(sweep, AB_MAX_SWEEP);
    for (size_t c = 0; c < ns && c < AB_MAX_SWEEP && n < cap; c++) {
        const attn_shape *sh = &sweep[c].s;
        int seen = bi->ph->unsupported(sh) || hi->ph->unsupported(sh);
        for (size_t k = 0; k < o->n_shapes && !seen; k++) seen = same_shape(sh, &o->shapes[k]);
        for (size_t k = 0; k < n && !seen; k++) seen = same_shape(sh, &extra[k]);
        if (seen) continue;
        why[n] = "sweep";
        extra[n++] = *sh;
    }
    return n;
}

/* The row of pairs timed: throttled (too many pairs under a clock event: no verdict is
 * trusted, and the gate says so instead of passing it), or the rule's verdict on the
 * change. Appends it to rows and prints it; returns 1 regressed or throttled, 0, or -1
 * (err) when no change could be computed. */
static int decide_row(const ab_opts *o, const loaded_impl *bi, const interleave_result *r,
                      const clock_policy *clock, uint64_t seed, run_ab_row *row, json_t *rows, char *err,
                      size_t errlen)
{
    row->pairs = r->n;
    row->stop = r->stop;
    if (!strcmp(r->stop, "throttled")) {
        row->outcome = RUN_AB_THROTTLED;
        row->clock = run_write_rounds_clock(r->sm_mhz, r->n, &r->tally, clock);
        json_array_append_new(rows, run_write_ab_row(row));
        printf("%-22s %-24s THROTTLED: %zu pairs discarded for clock events, %zu kept\n", bi->ph->name,
               row->shape, r->tally.discarded, r->n);
        return 1;
    }
    ab_change c;
    const uint64_t bs_seed = seed & 0x7fffffffffffffffULL;   /* recorded: --judge redraws the same CI */
    if (ab_change_ci(r->a_us, r->b_us, r->n, 2000, bs_seed, 0.95, &c)) {
        snprintf(err, errlen, "%s at %s: no change computed", bi->ph->name, row->shape);
        return -1;
    }
    double tol = bi->kind == IMPL_BASELINE ? o->baseline_tolerance : o->tolerance;
    ab_verdict v = ab_decide(&c, tol);
    for (size_t i = 0; i < r->n; i++) row->base_first += r->a_first[i];
    row->outcome = RUN_AB_DECIDED;
    row->clock = run_write_rounds_clock(r->sm_mhz, r->n, &r->tally, clock);
    row->tolerance = tol;
    row->bootstrap_seed = bs_seed;
    row->change = c.change;
    row->change_lo = c.lo;
    row->change_hi = c.hi;
    row->verdict = ab_verdict_name(v);
    row->inner = r->inner;
    row->gpu_s = r->gpu_s;
    row->base = (run_ab_side){ r->a_us, stats_median(r->a_us, r->n) };
    row->head = (run_ab_side){ r->b_us, stats_median(r->b_us, r->n) };
    json_array_append_new(rows, run_write_ab_row(row));
    printf("%-22s %-24s %+7.2f%% [%+.2f%%, %+.2f%%] n=%-4zu %s\n", bi->ph->name, row->shape, (c.change - 1) * 100,
           (c.lo - 1) * 100, (c.hi - 1) * 100, r->n, ab_verdict_name(v));
    return v == AB_REGRESSED;
}

/* One implementation at one shape. Appends its row; returns 1 regressed or failed, 0, -1. */
static int measure_one(const ab_opts *o, const loaded_impl *bi, const loaded_impl *hi,
                       const attn_shape *s, const char *selected, cudaStream_t stream, uint64_t seed,
                       json_t *rows, char *err, size_t errlen)
{
    char text[96], why[512] = "";
    shape_format(s, text, sizeof text);
    if (bi->ph->unsupported(s) || hi->ph->unsupported(s)) return 0;
    const double t0 = time_now_s();   /* the row's whole cost: inputs, checks, graphs, pairs */
    host_inputs in = { 0 };
    ab_bufs d = { 0 };
    void *sb = NULL, *sh = NULL;
    interleave_result r = { 0 };
    int out = -1;
    if (inputs_generate(&in, s, seed, DIST_UNIFORM)) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    size_t wb = bi->ph->workspace_bytes(s), wh = hi->ph->workspace_bytes(s);
    size_t ws = wb > wh ? wb : wh;
    if (alloc_bufs(&d, &in, ws, err, errlen)) goto done;
    if (bi->ph->init(&sb, s) || hi->ph->init(&sh, s)) {
        snprintf(err, errlen, "%s at %s: init failed", bi->ph->name, text);
        goto done;
    }
    timed_impl base = { bi->ph, sb, { d.q, d.k, d.v, d.o1, wb ? d.ws1 : NULL, stream },
                        { d.q, d.k, d.v, d.o2, wb ? d.ws2 : NULL, stream } };
    timed_impl head = { hi->ph, sh, { d.q, d.k, d.v, d.o2, wh ? d.ws2 : NULL, stream },
                        { d.q, d.k, d.v, d.o1, wh ? d.ws1 : NULL, stream } };
    int ok = check_pair(&base, &head, s, &in, why, sizeof why, err, errlen);
    if (ok < 0) goto done;
    /* what each instance says it chose after init (e.g. cuDNN's engine): a difference here
     * is a difference in the work, not in the measurement */
    run_ab_row row = { .outcome = RUN_AB_FAILED, .impl = bi->ph->name, .kind = impl_kind_name(bi->kind),
                       .shape = text, .selected = selected, .correct = ok,
                       .base_note = bi->ph->error_string(0), .head_note = hi->ph->error_string(0), .error = why };
    if (!ok) {
        row.wall_s = time_now_s() - t0;
        json_array_append_new(rows, run_write_ab_row(&row));
        printf("%-22s %-24s check FAILED: %s\n", bi->ph->name, text, why);
        out = 1;
        goto done;
    }
    interleave_config ic = o->ic;
    ic.seed = seed ^ 0x5bd1e995u;
    if (interleave_measure(&base, &head, &ic, &r, err, errlen)) goto done;
    row.wall_s = time_now_s() - t0;
    out = decide_row(o, bi, &r, &ic.clock, seed, &row, rows, err, errlen);
done:
    if (sb) bi->ph->fini(sb);
    if (sh) hi->ph->fini(sh);
    interleave_result_free(&r);
    free_bufs(&d);
    inputs_free(&in);
    return out;
}

/* What one `ab` holds between its stages; ab_close is the one cleanup. */
typedef struct {
    ab_opts o;
    int head_first;                /* the head build loaded (and listed) first */
    loaded_impl *bl, *hl;          /* the base build's implementations and the head's */
    size_t nb, nh;
    char watch_why[256];
    cudaStream_t stream;
    json_t *rows, *paths;          /* the rows measured; each phase's code paths */
    json_t *changes;               /* which phases changed and why (gate/rung_change.h) */
    int *sweep_of;                 /* per base implementation: 1 time its sweep */
    int *changed_of;               /* per base implementation: 1 the head changed it (its rule
                                      probes are read; an unchanged rung's notes cannot move) */
    int compared;
    int stopped;                   /* no stream, or a measurement failed: nothing written */
    char err[1024];
} ab_session;

/* The GPU (listing the paths needs none), the order, both builds. 0, or the exit code
 * (said). */
static int ab_open(ab_session *s)
{
    ab_opts *o = &s->o;
    /* listing the paths inits the phases, which needs no GPU for a phase that does not ask
     * for one (the tests' fixtures); timing does */
    if (!o->list_paths && device_probe(s->err, sizeof s->err)) {
        fprintf(stderr, "attnladder ab: no GPU: %s\n", s->err);
        return EXIT_NO_GPU;
    }
    rng_state rng;
    rng_seed(&rng, o->seed);
    s->head_first = !strcmp(o->order, "head-first") || (!strcmp(o->order, "random") && (rng_next(&rng) >> 63));
    const char *first = s->head_first ? o->head_dir : o->base_dir, *second = s->head_first ? o->base_dir : o->head_dir;
    loaded_impl **f1 = s->head_first ? &s->hl : &s->bl, **f2 = s->head_first ? &s->bl : &s->hl;
    size_t *n1 = s->head_first ? &s->nh : &s->nb, *n2 = s->head_first ? &s->nb : &s->nh;
    if (loader_open_all(first, f1, n1, s->err, sizeof s->err) ||
        loader_open_all(second, f2, n2, s->err, sizeof s->err)) {
        fprintf(stderr, "attnladder ab: %s\n", s->err);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* A loaded file's name without its folder and ".so": the name its records carry. */
static void file_stem(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(out, len, "%s", b ? b + 1 : path);
    size_t n = strlen(out);
    if (n > 3 && !strcmp(out + n - 3, ".so")) out[n - 3] = '\0';
}

/* Which phases of both builds the head changed (gate/rung_change.h), from the records
 * beside their binaries, over every phase both have (not only --impl's: a toolchain change
 * is told by all of them); recorded in s->changes and printed. 0, or EXIT_BAD_INPUT (a
 * malformed record, said). */
static int ab_read_changes(ab_session *s)
{
    rung_change *ch = calloc(s->nb ? s->nb : 1, sizeof *ch);
    size_t *at = calloc(s->nb ? s->nb : 1, sizeof *at), n = 0;
    s->sweep_of = calloc(s->nb ? s->nb : 1, sizeof *s->sweep_of);
    s->changed_of = calloc(s->nb ? s->nb : 1, sizeof *s->changed_of);
    int rc = ch && at && s->sweep_of && s->changed_of ? 0 : EXIT_BAD_INPUT;
    for (size_t i = 0; i < s->nb && !rc; i++) {
        if (s->bl[i].kind != IMPL_PHASE || !loader_find(s->hl, s->nh, s->bl[i].ph->name)) continue;
        char stem[512];
        file_stem(s->bl[i].path, stem, sizeof stem);
        if (rung_change_read(s->o.base_dir, s->o.head_dir, stem, &ch[n], s->err, sizeof s->err)) {
            fprintf(stderr, "attnladder ab: %s\n", s->err);
            rc = EXIT_BAD_INPUT;
            break;
        }
        at[n++] = i;
    }
    int wide = rc ? 0 : rung_changes_decide(ch, n);
    json_t *rungs = json_object();
    for (size_t k = 0; k < n && !rc; k++) {
        char why[640];
        const char *name = s->bl[at[k]].ph->name;
        rung_change_why(&ch[k], wide, why, sizeof why);
        s->sweep_of[at[k]] = s->o.sweep && ch[k].sweep;
        s->changed_of[at[k]] = ch[k].kind != RUNG_SAME;
        json_object_set_new(rungs, name, json_pack("{s:b, s:s, s:s}", "changed", ch[k].kind != RUNG_SAME, "why", why,
                                                   "timed", ch[k].sweep ? "every sweep point" : "code paths"));
        if (ch[k].kind != RUNG_SAME && wanted(&s->o, name)) {
            /* the option that left a changed rung's sweep out, named as given */
            const char *off = !s->sweep_of[at[k]] && ch[k].sweep && s->o.sweep_off ? s->o.sweep_off : NULL;
            printf("%-22s changed: %s: %s%s%s%s\n", name, why,
                   s->sweep_of[at[k]] ? "timed at every sweep point" : ch[k].sweep ? "sweep left out" : "timed at its code paths",
                   off ? " (" : "", off ? off : "", off ? ")" : "");
        }
    }
    if (wide) printf("every phase's binary moved with no rule's source: timed at the code paths, as before\n");
    s->changes = json_pack("{s:s, s:b, s:o}", "rule",
                           "a phase whose own sources (phases/, kernels/) differ, or whose binary alone differs "
                           "while that of another phase with alike sources does not, or with no record, is timed "
                           "at every sweep point; a build-wide change (every such binary, or a shared header) at "
                           "its code paths and the sweep shapes whose init notes moved",
                           "build_wide", wide, "rungs", rungs);
    free(ch);
    free(at);
    return rc;
}

/* A phase's added shapes: one of each code path no fixed shape reaches, the sweep points
 * whose notes moved, then (a changed phase) one rule probe of each way a rule moved off
 * the sweep and every sweep point not yet timed; why[] says which. Returns the count. */
static size_t extra_shapes(ab_session *s, size_t i, const loaded_impl *hi, attn_shape *extra, const char **why,
                           int print)
{
    json_t *pj = NULL;
    size_t n = probe_paths(&s->o, &s->bl[i], hi, extra, why, AB_MAX_EXTRA, &pj, print);
    if (print) json_decref(pj);
    else json_object_set_new(s->paths, s->bl[i].ph->name, pj);
    if (s->changed_of[i]) n = probe_rules(&s->bl[i], hi, extra, why, n, AB_MAX_EXTRA, fixed_work(&s->o), print);
    size_t before = n;
    if (s->sweep_of[i]) n = add_sweep(&s->o, &s->bl[i], hi, extra, why, n, AB_MAX_EXTRA);
    if (print && s->sweep_of[i]) {
        printf("  %zu sweep point(s) added (the rung changed):", n - before);
        for (size_t k = before; k < n; k++) {
            char text[96];
            shape_format(&extra[k], text, sizeof text);
            printf("%s%s", k == before ? " " : ", ", text);
        }
        printf("\n");
    }
    return n;
}

/* --list-paths: which phases changed, each phase's paths and the shape that times each,
 * the sweep points a changed one adds; nothing timed. */
static void ab_list_paths(ab_session *s)
{
    for (size_t i = 0; i < s->nb; i++) {
        const loaded_impl *hi = loader_find(s->hl, s->nh, s->bl[i].ph->name);
        if (s->bl[i].kind != IMPL_PHASE || !hi || !wanted(&s->o, s->bl[i].ph->name)) continue;
        attn_shape extra[AB_MAX_EXTRA];
        const char *why[AB_MAX_EXTRA];
        extra_shapes(s, i, hi, extra, why, 1);
    }
}

/* One implementation of both builds at the fixed shapes and (a phase) one shape of each
 * of its code paths. EXIT_OK, EXIT_GATE (a regression or a failed check), or -1 a fatal
 * failure (said). */
static int ab_compare_impl(ab_session *s, size_t i)
{
    const ab_opts *o = &s->o;
    const loaded_impl *bi = &s->bl[i], *hi = loader_find(s->hl, s->nh, bi->ph->name);
    if (!hi) {
        printf("%-22s only in the base build\n", bi->ph->name);
        return EXIT_OK;
    }
    attn_shape extra[AB_MAX_EXTRA];
    const char *why[AB_MAX_EXTRA];
    size_t n_extra = o->paths && bi->kind == IMPL_PHASE ? extra_shapes(s, i, hi, extra, why, 0) : 0;
    int rc = EXIT_OK;
    for (size_t k = 0; k < o->n_shapes + n_extra; k++) {
        const attn_shape *sh = k < o->n_shapes ? &o->shapes[k] : &extra[k - o->n_shapes];
        int m = measure_one(o, bi, hi, sh, k < o->n_shapes ? "fixed" : why[k - o->n_shapes], s->stream, o->seed + 97 * i + k,
                            s->rows, s->err, sizeof s->err);
        if (m < 0) {
            fprintf(stderr, "attnladder ab: %s\n", s->err);
            return -1;
        }
        s->compared++;
        if (m > 0) rc = EXIT_GATE;
    }
    return rc;
}

/* Every implementation of both builds, then those only the head has. The exit code. */
static int ab_compare_all(ab_session *s)
{
    ab_opts *o = &s->o;
    o->ic.clock.watch = clock_watch_open(s->watch_why, sizeof s->watch_why);
    if (!o->ic.clock.watch) fprintf(stderr, "attnladder ab: clocks not read per pair: %s\n", s->watch_why);
    if (cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking) != cudaSuccess) {
        fprintf(stderr, "attnladder ab: cannot create a stream\n");
        s->stopped = 1;
        return EXIT_NO_GPU;
    }
    int rc = EXIT_OK;
    printf("%-22s %-24s %s\n", "implementation", "shape", "head vs base [95% CI], pairs, verdict");
    for (size_t i = 0; i < s->nb; i++) {
        if (s->bl[i].kind == IMPL_FLOOR || !wanted(o, s->bl[i].ph->name)) continue;
        int m = ab_compare_impl(s, i);
        if (m < 0) {
            s->stopped = 1;
            return EXIT_GATE;
        }
        if (m) rc = m;
    }
    for (size_t j = 0; j < s->nh; j++)
        if (s->hl[j].kind != IMPL_FLOOR && wanted(o, s->hl[j].ph->name) && !loader_find(s->bl, s->nb, s->hl[j].ph->name))
            printf("%-22s new in the head build: no base to compare with (the ladder gate judges it)\n",
                   s->hl[j].ph->name);
    ab_print_slowed(s->rows);
    if (!s->compared) {
        fprintf(stderr, "attnladder ab: no implementation is in both builds\n");
        rc = EXIT_BAD_INPUT;
    }
    return rc;
}

/* --out: the comparison's file, through the evidence writer. 0, or -1 (said). */
static int ab_write(ab_session *s)
{
    const ab_opts *o = &s->o;
    device_gpu dev;
    device_versions ver;
    device_git base_git, head_git;
    device_gpu_read(&dev);
    device_versions_read(&ver);
    device_git_read(o->base_dir, &base_git);
    device_git_read(o->head_dir, &head_git);
    run_ab_document d = { .gpu = &dev, .versions = &ver, .base_git = &base_git, .head_git = &head_git,
                          .head_first = s->head_first, .seed = o->seed, .tolerance = o->tolerance,
                          .baseline_tolerance = o->baseline_tolerance, .min_samples = o->ic.min_samples,
                          .max_samples = o->ic.max_samples, .min_gpu_s = o->ic.min_gpu_s,
                          .max_seconds = o->ic.max_seconds, .warmup = o->ic.warmup,
                          .per_pair = o->ic.clock.watch != NULL, .watch_why_not = s->watch_why,
                          .discard = clock_discard_name(o->ic.clock.discard_mask),
                          .discard_limit = o->ic.clock.discard_limit, .changes = s->changes,
                          .paths = s->paths, .rows = s->rows };
    json_t *doc = run_write_ab(&d);
    int rc = evidence_write_atomic(doc, o->out, s->err, sizeof s->err);
    if (rc) fprintf(stderr, "attnladder ab: %s\n", s->err);
    json_decref(doc);
    return rc;
}

static void ab_close(ab_session *s)
{
    clock_watch_close(s->o.ic.clock.watch);
    json_decref(s->rows);
    json_decref(s->paths);
    json_decref(s->changes);
    free(s->sweep_of);
    free(s->changed_of);
    if (s->stream) cudaStreamDestroy(s->stream);
    loader_close_all(s->bl, s->nb);
    loader_close_all(s->hl, s->nh);
}

int cmd_ab(int argc, char **argv)
{
    static ab_session s;   /* large: kept off the stack */
    s = (ab_session){ .compared = 0 };
    int p = parse(argc, argv, &s.o);
    if (p) return p > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (s.o.judge) return ab_judge_file(s.o.judge, s.o.tolerance, s.o.baseline_tolerance, s.o.out);
    s.rows = json_array();
    s.paths = json_object();
    int rc = ab_open(&s);
    if (!rc) rc = ab_read_changes(&s);
    if (!rc && s.o.list_paths) {
        ab_list_paths(&s);
    } else if (!rc) {
        rc = ab_compare_all(&s);
        if (!s.stopped && s.o.out && ab_write(&s)) rc = EXIT_BAD_INPUT;
    }
    ab_close(&s);
    return rc;
}
