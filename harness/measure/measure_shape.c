/* measure/measure_shape.c: validation precedes timing, per shape, for every implementation. */
#include "measure/cuda_check.h"
#include "measure/measure_shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "attn_oracle.h"
#include "measure/inputs.h"
#include "measure/planted_slowdown.h"
#include "measure/kernel_resources.h"
#include "measure/l2_copies.h"
#include "measure/paired_ratio.h"
#include "measure/point_derived.h"
#include "measure/point_ratios.h"

/* The GPU and the CPU fp64 references agree to rounding (different summation orders, the
 * device's fused multiply-adds and exp): |O| < 1, so differences stay near 1e-15. A
 * difference above this is a fault of one of them, never rounding. */
#define REF_AGREE_MAX_ABS 1e-9

static int keep_baseline_timing(measure_ctx *ctx, const attn_shape *s, const time_result *graph);

/* Two sets of output and workspace (o, ws and o2, ws2, the same sizes; the second only
 * with ctx->paired): the interleaved ratio gives the implementation and the baseline one
 * set each, drawn per pair. ref: the GPU reference's every row (NULL: not used). */
typedef struct {
    void *q, *k, *v, *o, *ws, *o2, *ws2;
    size_t ws_bytes;
    double *ref;
    l2_plan l2;            /* how the inputs are kept cold (l2_copies.h) */
    l2_layout copies;      /* q, k and v hold l2.copies copies of the inputs */
} device_bufs;

/* A point's reference for one set of inputs: the CPU rows (every row or a sample) and,
 * when the GPU reference agreed with them, every row on the device, which every output is
 * then judged against. */
typedef struct {
    size_t *rows;          /* the CPU rows (NULL: every row, in order) */
    size_t nrows;
    double *cpu;           /* nrows * head_dim */
    const double *gpu;     /* device, every row; NULL: judged on the CPU rows */
    const char *kind;      /* correctness.reference */
    size_t rows_judged;    /* correctness.rows_checked */
} point_ref;

/* The same shape always gets the same inputs for a given run seed. */
static uint64_t shape_seed(uint64_t seed, const attn_shape *s)
{
    uint64_t h = seed ^ 0x9e3779b97f4a7c15ull;
    const int dims[] = { s->batch, s->heads, s->seq_q, s->seq_kv, s->head_dim, s->causal };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        h = (h ^ (uint64_t)dims[i]) * 0x100000001b3ull;
    return h;
}

/* A verdict from a comparison (the reference named, with its rows, when reference is
 * not NULL). */
static void check_compared(result_check *k, const compare_result *c, const char *reference, size_t rows)
{
    *k = (result_check){ .pass = c->pass, .compared = 1, .c = *c, .reference = reference, .rows_checked = rows };
}

/* A verdict with no comparison: the run failed, why says how. */
static void check_failed(result_check *k, const char *why)
{
    *k = (result_check){ .pass = 0 };
    snprintf(k->error, sizeof k->error, "%s", why);
}

static void point_ref_free(point_ref *pr)
{
    free(pr->rows);
    free(pr->cpu);
    memset(pr, 0, sizeof *pr);
}

/* The CPU rows of inputs `in` (all when affordable, else a sample drawn with
 * sample_seed), then, when the GPU reference computes the shape and d->ref is there, every
 * row on the device, checked against the CPU rows: one oracle check in rec.
 * 0; 1 when the GPU reference disagreed (the point falls back to the CPU rows); -1 out of
 * memory or a CUDA failure (err). */
static int point_ref_build(measure_ctx *ctx, const shape_point *pt, const char *inputs_name,
                           const host_inputs *in, const device_bufs *d, cudaStream_t stream,
                           uint64_t sample_seed, point_ref *pr, point_record *rec, step_times *st, char *err,
                           size_t errlen)
{
    const attn_shape *s = &pt->s;
    size_t total = oracle_total_rows(s), dim = (size_t)s->head_dim;
    int use_gpu = ctx->gpu_ref && d->ref;
    double full_max = use_gpu ? ctx->cpu_check_max_flops : ctx->full_ref_max_flops;
    double t = time_now_s();
    memset(pr, 0, sizeof *pr);
    pr->nrows = total;
    pr->kind = "cpu-fp64";
    if (oracle_row_flops(s, total) > full_max && ctx->sample_rows < total) {
        pr->rows = malloc(ctx->sample_rows * sizeof *pr->rows);
        if (!pr->rows) goto oom;
        pr->nrows = oracle_sample_rows(s, ctx->sample_rows, sample_seed, pr->rows);
        pr->kind = "cpu-fp64-sampled";
    }
    pr->rows_judged = pr->nrows;
    pr->cpu = malloc(pr->nrows * dim * sizeof *pr->cpu);
    if (!pr->cpu || oracle_attention_rows(s, in->q, in->k, in->v, pr->rows, pr->nrows, pr->cpu,
                                       ctx->oracle_threads))
        goto oom;
    t = step_add(st, STEP_REF_CPU, t);
    if (!use_gpu) return 0;

    double *got = malloc(pr->nrows * dim * sizeof *got);
    if (!got) goto oom;
    if (oracle_gpu_attention(ctx->gpu_ref, s, d->q, d->k, d->v, d->ref, stream, err, errlen) ||
        oracle_gpu_rows(ctx->gpu_ref, s, d->ref, pr->rows, pr->nrows, got, stream, err, errlen)) {
        free(got);
        return -1;
    }
    double max_abs = 0, d2 = 0, r2 = 0;
    size_t bad = 0;
    for (size_t i = 0; i < pr->nrows * dim; i++) {
        double diff = fabs(got[i] - pr->cpu[i]);
        if (!isfinite(got[i]) || !(diff <= max_abs || diff > max_abs)) bad++;
        else if (diff > max_abs) max_abs = diff;
        d2 += diff * diff;
        r2 += pr->cpu[i] * pr->cpu[i];
    }
    free(got);
    int agree = bad == 0 && max_abs <= REF_AGREE_MAX_ABS;
    oracle_check_record *chk = point_record_oracle_check(rec);
    if (!chk) goto oom;
    *chk = (oracle_check_record){ .shape = *s, .tag = pt->tag, .inputs = inputs_name, .cpu = pr->kind,
                                  .rows = pr->nrows, .nonfinite = bad, .max_abs = max_abs,
                                  .rel_l2 = r2 > 0 ? sqrt(d2) / sqrt(r2) : sqrt(d2), .pass = agree };
    step_add(st, STEP_REF_GPU, t);
    if (!agree) {
        char text[96];
        shape_format(s, text, sizeof text);
        fprintf(stderr, "attnladder run: the GPU reference differs from the CPU reference at %s "
                "(%s inputs, max |diff| %.3g over %zu rows): judged on the CPU rows alone\n",
                text, inputs_name, max_abs, pr->nrows);
        return 1;
    }
    pr->gpu = d->ref;
    pr->kind = "gpu-fp64";
    pr->rows_judged = total;
    return 0;
oom:
    snprintf(err, errlen, "out of host memory for the reference");
    return -1;
}

/* Runs once into the poisoned output (and workspace), synchronised. 0, 1 (the
 * implementation failed: reason in why), or -1 (a CUDA failure of the harness itself: err). */
static int run_for_check(const loaded_impl *im, void *state, const attn_args *a,
                         const device_bufs *d, size_t nq, char *why, size_t whylen, char *err, size_t errlen)
{
    CUDA_OR_GOTO(cudaMemsetAsync(d->o, 0xff, nq * sizeof(uint16_t), a->stream), fail);  /* NaN */
    /* The workspace too: an implementation that reads workspace it did not write then
     * reads NaN (fp16 and fp32 alike) and fails the check. */
    if (a->workspace) CUDA_OR_GOTO(cudaMemsetAsync(a->workspace, 0xff, d->ws_bytes, a->stream), fail);
    int rc = im->ph->run(state, a);
    if (rc != 0) {
        snprintf(why, whylen, "run failed (%d): %s", rc, im->ph->error_string(rc));
        return 1;
    }
    cudaError_t e = cudaStreamSynchronize(a->stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(why, whylen, "kernel failed: %s", cudaGetErrorString(e));
        return -1;   /* a sticky error leaves the context unusable: stop the run */
    }
    return 0;
fail:
    return -1;
}

static void progress(measure_ctx *ctx, const char *impl, const char *shape, const char *what)
{
    measure_progress(ctx, impl, shape, what);
}

/* Times every chosen mode into `timing` (the graph mode's n is 0 when it was not timed),
 * so the derived figures are computed from the numbers themselves. */
static int time_modes(measure_ctx *ctx, const loaded_impl *im, void *state,
                      const attn_args *a, const shape_point *pt, const device_bufs *d, result_timing *timing,
                      const char *shape_text, char *err, size_t errlen)
{
    timing->clock = ctx->tc.clock;
    timing->l2 = d->l2;
    timing->has_l2 = 1;
    time_config tc = ctx->tc;
    tc.copies = d->copies;   /* the graph's launches read the point's copies in turn */
    int is_headline = strcmp(pt->tag, "headline") == 0;
    const int *modes = is_headline ? ctx->modes : ctx->sweep_modes;
    for (int m = 0; m < MODE_COUNT; m++) {
        if (!modes[m] || *ctx->stop) continue;
        time_result r;
        if (time_measure(plant_wrap(im->ph), state, a, (time_mode)m, &tc, &r, err, errlen))
            return -1;
        timing->mode[m] = r;
        timing->timed[m] = 1;
        char line[200], l2[48] = "";
        if (m == MODE_GRAPH && d->l2.state != L2_RESIDENT)
            snprintf(l2, sizeof l2, " l2 %s x%d", l2_state_name(d->l2.state), d->l2.copies);
        snprintf(line, sizeof line, "%-6s %10.3f us [%.3f, %.3f] n=%zu inner=%d (%s)%s%s",
                 time_mode_name((time_mode)m), r.sum.median, r.sum.ci_lo, r.sum.ci_hi, r.n,
                 r.inner, stop_reason_name(r.stop), r.n_discarded ? " some discarded (clock)" : "", l2);
        progress(ctx, im->ph->name, shape_text, line);
        ctx->gpu_timed_s += r.gpu_s;
        ctx->measurements++;
    }
    return 0;
}

/* Where rows were sampled, the sampled rows alone do not make a pass: every row must
 * also agree with the baseline's full output (a kernel that skips a query tile the
 * sample missed fails here). The baseline itself is judged on the sampled rows. */
static int full_output_pass(const measure_ctx *ctx, const loaded_impl *im, int sampled,
                            const attn_shape *s, const uint16_t *out, const uint16_t *base_out,
                            result_check *corr)
{
    int is_baseline = ctx->baseline && strcmp(im->ph->name, ctx->baseline) == 0;
    if (base_out && !is_baseline) {
        corr->vs_baseline = compare_half_outputs(s, out, base_out, ctx->bounds);
        corr->has_vs_baseline = 1;
        if (sampled && !corr->vs_baseline.pass) {
            snprintf(corr->error, sizeof corr->error, "differs from the baseline's full output "
                     "on rows the CPU sample did not check");
            return 0;
        }
        return 1;
    }
    if (sampled && !is_baseline) {
        snprintf(corr->error, sizeof corr->error, "rows were sampled and no correct baseline "
                 "output covers the others (measure the baseline too)");
        return 0;
    }
    return 1;
}

/* Judges the output now in d->o against the point's reference: on the device against
 * the GPU reference's every row, else copied to `out` and compared with the CPU rows (and
 * with the baseline's output where rows were sampled). *corr gets the verdict (naming
 * the reference when `named`); returns 1 pass, 0 fail, -1 CUDA failure (err). */
static int judge_output(measure_ctx *ctx, const loaded_impl *im, const attn_shape *s, const device_bufs *d,
                        const point_ref *pr, size_t nq, uint16_t *out, const uint16_t *base_out, int named,
                        cudaStream_t stream, result_check *corr, step_times *st, char *err, size_t errlen)
{
    double t = time_now_s();
    compare_result c;
    if (pr->gpu) {
        if (oracle_gpu_compare(ctx->gpu_ref, s, d->o, pr->gpu, ctx->bounds, &c, stream, err, errlen)) return -1;
        check_compared(corr, &c, named ? pr->kind : NULL, pr->rows_judged);
        step_add(st, STEP_COMPARE, t);
        return c.pass;
    }
    CUDA_OR_GOTO(cudaMemcpy(out, d->o, nq * sizeof(uint16_t), cudaMemcpyDeviceToHost), fail);
    t = step_add(st, STEP_CHECK_RUN, t);
    c = compare_output(s, out, pr->rows, pr->nrows, pr->cpu, ctx->bounds);
    check_compared(corr, &c, named ? pr->kind : NULL, pr->rows_judged);
    int pass = c.pass && full_output_pass(ctx, im, pr->rows != NULL, s, out, base_out, corr);
    corr->pass = pass;
    step_add(st, STEP_COMPARE, t);
    return pass;
fail:
    return -1;
}

/* Checks the output of the last timed launch again: 1 pass, 0 fail (corr gets
 * after_timing and pass false), -1 CUDA failure (err). */
static int recheck_after_timing(measure_ctx *ctx, const loaded_impl *im, const attn_shape *s,
                                const device_bufs *d, size_t nq, const point_ref *pr,
                                const uint16_t *base_out, uint16_t *out, result_correctness *corr,
                                cudaStream_t stream, step_times *st, char *err, size_t errlen)
{
    CUDA_OR_GOTO(cudaDeviceSynchronize(), fail);
    step_times inner = { 0 };
    int pass = judge_output(ctx, im, s, d, pr, nq, out, base_out, 0, stream, &corr->after, &inner, err, errlen);
    for (int i = 0; i < STEP_COUNT; i++) st->s[STEP_RECHECK] += inner.s[i];
    if (pass < 0) return -1;
    corr->has_after = 1;
    if (!pass) corr->check.pass = 0;
    return pass;
fail:
    return -1;
}

/* The point's workspace sets, allocated once at the largest size any implementation there
 * asks (two with the rotation's second buffer set, else one), so that implementations kept
 * initialised for the ratios keep valid pointers. 1 when allocated (or none is needed); 0
 * when even one set does not fit (the implementations then allocate one by one, as each
 * asks, and none is kept). */
static int point_workspace(const measure_ctx *ctx, const attn_shape *s, device_bufs *d)
{
    size_t most = 0;
    for (size_t i = 0; i < ctx->n_impls; i++) {
        const loaded_impl *im = ctx->impls[i];
        if (im->kind == IMPL_FLOOR || im->ph->unsupported(s)) continue;
        size_t ws = im->ph->workspace_bytes(s);
        if (ws > most) most = ws;
    }
    if (most == 0) return 1;
    if (cudaMalloc(&d->ws, most) != cudaSuccess) {
        cudaGetLastError();   /* clear the allocation failure */
        d->ws = NULL;
        return 0;
    }
    d->ws_bytes = most;
    if (d->o2 && cudaMalloc(&d->ws2, most) != cudaSuccess) {
        cudaGetLastError();   /* one set: the rotation runs on it alone */
        d->ws2 = NULL;
    }
    return 1;
}

/* Correctness on the point's other input distributions (shape_point.extra_inputs), for
 * every implementation: one input check each in rec. Against every row: the GPU
 * reference's where it is loaded, else the CPU's (points too large for the full CPU
 * reference are then left out). Untimed. Returns the number of failures, or -1 on a CUDA
 * failure or out of memory (err). */
static int check_other_inputs(measure_ctx *ctx, const shape_point *pt, device_bufs *d,
                              cudaStream_t stream, point_record *rec, const char *shape_text,
                              step_times *st, char *err, size_t errlen)
{
    const attn_shape *s = &pt->s;
    size_t total_rows = oracle_total_rows(s);
    if (!d->ref && oracle_row_flops(s, total_rows) > ctx->full_ref_max_flops) return 0;   /* small points only */
    int failures = 0;
    host_inputs in = { 0 };
    point_ref pr = { 0 };
    uint16_t *out = NULL;
    for (int dist = 1; dist < DIST_COUNT && !*ctx->stop; dist++) {
        if (!(pt->extra_inputs & (1u << dist))) continue;
        inputs_free(&in);
        point_ref_free(&pr);
        free(out);
        out = NULL;
        uint64_t seed = shape_seed(ctx->seed + 2 + (uint64_t)dist, s);
        if (inputs_generate(&in, s, seed, (input_dist)dist)) goto oom;
        out = malloc(in.nq * sizeof *out);
        if (!out) goto oom;
        if (inputs_upload(&in, d->q, d->k, d->v, err, errlen)) goto fail;
        int rc = point_ref_build(ctx, pt, input_dist_name((input_dist)dist), &in, d, stream, seed + 1, &pr, rec,
                                 st, err, errlen);
        if (rc < 0) goto fail;
        failures += rc;
        if (!pr.gpu && pr.rows) continue;   /* a sample alone judges nothing without the baseline */
        for (size_t i = 0; i < ctx->n_impls && !*ctx->stop; i++) {
            const loaded_impl *im = ctx->impls[i];
            if (im->kind == IMPL_FLOOR || im->ph->unsupported(s) || im->ph->workspace_bytes(s) > d->ws_bytes)
                continue;
            void *state = NULL;
            char why[512] = "";
            input_check_record *chk = point_record_check(rec);
            if (!chk) goto oom;
            *chk = (input_check_record){ .impl = im->ph->name, .tag = pt->tag,
                                         .inputs = input_dist_name((input_dist)dist), .shape = *s };
            result_check *corr = &chk->correctness;
            int pass = 0;
            rc = im->ph->init(&state, s);
            if (rc != 0) {
                snprintf(why, sizeof why, "init failed (%d): %s", rc, im->ph->error_string(rc));
                check_failed(corr, why);
            } else {
                size_t ws = im->ph->workspace_bytes(s);
                attn_args a = { d->q, d->k, d->v, d->o, ws ? d->ws : NULL, stream };
                rc = run_for_check(im, state, &a, d, in.nq, why, sizeof why, err, errlen);
                if (rc == 0) {
                    pass = judge_output(ctx, im, s, d, &pr, in.nq, out, NULL, 1, stream, corr, st, err, errlen);
                    if (pass < 0) rc = -1;
                }
                im->ph->fini(state);
                if (rc < 0) {
                    rec->n_checks--;   /* a fatal failure: no verdict to keep (it owns nothing) */
                    goto fail;
                }
                if (rc == 1) check_failed(corr, why);
            }
            failures += !pass;
            char line[160];
            snprintf(line, sizeof line, "check  %s on %s inputs", pass ? "PASS" : "FAIL",
                     input_dist_name((input_dist)dist));
            progress(ctx, im->ph->name, shape_text, line);
        }
    }
    goto done;
oom:
    snprintf(err, errlen, "out of host memory checking %s on other inputs", shape_text);
fail:
    failures = -1;
done:
    inputs_free(&in);
    point_ref_free(&pr);
    free(out);
    return failures;
}

/* The point's cost (cost.points), and its line. */
static void point_done(measure_ctx *ctx, const shape_point *pt, const char *shape_text, double t0,
                       const step_times *st, point_record *rec)
{
    double wall = time_now_s() - t0;
    step_times_accumulate(&ctx->steps, st);
    rec->cost = (point_cost_record){ .shape = pt->s, .tag = pt->tag, .wall_s = wall, .steps = *st };
    rec->has_cost = 1;
    char text[512];
    step_times_text(st, text, sizeof text);
    fprintf(stderr, "point  %-24s %.2f s (%s)\n", shape_text, wall, text);
}

/* What measure_point holds between its stages; point_close is the one cleanup. */
typedef struct {
    measure_ctx *ctx;
    const shape_point *pt;
    const attn_shape *s;
    char shape_text[96];
    double t0;
    step_times st;
    host_inputs in;
    device_bufs d;
    point_ref pr;
    uint16_t *out, *base_out;  /* base_out: the baseline's output, kept for the others */
    cudaStream_t stream;
    kept_impl *kept;           /* the implementations whose ratios are measured at the end */
    size_t n_kept;
    int ws_fixed;              /* the workspace sets will not move: implementations may be kept */
    int skipped;               /* the tensors do not fit: every implementation reported, none run */
    point_record *rec;
    char *err;
    size_t errlen;
} point_session;

static int point_oom(point_session *ps)
{
    snprintf(ps->err, ps->errlen, "out of host memory while measuring %s", ps->shape_text);
    return -1;
}

/* An implementation not measured at the point: its result says why, and so does its line. */
static void point_unsupported(point_session *ps, const loaded_impl *im, const char *why, const char *line)
{
    result_record *r = point_record_result(ps->rec);
    if (r) {   /* one result an implementation: there is room */
        *r = (result_record){ .impl = im->ph->name, .tag = ps->pt->tag, .shape = ps->pt->s };
        snprintf(r->reason, sizeof r->reason, "%s", why);
    }
    progress(ps->ctx, im->ph->name, ps->shape_text, line);
}

/* The inputs, the device buffers and the workspace sets. 0; -1 out of memory or a CUDA
 * failure (err). A shape whose tensors cannot fit is reported, not fatal: every
 * implementation gets an unsupported result, and ps->skipped is set. */
static int point_open(point_session *ps)
{
    measure_ctx *ctx = ps->ctx;
    const attn_shape *s = ps->s;
    device_bufs *d = &ps->d;
    char *err = ps->err;
    size_t errlen = ps->errlen;
    double t = ps->t0;
    if (inputs_generate(&ps->in, s, shape_seed(ctx->seed, s), DIST_UNIFORM)) {
        snprintf(err, errlen, "out of host memory for the inputs of %s", ps->shape_text);
        return -1;
    }
    t = step_add(&ps->st, STEP_INPUTS, t);
    ps->out = malloc(ps->in.nq * sizeof *ps->out);
    if (!ps->out) return point_oom(ps);

    /* The GPU reference's every row in doubles comes on top where it fits. */
    int want_gpu_ref = ctx->gpu_ref && !oracle_gpu_unsupported(ctx->gpu_ref, s);
    size_t nq = ps->in.nq, free_b = 0, total_b = 0,
           need = ((ctx->paired ? 3 : 2) * nq + 2 * ps->in.nkv) * sizeof(uint16_t),   /* + o2 */
           oracle_bytes = nq * sizeof(double);
    CUDA_OR_GOTO(cudaMemGetInfo(&free_b, &total_b), fail);
    /* a memory-bound point's inputs in copies that keep them cold in L2 (l2_copies.h) */
    d->l2 = l2_plan_for(s, ctx->l2_bytes, need < free_b ? free_b - need : 0);
    need += (size_t)(d->l2.copies - 1) * d->l2.copy_bytes;
    if (need > free_b) {
        char why[256];
        snprintf(why, sizeof why, "out of device memory: Q, K, V and O need %zu bytes, the GPU "
                 "has %zu free of %zu", need, free_b, total_b);
        for (size_t i = 0; i < ctx->n_impls; i++)
            if (ctx->impls[i]->kind != IMPL_FLOOR) point_unsupported(ps, ctx->impls[i], why, why);
        ps->skipped = 1;
        return 0;
    }
    CUDA_OR_GOTO(cudaStreamCreateWithFlags(&ps->stream, cudaStreamNonBlocking), fail);
    size_t copies = (size_t)d->l2.copies;
    d->copies = (l2_layout){ d->l2.copies, nq * 2, ps->in.nkv * 2 };
    CUDA_OR_GOTO(cudaMalloc(&d->q, copies * nq * 2), fail);
    CUDA_OR_GOTO(cudaMalloc(&d->k, copies * ps->in.nkv * 2), fail);
    CUDA_OR_GOTO(cudaMalloc(&d->v, copies * ps->in.nkv * 2), fail);
    CUDA_OR_GOTO(cudaMalloc(&d->o, nq * 2), fail);
    if (ctx->paired) CUDA_OR_GOTO(cudaMalloc(&d->o2, nq * 2), fail);
    if (want_gpu_ref && need + oracle_bytes <= free_b && cudaMalloc((void **)&d->ref, oracle_bytes) != cudaSuccess) {
        cudaGetLastError();   /* no room: the CPU reference alone */
        d->ref = NULL;
    }
    if (inputs_upload(&ps->in, d->q, d->k, d->v, err, errlen) ||
        inputs_replicate(d->q, d->k, d->v, &d->copies, err, errlen))
        return -1;
    if (ctx->paired) {
        ps->kept = calloc(ctx->n_impls, sizeof *ps->kept);
        if (!ps->kept) return point_oom(ps);
        ps->ws_fixed = point_workspace(ctx, s, d);
    }
    step_add(&ps->st, STEP_DEVICE_MEM, t);
    return 0;
fail:
    return -1;
}

/* The workspace of ws bytes im asks: the sets grown where they may move. 0 ready; 1 it
 * does not fit (reported as unsupported). */
static int impl_workspace(point_session *ps, const loaded_impl *im, size_t ws)
{
    device_bufs *d = &ps->d;
    if (ws <= d->ws_bytes) return 0;
    if (!ps->ws_fixed) {
        if (d->ws) cudaFree(d->ws);
        if (d->ws2) cudaFree(d->ws2);
        d->ws = d->ws2 = NULL;
        d->ws_bytes = 0;
        /* the second set only for the pairs: a run without them needs no more memory
         * than before (02's workspace alone can be gigabytes at long sequences) */
        if (cudaMalloc(&d->ws, ws) == cudaSuccess) {
            d->ws_bytes = ws;
            return 0;
        }
        cudaGetLastError();   /* clear the allocation failure */
        if (d->ws) cudaFree(d->ws);   /* neither set is left half allocated */
        d->ws = NULL;
    }
    char why[160];
    snprintf(why, sizeof why, "workspace of %zu bytes does not fit in device memory", ws);
    point_unsupported(ps, im, why, why);
    return 1;
}

/* The check on the uniform inputs into res->correctness, and its line. t: when the check
 * run began; *t_after: when the check ended. 1 pass, 0 fail, -1 CUDA failure or out of
 * memory (err). */
static int impl_check(point_session *ps, const loaded_impl *im, void *state, const attn_args *a,
                      result_record *res, double t, double *t_after)
{
    measure_ctx *ctx = ps->ctx;
    char why[512] = "";
    int rc = run_for_check(im, state, a, &ps->d, ps->in.nq, why, sizeof why, ps->err, ps->errlen);
    step_add(&ps->st, STEP_CHECK_RUN, t);
    if (rc < 0) {
        if (!ps->err[0]) snprintf(ps->err, ps->errlen, "%s on %s: %s", im->ph->name, ps->shape_text, why);
        return -1;
    }
    result_check *corr = &res->correctness.check;
    int pass = 0;
    if (rc == 1) {
        check_failed(corr, why);
    } else {
        pass = judge_output(ctx, im, ps->s, &ps->d, &ps->pr, ps->in.nq, ps->out, ps->base_out, 1, ps->stream,
                            corr, &ps->st, ps->err, ps->errlen);
        if (pass < 0) return -1;
        if (!ps->pr.gpu && ctx->baseline && strcmp(im->ph->name, ctx->baseline) == 0 && pass && !ps->base_out) {
            ps->base_out = ps->out;   /* keep the baseline's output for the others */
            ps->out = malloc(ps->in.nq * sizeof *ps->out);
            if (!ps->out) return point_oom(ps);
        }
    }
    *t_after = time_now_s();
    res->checked = 1;
    char line[640];
    snprintf(line, sizeof line, "check  %s rel_l2=%.2e max_abs=%.2e %s", pass ? "PASS" : "FAIL",
             corr->compared ? corr->c.rel_l2 : -1.0, corr->compared ? corr->c.max_abs : -1.0, why);
    progress(ctx, im->ph->name, ps->shape_text, line);
    return pass;
}

/* A correct implementation timed into res->timing, its output checked again, then kept
 * initialised for the point's ratios (*kept_now) or given its derived figures. The
 * failures (0 or 1: wrong after timing), or -1 CUDA failure or out of memory (err). */
static int impl_time(point_session *ps, const loaded_impl *im, void *state, const attn_args *a, size_t ws,
                     result_record *res, double t, int *kept_now)
{
    measure_ctx *ctx = ps->ctx;
    const attn_shape *s = ps->s;
    const time_result *graph = &res->timing.mode[MODE_GRAPH];
    int trc = time_modes(ctx, im, state, a, ps->pt, &ps->d, &res->timing, ps->shape_text, ps->err, ps->errlen);
    step_add(&ps->st, STEP_TIMING, t);
    if (trc) return -1;
    res->timed = 1;
    /* The output of the last timed launch: the same inputs must still give the same
     * function (state kept across calls, e.g. split counters, shows here). */
    int again = recheck_after_timing(ctx, im, s, &ps->d, ps->in.nq, &ps->pr, ps->base_out, ps->out,
                                     &res->correctness, ps->stream, &ps->st, ps->err, ps->errlen);
    if (again < 0) return -1;
    if (!again) progress(ctx, im->ph->name, ps->shape_text, "check  FAIL after timing");
    int is_baseline = ctx->baseline && strcmp(im->ph->name, ctx->baseline) == 0;
    if (graph->n && is_baseline && keep_baseline_timing(ctx, s, graph)) return point_oom(ps);
    if (graph->n && again == 1 && ps->ws_fixed && !*ctx->stop) {
        /* kept initialised: its ratio is measured with the others' at the end */
        ps->kept[ps->n_kept++] = (kept_impl){ im, state, ws, res, graph };
        *kept_now = 1;
    } else if (graph->n) {
        res->derived = measure_derived(ctx, s, graph->samples_us, graph->n, graph->sum.median, NULL, NULL, 0);
        res->has_derived = 1;
    }
    return !again;
}

/* One implementation at the point: its workspace, init, the check, then (correct) its
 * timing; its result appended. The failures (0 to 2), or -1 (err). */
static int measure_impl(point_session *ps, const loaded_impl *im)
{
    const attn_shape *s = ps->s;
    const char *why_not = im->ph->unsupported(s);
    if (why_not) {
        point_unsupported(ps, im, why_not, "unsupported");
        return 0;
    }
    double t = time_now_s();
    size_t ws = im->ph->workspace_bytes(s);
    if (impl_workspace(ps, im, ws)) return 0;
    t = step_add(&ps->st, STEP_DEVICE_MEM, t);
    void *state = NULL;
    int rc = im->ph->init(&state, s);
    t = step_add(&ps->st, STEP_INIT, t);
    if (rc != 0) {
        char why[512];
        snprintf(why, sizeof why, "init failed (%d): %s", rc, im->ph->error_string(rc));
        point_unsupported(ps, im, why, why);
        return 0;
    }
    attn_args a = { ps->d.q, ps->d.k, ps->d.v, ps->d.o, ws ? ps->d.ws : NULL, ps->stream };
    result_record *res = point_record_result(ps->rec);   /* one an implementation: there is room */
    *res = (result_record){ .impl = im->ph->name, .tag = ps->pt->tag, .shape = *s, .supported = 1 };
    const char *note = im->ph->error_string(0);
    if (note) {
        res->has_init_note = 1;
        snprintf(res->init_note, sizeof res->init_note, "%s", note);
    }
    int kept_now = 0, failures = 0;
    int pass = impl_check(ps, im, state, &a, res, t, &t);
    if (pass > 0) failures = impl_time(ps, im, state, &a, ws, res, t, &kept_now);
    if (pass < 0 || failures < 0) {
        point_record_drop_last(ps->rec);   /* a fatal failure: the point stops here */
        im->ph->fini(state);
        return -1;
    }
    failures += !pass;
    t = time_now_s();
    if (!kept_now) im->ph->fini(state);
    step_add(&ps->st, STEP_INIT, t);
    return failures;
}

/* The reference, every implementation, the ratios of those kept, the other inputs. The
 * failures, or -1 (err). */
static int point_measure(point_session *ps)
{
    measure_ctx *ctx = ps->ctx;
    const attn_shape *s = ps->s;
    device_bufs *d = &ps->d;
    int failures = point_ref_build(ctx, ps->pt, "uniform", &ps->in, d, ps->stream, shape_seed(ctx->seed + 1, s),
                                   &ps->pr, ps->rec, &ps->st, ps->err, ps->errlen);
    if (failures < 0) return -1;
    for (size_t i = 0; i < ctx->n_impls && !*ctx->stop; i++) {
        if (ctx->impls[i]->kind == IMPL_FLOOR) continue;
        int f = measure_impl(ps, ctx->impls[i]);
        if (f < 0) return -1;
        failures += f;
    }
    if (ps->n_kept && !*ctx->stop) {
        point_buffers pb = { d->q, d->k, d->v, d->o, d->ws, d->o2, d->o2 ? d->ws2 : NULL, d->copies };
        if (d->ws_bytes && !d->ws2) pb.o2 = NULL;   /* one workspace: one buffer set */
        if (point_ratios(ctx, s, ps->shape_text, &pb, ps->stream, ps->kept, ps->n_kept, &ps->st, ps->err,
                         ps->errlen))
            return -1;
    }
    for (size_t i = 0; i < ps->n_kept; i++) {
        /* cut short by a signal: the kept ones keep their own figures */
        kept_impl *k = &ps->kept[i];
        if (!k->res->has_derived) {
            k->res->derived = measure_derived(ctx, s, k->graph->samples_us, k->graph->n, k->graph->sum.median,
                                              NULL, NULL, 0);
            k->res->has_derived = 1;
        }
    }
    if (ps->pt->extra_inputs && !*ctx->stop) {
        step_times other = { 0 };
        double t = time_now_s();
        int f = check_other_inputs(ctx, ps->pt, d, ps->stream, ps->rec, ps->shape_text, &other, ps->err,
                                   ps->errlen);
        /* the other inputs' own references are theirs too: one bucket */
        ps->st.s[STEP_OTHER_INPUTS] += time_now_s() - t;
        if (f < 0) return -1;
        failures += f;
    }
    return failures;
}

/* The one cleanup, whatever stage stopped; a point measured (failures >= 0) gets its
 * cost.points object and line. */
static void point_close(point_session *ps, int failures)
{
    double t = time_now_s();
    device_bufs *d = &ps->d;
    if (ps->stream) cudaStreamDestroy(ps->stream);
    cudaFree(d->q);
    cudaFree(d->k);
    cudaFree(d->v);
    for (size_t i = 0; i < ps->n_kept; i++) ps->kept[i].im->ph->fini(ps->kept[i].state);
    free(ps->kept);
    cudaFree(d->o);
    cudaFree(d->o2);
    cudaFree(d->ws);
    cudaFree(d->ws2);
    cudaFree(d->ref);
    point_ref_free(&ps->pr);
    free(ps->out);
    free(ps->base_out);
    inputs_free(&ps->in);
    step_add(&ps->st, STEP_DEVICE_MEM, t);
    if (failures >= 0) point_done(ps->ctx, ps->pt, ps->shape_text, ps->t0, &ps->st, ps->rec);
}

int measure_point(measure_ctx *ctx, const shape_point *pt, point_record *rec, char *err, size_t errlen)
{
    point_session ps = { .ctx = ctx, .pt = pt, .s = &pt->s, .rec = rec, .err = err, .errlen = errlen };
    shape_format(ps.s, ps.shape_text, sizeof ps.shape_text);
    if (point_record_init(rec, ctx->n_impls)) {
        snprintf(err, errlen, "out of host memory while measuring %s", ps.shape_text);
        return -1;
    }
    ps.t0 = time_now_s();
    int failures = point_open(&ps);
    if (failures == 0 && !ps.skipped) failures = point_measure(&ps);
    point_close(&ps, failures);
    return failures;
}

/* The baseline's graph samples at s, kept for the ratios of the implementations measured
 * after it (the baseline is measured first at every shape). 0, or -1 out of memory. */
static int keep_baseline_timing(measure_ctx *ctx, const attn_shape *s, const time_result *graph)
{
    if (ctx->n_base == ctx->cap_base) {
        size_t cap = ctx->cap_base ? 2 * ctx->cap_base : 16;
        measure_baseline_timing *b = realloc(ctx->base, cap * sizeof *b);
        if (!b) return -1;
        ctx->base = b;
        ctx->cap_base = cap;
    }
    double *x = malloc(graph->n * sizeof *x);
    if (!x) return -1;
    memcpy(x, graph->samples_us, graph->n * sizeof *x);
    ctx->base[ctx->n_base++] = (measure_baseline_timing){ *s, x, graph->n };
    return 0;
}

void measure_ctx_free(measure_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_base; i++) free(ctx->base[i].samples);
    free(ctx->base);
    ctx->base = NULL;
    ctx->n_base = ctx->cap_base = 0;
}
