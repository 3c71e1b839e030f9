/* report/pages.c: the markdown pages of the report: reports/README.md (per GPU: the
 * run's context, the ladder table at each headline shape, the baselines, the gates,
 * the plots) and reports/phases/<phase>.md (technique, prediction against outcome,
 * profiler metrics, the sweep, the history). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/pages.h"
#include "report/baseline_libs.h"
#include "report/targets.h"
#include "evidence/result_ratio.h"
#include "evidence/run_lists.h"
#include "measure/l2_copies.h"
#include "core/files.h"
#include "core/numfmt.h"
#include "core/text_safe.h"
#include "report/phase_doc.h"
#include "report/ran_kernels.h"


static FILE *open_page(const report_ctx *c, const char *rel, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", c->out, rel);
    FILE *f = fopen(path, "wb");
    if (!f) fprintf(stderr, "attnladder report: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static int close_page(FILE *f, const char *path)
{
    int e = files_close_errno(f, path);
    if (e) {
        fprintf(stderr, "attnladder report: writing %s failed: %s\n", path, strerror(e));
        return -1;
    }
    return 0;
}

/* Free text from evidence (a title, a reason, a kernel's name) as markdown text: no
 * table cell, heading, link or HTML can start in it (core/text_safe.h). Cut, when len
 * is short, at a character's boundary. Never inside a code span: entities show there. */
static const char *cell(const char *s, char *buf, size_t len)
{
    text_escape(buf, len, s, TEXT_MARKDOWN);
    return buf;
}

static void version_text(char *buf, size_t len, long v, int cudnn_style)
{
    if (v <= 0) snprintf(buf, len, "-");
    else if (cudnn_style) snprintf(buf, len, "%ld.%ld.%ld", v / 10000, (v / 100) % 100, v % 100);
    else snprintf(buf, len, "%ld.%ld", v / 1000, (v % 1000) / 10);
}

/* Links from reports/ (depth 0) or reports/phases/ (depth 1) to an evidence file. */
static void evidence_link(const run_data *r, int depth, char *buf, size_t len)
{
    if (r->path[0] == '/') snprintf(buf, len, "%s", r->path);
    else snprintf(buf, len, "%s%s", depth ? "../../" : "../", r->path);
}

/* The run's clocks (reader.h, run_clock_state): the first screen's cell. A run marked
 * throttled for the power cap alone is not called throttled: at the cap is a GPU's state
 * under load (an H100 at 700 W), and the numbers are not low for it. */
static const char *clocks_cell(const run_data *r)
{
    return r->clocks == RUN_CLOCKS_THROTTLED ? "**throttled**"
         : r->clocks == RUN_CLOCKS_POWER_CAP ? "at the power cap" : "not throttled";
}

/* The same in the GPU's section, a sentence that says what showed it (run_cap_basis). */
static const char *clocks_sentence(const run_data *r, char *buf, size_t len)
{
    if (r->clocks == RUN_CLOCKS_THROTTLED) return "**throttled** during the run (the numbers may be low)";
    if (r->clocks != RUN_CLOCKS_POWER_CAP) return "not throttled";
    switch (r->cap_basis) {
    case RUN_CAP_FROM_COUNTERS:
        return "at the power cap (sw_power_cap, the normal state at the board's power limit: NVML's violation "
               "counters grew for the power cap and no other limit; no measurement was throttled)";
    case RUN_CAP_FROM_SAMPLES:
        snprintf(buf, len, "at the power cap (sw_power_cap, the normal state at the board's power limit: the run was "
                 "marked throttled where one process was cut, a snapshot the resumed file does not keep, and the "
                 "clocks read after every timed sample named sw_power_cap in %zu of the %zu timings and rotations "
                 "they watched and no other reason; no measurement was throttled)", r->watched_capped, r->watched);
        return buf;
    default:
        return "at the power cap at the run's start or end (sw_power_cap, the normal state at the board's power "
               "limit; no measurement was throttled)";
    }
}

/* After the clocks' sentence, where the run kept NVML's violation counters: how long the
 * power cap and the other limits held the clocks down, against the run's wall time. */
static void violation_text(const run_data *r, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!r->have_violation) return;
    char pw[32], other[32], wall[48] = "";
    double others = r->violation_s[CLOCK_LIMIT_THERMAL] + r->violation_s[CLOCK_LIMIT_BOARD] +
                    r->violation_s[CLOCK_LIMIT_RELIABILITY];
    snprintf(pw, sizeof pw, "%.1f s", r->violation_s[CLOCK_LIMIT_POWER]);
    snprintf(other, sizeof other, "%.1f s", others);
    if (isfinite(r->cost_wall_s) && r->cost_wall_s > 0) snprintf(wall, sizeof wall, " of its %.1f s", r->cost_wall_s);
    snprintf(buf, len, " Over the run%s, NVML's violation counters: the power cap held the clocks below their "
             "application clocks for %s, thermal, board and reliability limits for %s.", wall, pw, other);
}

/* Why this run stands for the GPU, after the run's line: the file that names it, or the
 * fallback and its reason (evidence/run_lists.h), never left unsaid. */
static void reference_sentence(FILE *f, const report_gpu *g)
{
    const run_data *r = g->ref;
    char dir[2048], err[2200];
    snprintf(dir, sizeof dir, "%.*s", (int)(r->base - r->path), r->path);   /* "<root>/<slug>/" */
    const char *up = r->path[0] == '/' ? "" : "../";
    if (g->ref_bad)
        fprintf(f, ": **no valid reference run** (%s), so the newest complete run stands in.  \n",
                cell(g->ref_err, err, sizeof err));
    else if (g->ref_rule == REFERENCE_FROM_FILE)
        fprintf(f, ", named by [`reference.txt`](%s%sreference.txt).  \n", up, dir);
    else if (g->ref_rule == REFERENCE_FALLBACK_ACCEPTED)
        fprintf(f, ": this GPU has no `reference.txt` yet, so the first run of its [`accepted.txt`](%s%saccepted.txt) "
                "stands in.  \n", up, dir);
    else
        fprintf(f, ": this GPU has neither `reference.txt` nor `accepted.txt` yet, so its newest complete run "
                "stands in.  \n");
}

static void context_paragraph(FILE *f, const report_gpu *g)
{
    const run_data *r = g->ref;
    const run_context *x = &r->ctx;
    char link[2048], rt[32], drv[32], cublas[32], cudnn[32], b1[32], b2[32], b3[32];
    evidence_link(r, 0, link, sizeof link);
    version_text(rt, sizeof rt, x->cuda_runtime, 0);
    version_text(drv, sizeof drv, x->cuda_driver, 0);
    version_text(cublas, sizeof cublas, x->cublas, 1);
    version_text(cudnn, sizeof cudnn, x->cudnn, 1);
    fprintf(f, "%s: [`%s`](%s), %s, commit `%.12s`%s", g->ref_rule == REFERENCE_FROM_FILE ? "Reference run"
            : "Run shown (**not a reference run**)", r->base, link, r->created_utc, r->commit,
            r->dirty ? " (**dirty tree**: uncommitted changes)" : "");
    reference_sentence(f, g);
    fprintf(f, "GPU: %s, %ld SMs, compute capability %ld.%ld. Driver %s (CUDA %s), CUDA runtime %s, "
            "cuBLAS %s, cuDNN %s, nvcc %s.  \n", r->gpu_name, x->sm_count, x->cc_major, x->cc_minor,
            x->driver ? x->driver : "-", drv, rt, cublas, cudnn, x->nvcc ? x->nvcc : "-");
    char rd[64] = "", viol[256], clk[512];
    if (r->read_gbps > 0) snprintf(rd, sizeof rd, ", device read %.0f GB/s", r->read_gbps);
    violation_text(r, viol, sizeof viol);
    fprintf(f, "Measured ceilings: fp16 GEMM %s TFLOP/s, device copy %s GB/s%s, launch floor %s us. "
            "Clocks: %s.%s%s\n", fmt_num(b1, sizeof b1, r->fp16_tflops), fmt_num(b2, sizeof b2, r->dram_gbps), rd,
            fmt_num(b3, sizeof b3, r->launch_floor_us),
            clocks_sentence(r, clk, sizeof clk), viol,
            isfinite(r->cost_wall_s) ? "  " : "\n");
    if (isfinite(r->cost_wall_s)) {
        char w[32], g[32], dev[160] = "";
        if (x->device_index >= 0)
            snprintf(dev, sizeof dev, " on device %ld (%s, CUDA_VISIBLE_DEVICES %s)", x->device_index,
                     x->uuid ? x->uuid : "-", x->cuda_visible_devices ? x->cuda_visible_devices : "unset");
        fprintf(f, "Cost of the run: %s s wall, %s s of timed GPU work in %ld measurements%s.\n\n",
                fmt_num(w, sizeof w, r->cost_wall_s), fmt_num(g, sizeof g, r->cost_gpu_s),
                r->cost_measurements, dev);
    }
}

/* The registers, shared memory and spills of what impl ran at s (report/ran_kernels.h),
 * each cell marked where it is not simply the one kernel's figure (the legend under the
 * first table says how): "(largest of N kernels)" where N kernels ran and differ in it,
 * "(max of N kernels)" where the shape was not profiled and the figure is the largest
 * over the shared object's kernels. */
static void resources_cells(const run_data *r, const run_impl *im, const attn_shape *s,
                            char *regs, char *smem, char *spills, size_t len)
{
    ran_resources k;
    ran_resources_at(r, im, s, &k);
    char varied[48] = "", build[48] = "", summed[32] = "";
    snprintf(varied, sizeof varied, " (largest of %zu kernels)", k.n);
    if (!k.profiled) {
        if (k.n > 1) snprintf(build, sizeof build, " (max of %zu kernels)", k.n);
        else snprintf(build, sizeof build, "%s", k.n == 1 ? " (its only kernel)" : " (max of its kernels)");
        snprintf(summed, sizeof summed, " (sum of its kernels)");
    }
    const char *m_regs = k.profiled ? (k.registers_vary ? varied : "") : build;
    const char *m_smem = k.profiled ? (k.smem_vary ? varied : "") : build;
    const char *m_spills = k.profiled ? (k.spills_vary ? varied : "") : k.spills_summed ? summed : build;
    if (k.registers >= 0) snprintf(regs, len, "%ld%s", k.registers, m_regs);
    else snprintf(regs, len, "-");
    if (k.smem_static >= 0 && k.smem_dynamic >= 0)
        snprintf(smem, len, "%ld + %ld dyn%s", k.smem_static, k.smem_dynamic, m_smem);
    else if (k.smem_static >= 0)
        snprintf(smem, len, "%ld static%s", k.smem_static, m_smem);
    else if (k.smem_dynamic >= 0)
        snprintf(smem, len, "%ld dyn%s", k.smem_dynamic, m_smem);
    else
        snprintf(smem, len, "-");
    if (k.spills >= 0) snprintf(spills, len, "%ld%s", k.spills, m_spills);
    else snprintf(spills, len, "-");
}

/* Under the first table: what the resource columns hold. */
static void resources_legend(FILE *f)
{
    fprintf(f, "Registers (per thread), smem bytes (per block, static + dynamic) and spill bytes are those of "
            "the kernel that ran at the shape: the profiler's launch figures there, and the spills the build "
            "reports for that kernel, found by its name among the kernels of the phase's shared object (\"-\" "
            "where no single one of them has that name: a library's kernel, cuBLAS's or cuDNN's, is in no "
            "phase's build). \"(largest of N kernels)\": N different kernels ran at the shape and differ in "
            "that figure; it is the largest. \"(max of N kernels)\": the shape was not profiled, so the figure "
            "is the largest over the N kernels of the phase's shared object, which need not be the one that ran "
            "(smem then static only).\n\n");
}

/* A step between two rungs timed in the same rotation is within the method's noise when it
 * is within this of x1.00: the same kernel measured twice in one run (rung 10 handing a
 * shape to rung 09) read up to 0.9% apart (H100, paired), and the A/B gate's default
 * tolerance is 1%. A step of separate medians carries the clock's drift and is not marked. */
#define STEP_TIE 0.01
#define TOP_STEP_OVER 0.01   /* issue 52's target: no point more than 1% slower than the best rung below */

/* How many times as fast x is as p (a rung below it, or the first rung): where the run
 * measured both in rotation, the quotient of their paired ratios to the baseline (each
 * timed in the same rounds as the baseline, so the clock's drift cancels); otherwise the
 * quotient of their own sustained medians. */
static double step_speedup(const report_ctx *c, const run_data *r, const run_result *p, const run_result *x)
{
    double rp, rx;
    if (result_pairs_decide(r, p) && result_pairs_decide(r, x) && gate_result_point_ratio(c->cfg, r, p, &rp) == 0 &&
        gate_result_point_ratio(c->cfg, r, x, &rx) == 0 && rx > 0)
        return rp / rx;
    return p->median_us / x->median_us;
}

/* The step of rung x over the rung below it, p: "x1.32"; "x1.01 same kernel" where the two
 * ran one kernel (their init notes at the shape are the same: the step is that kernel
 * measured twice, which has read up to 1.2% apart in one run, H200 build 702dff2's
 * headline); else "x1.00 tie" where both ratios are paired and the step is within
 * STEP_TIE of x1.00. */
static const char *fmt_step(char *buf, size_t len, const report_ctx *c, const run_data *r, const run_result *p,
                            const run_result *x)
{
    double v = step_speedup(c, r, p, x);
    char sp[32];
    fmt_speedup(sp, sizeof sp, v);
    int same = run_same_kernel(p, x);
    int tie = result_pairs_decide(r, p) && result_pairs_decide(r, x) && fabs(v - 1) <= STEP_TIE;
    snprintf(buf, len, "%s%s", sp, same ? " same kernel" : tie ? " tie" : "");
    return buf;
}

/* The ladder table's header; with_gpu adds a first column naming the GPU (the first
 * screen's table holds every GPU). first: the first rung's name, for "vs <first>". */
static void ladder_head(FILE *f, const report_ctx *c, int with_gpu, const char *first)
{
    fprintf(f, "|%s phase | median us [95%% CI] | ratio to %s [95%% CI] | vs previous rung | vs %s | "
            "TFLOP/s | %% of fp16 ceiling | %% of DRAM ceiling | registers | smem bytes | spill bytes | gate |\n",
            with_gpu ? " GPU |" : "", c->cfg->baseline, first ? first : "first rung");
    fprintf(f, "|%s --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
            with_gpu ? " --- |" : "");
}

/* Why current rung i has no row in run r, or NULL when it has one. */
static const char *absent_reason(const report_ctx *c, const run_data *r, size_t i)
{
    if (!c->current[i] || report_rung_in_run(c, r, i)) return NULL;
    return report_rung_in_some_reference(c, i) ? "not yet run on this GPU" : "not in this run";
}

/* The current rungs run r lacks, after its own rows: one row for each stretch of
 * consecutive current rungs absent for the same reason ("[12_x](...) to [21_y](...), 10
 * rungs"), so a GPU whose reference run predates ten rungs shows one line of dashes, not
 * ten; a rung absent alone keeps its own row. */
static void absent_rows(FILE *f, const report_ctx *c, const run_data *r, const char *gpu)
{
    size_t i = 0;
    while (i < c->n_phases) {
        const char *why = absent_reason(c, r, i);
        if (!why) {
            i++;
            continue;
        }
        size_t last = i, n = 1;
        for (size_t k = i + 1; k < c->n_phases; k++) {
            if (!c->current[k]) continue;   /* a former rung between two current ones */
            const char *w = absent_reason(c, r, k);
            if (!w || strcmp(w, why)) break;
            last = k;
            n++;
        }
        if (n == 1)
            fprintf(f, "|%s [%s](phases/%s.md)", gpu, c->phases[i], c->phases[i]);
        else
            fprintf(f, "|%s [%s](phases/%s.md) to [%s](phases/%s.md), %zu rungs", gpu, c->phases[i], c->phases[i],
                    c->phases[last], c->phases[last], n);
        fprintf(f, " | **%s** | - | - | - | - | - | - | - | - | - | - |\n", why);
        i = last + 1;
    }
}

/* The GPU's rows at shape s: every rung of its reference run, then every current rung
 * (phases/) the run lacks, said so. */
static void ladder_rows(FILE *f, const report_ctx *c, const report_gpu *g, const attn_shape *s, int with_gpu)
{
    const run_data *r = g->ref;
    const run_result *first = report_first_rung(c, r, s);
    char gpu[300] = "";
    if (with_gpu) snprintf(gpu, sizeof gpu, " [%.200s](#%.80s) |", g->gpu_name, g->slug);
    for (size_t i = 0; i < c->n_phases; i++) {
        const char *ph = c->phases[i];
        const run_impl *im = run_find_impl(r, ph);
        if (!im || strcmp(im->kind, "phase") != 0) continue;
        const run_result *x = run_find(r, ph, s);
        char verdict[256], vcell[260], med[32], ci[64], rat[32], rci[64], prev[48], sc[32], tf[32],
             fp[32], fd[32], regs[96], smem[96], spills[96], why[200];
        if (g->gate_ok) gate_phase_verdict(&g->ladder, ph, s, verdict, sizeof verdict);
        else snprintf(verdict, sizeof verdict, "-");
        cell(verdict, vcell, sizeof vcell);
        resources_cells(r, im, s, regs, smem, spills, sizeof regs);
        if (!x || !x->timed) {
            const char *reason = !x ? "not measured" : !x->supported ? (x->reason ? x->reason : "unsupported")
                               : x->checked && !x->correct ? "**failed correctness**" : "not timed";
            fprintf(f, "|%s [%s](phases/%s.md) | %s | - | - | - | - | - | - | %s | %s | %s | %s |\n", gpu, ph, ph,
                    cell(reason, why, sizeof why), regs, smem, spills, vcell);
            continue;
        }
        double ratio = NAN, lo = NAN, hi = NAN;
        gate_result_ratio(c->cfg, r, x, &ratio, &lo, &hi);
        const run_result *p = report_previous_rung(c, r, ph, s);
        char now[160] = "";
        if (c->successor[i] >= 0) snprintf(now, sizeof now, " (now %s)", c->phases[c->successor[i]]);
        fprintf(f, "|%s [%s](phases/%s.md)%s | %s %s | %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                gpu, ph, ph, now, fmt_num(med, sizeof med, x->median_us),
                fmt_ci(ci, sizeof ci, x->ci_lo_us, x->ci_hi_us), fmt_num(rat, sizeof rat, ratio),
                fmt_ci(rci, sizeof rci, lo, hi),
                p ? fmt_step(prev, sizeof prev, c, r, p, x) : "-",
                first && first != x ? fmt_speedup(sc, sizeof sc, step_speedup(c, r, first, x)) : "-",
                fmt_num(tf, sizeof tf, x->tflops), fmt_pct(fp, sizeof fp, x->frac_fp16_peak),
                fmt_pct(fd, sizeof fd, x->frac_dram), regs, smem, spills, vcell);
    }
    absent_rows(f, c, r, gpu);
}

static void ladder_table(FILE *f, const report_ctx *c, const report_gpu *g, const attn_shape *s)
{
    char text[96];
    run_shape_text(s, text, sizeof text);
    const run_result *first = report_first_rung(c, g->ref, s);
    fprintf(f, "#### %s\n\n", text);
    ladder_head(f, c, 0, first ? first->impl : NULL);
    ladder_rows(f, c, g, s, 0);
    fprintf(f, "\n");
}

/* The rest of a table's head after its first cell: a column a shape, numbers right-aligned. */
static void shape_columns_head(FILE *f, const attn_shape *shapes, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char text[96];
        run_shape_text(&shapes[k], text, sizeof text);
        fprintf(f, " %s |", text);
    }
    fprintf(f, "\n| --- |");
    for (size_t k = 0; k < n; k++) fprintf(f, " ---: |");
    fprintf(f, "\n");
}

/* The GPUs the accepted runs ran on, told apart by their UUIDs; a run that recorded none
 * counts as one more (its machine is unknown). */
static size_t set_machines(const report_gpu *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n_set; i++) {
        const char *u = g->set[i]->ctx.uuid;
        size_t k = 0;
        while (u && k < i && !(g->set[k]->ctx.uuid && strcmp(g->set[k]->ctx.uuid, u) == 0)) k++;
        n += !u || k == i;
    }
    return n;
}

/* One rung at one shape across the accepted runs: the lowest and highest ratio and the
 * runs they came from. 0 when at least two runs timed it, else -1. */
static int set_range(const report_ctx *c, const report_gpu *g, const char *ph, const attn_shape *s,
                     double *lo, const run_data **rlo, double *hi, const run_data **rhi)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n_set; i++) {
        const run_result *x = run_find(g->set[i], ph, s);
        double v;
        if (!x || !x->timed || gate_result_point_ratio(c->cfg, g->set[i], x, &v)) continue;
        if (!n || v < *lo) {
            *lo = v;
            *rlo = g->set[i];
        }
        if (!n || v > *hi) {
            *hi = v;
            *rhi = g->set[i];
        }
        n++;
    }
    return n >= 2 ? 0 : -1;
}

/* The shapes the between-sessions table shows: the headline and throughput shapes (the
 * regimes the method is read in: a launch of microseconds, and one of a millisecond), those
 * at which some rung has a range; *n of them. */
static void session_shapes(const report_ctx *c, const report_gpu *g, attn_shape *out, size_t *n)
{
    *n = 0;
    for (size_t k = 0; k < c->cfg->n_headline + c->cfg->n_throughput; k++) {
        const attn_shape *s = k < c->cfg->n_headline ? &c->cfg->headline[k]
                                                     : &c->cfg->throughput[k - c->cfg->n_headline];
        int any = 0;
        for (size_t i = 0; i < c->n_phases && !any; i++) {
            double lo, hi;
            const run_data *rlo, *rhi;
            any = set_range(c, g, c->phases[i], s, &lo, &rlo, &hi, &rhi) == 0;
        }
        if (any) out[(*n)++] = *s;
    }
}

/* Each rung's ratio at the headline and throughput shapes across the GPU's accepted runs
 * (separate sessions, perhaps other machines of the model): the lowest, the highest and
 * their quotient, how far apart sessions of the same code read: the spread to read a
 * fresh run against. The drift gate's tolerance comes from the same spread. Nothing with
 * fewer than two accepted runs. */
static void sessions_table(FILE *f, const report_ctx *c, const report_gpu *g)
{
    attn_shape shapes[2 * GATE_MAX_HEADLINE];
    size_t n_shapes;
    if (g->n_set < 2) return;
    session_shapes(c, g, shapes, &n_shapes);
    if (!n_shapes) return;
    size_t machines = set_machines(g), paired = 0;
    for (size_t i = 0; i < g->n_set; i++) paired += g->set[i]->ratio_rotation != 0;
    char how[96];
    if (paired == g->n_set) snprintf(how, sizeof how, "ratios paired in all %zu", g->n_set);
    else if (!paired) snprintf(how, sizeof how, "ratios of separate medians in all %zu", g->n_set);
    else snprintf(how, sizeof how, "ratios paired in %zu, of separate medians in %zu", paired, g->n_set - paired);
    fprintf(f, "#### Between sessions\n\nEach rung's ratio to `%s` in the %zu accepted runs (`accepted.txt`; %s) "
            "on %zu GPU%s of this model, at the headline and throughput shapes: the lowest and the highest, and "
            "their quotient. That is how far separate sessions of the same code have read apart, the spread to "
            "read a fresh run against; the drift gate's tolerance is drawn from it.\n\n| phase |",
            c->cfg->baseline, g->n_set, how, machines, machines == 1 ? "" : "s");
    shape_columns_head(f, shapes, n_shapes);
    for (size_t i = 0; i < c->n_phases; i++) {
        const char *ph = c->phases[i];
        char row[2048];
        size_t len = (size_t)snprintf(row, sizeof row, "| [%s](phases/%s.md) |", ph, ph);
        int any = 0;
        for (size_t k = 0; k < n_shapes && len < sizeof row; k++) {
            double lo, hi;
            const run_data *rlo, *rhi;
            char a[32], b[32], e[32];
            if (set_range(c, g, ph, &shapes[k], &lo, &rlo, &hi, &rhi)) {
                len += (size_t)snprintf(row + len, sizeof row - len, " - |");
                continue;
            }
            any = 1;
            len += (size_t)snprintf(row + len, sizeof row - len, " %s-%s (%s) |", fmt_num(a, sizeof a, lo),
                                    fmt_num(b, sizeof b, hi), fmt_change(e, sizeof e, hi / lo));
        }
        if (any) fprintf(f, "%s\n", row);
    }
    fprintf(f, "\n");
}

/* The top rung against the best rung below at every point it was paired (targets.h): the
 * ladder's promise that a new rung is slower nowhere, read from the run. */
static void top_step_paragraph(FILE *f, const run_data *r)
{
    report_top_step t;
    if (report_top_rung_step(r, TOP_STEP_OVER, &t)) return;
    char at[96];
    run_shape_text(&t.worst_at, at, sizeof at);
    fprintf(f, "The top rung, `%s`, against the best rung below it at each of the %zu points where it was "
            "paired (rungs whose init notes are equal at a point run one kernel and count once, at the median "
            "of their paired ratios, the top rung among its own kernel's, so that the lowest of several "
            "readings of one kernel is not taken for a faster kernel): ", t.top, t.points);
    if (t.worst > 0)
        fprintf(f, "at most %+.2f%% slower (%s); %zu point(s) more than %.0f%% slower.", 100 * t.worst, at, t.over,
                100 * TOP_STEP_OVER);
    else
        fprintf(f, "faster at every point, by at least %.2f%% (%s).", -100 * t.worst, at);
    if (t.one_kernel) fprintf(f, " At %zu more, every rung below with a ratio runs its kernel.", t.one_kernel);
    fprintf(f, "\n\n");
}

/* Each rung against the rung below it in the run, at a fixed list of shapes
 * (report_step_shapes): the staircase a reader climbs, one idea per step. A shape the run
 * did not time for two rungs is named, not shown as a column of dashes. */
static void steps_table(FILE *f, const report_ctx *c, const run_data *r)
{
    attn_shape all[16], shown[16];
    size_t n_all = report_step_shapes(c, all, 16), n = 0;
    char missing[1024] = "";
    for (size_t k = 0; k < n_all; k++) {
        size_t timed = 0;
        for (size_t i = 0; i < c->n_phases; i++) {
            const run_result *x = run_find(r, c->phases[i], &all[k]);
            timed += x && x->timed;
        }
        char text[96];
        run_shape_text(&all[k], text, sizeof text);
        if (timed >= 2) {
            shown[n++] = all[k];
        } else {
            size_t l = strlen(missing);
            snprintf(missing + l, sizeof missing - l, "%s%s", l ? ", " : "", text);
        }
    }
    fprintf(f, "### Each rung against the rung below\n\n");
    fprintf(f, "The speedup of each rung over the rung below it (the next lower rung timed at that shape in "
            "this run; x1.40: 1.40 times as fast): the quotient of their paired ratios to %s where the run "
            "timed them in rotation, else of their median latencies; and the rung's TFLOP/s. \"tie\": a paired "
            "step within 1%% of x1.00, no larger than the same kernel measured twice in one run has read apart "
            "(a step of separate medians also carries the clock's drift, up to several percent, and is not "
            "marked). \"same kernel\": the two rungs' init notes at the shape are the same (one ran the other's "
            "kernel), so the step, whatever its size, is one kernel measured twice.", c->cfg->baseline);
    if (missing[0]) fprintf(f, " Not timed for two rungs in this run: %s.", missing);
    fprintf(f, "\n\n");
    if (!n) return;
    fprintf(f, "| rung |");
    shape_columns_head(f, shown, n);
    for (size_t i = 0; i < c->n_phases; i++) {
        const run_impl *im = run_find_impl(r, c->phases[i]);
        if (!im || strcmp(im->kind, "phase") != 0) continue;
        fprintf(f, "| [%s](phases/%s.md)%s%s%s |", c->phases[i], c->phases[i], c->successor[i] >= 0 ? " (now " : "",
                c->successor[i] >= 0 ? c->phases[c->successor[i]] : "", c->successor[i] >= 0 ? ")" : "");
        for (size_t k = 0; k < n; k++) {
            const run_result *x = run_find(r, c->phases[i], &shown[k]);
            const run_result *p = x && x->timed ? report_previous_rung(c, r, c->phases[i], &shown[k]) : NULL;
            char sp[48], tf[32];
            if (!x || !x->timed)
                fprintf(f, " - |");
            else if (!p)
                fprintf(f, " (%s TFLOP/s) |", fmt_num(tf, sizeof tf, x->tflops));
            else
                fprintf(f, " %s (%s TFLOP/s) |", fmt_step(sp, sizeof sp, c, r, p, x), fmt_num(tf, sizeof tf, x->tflops));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
    top_step_paragraph(f, r);
}

/* An external baseline's row: its time and TFLOP/s are the run baseline's time times its
 * paired ratio (baseline_libs.h), never its own process's clock; the "what" cell says how
 * the ratio was taken. */
static void external_row(FILE *f, const run_data *r, const run_result *x, const char *name, const char *text,
                         double ratio, double lo, double hi, const char *title)
{
    char med[32], rat[32], rci[64], tf[32], fp[32];
    double us = NAN;
    report_external_time(r, x, &us);
    double tflops = isfinite(us) ? x->flops / (us * 1e-6) / 1e12 : NAN;
    external_source src = report_external_source(r, x);
    fprintf(f, "| %s | external | %s | %s (%s) | %s %s | %s | %s | %s%s |\n", name, text,
            fmt_num(med, sizeof med, us), src == EXTERNAL_OLD_METHOD ? "old method" : "paired", fmt_num(rat, sizeof rat, ratio), fmt_ci(rci, sizeof rci, lo, hi),
            fmt_num(tf, sizeof tf, tflops),
            fmt_pct(fp, sizeof fp, r->fp16_tflops > 0 ? tflops / r->fp16_tflops : NAN), title,
            src == EXTERNAL_OLD_METHOD ? "; old method: ratio to the C baseline on PyTorch's cuDNN"
            : src == EXTERNAL_NO_RATIO ? "; no paired ratio" : "; through the bridge");
}

static void baselines_table(FILE *f, const report_ctx *c, const run_data *r)
{
    fprintf(f, "#### Baselines at the headline shapes\n\n");
    fprintf(f, "| implementation | kind | shape | median us [95%% CI] | ratio to %s [95%% CI] | TFLOP/s | "
            "%% of fp16 ceiling | what |\n", c->cfg->baseline);
    fprintf(f, "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n");
    for (size_t h = 0; h < c->cfg->n_headline; h++) {
        const attn_shape *s = &c->cfg->headline[h];
        char text[96], med[32], ci[64], rat[32], rci[64], tf[32], fp[32], title[256];
        run_shape_text(s, text, sizeof text);
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < r->n_impls; i++) {
                const run_impl *im = &r->impls[i];
                int is_base = strcmp(im->kind, "baseline") == 0, is_ext = strcmp(im->kind, "external") == 0;
                if (pass == 0 ? !is_base : !is_ext) continue;
                const run_result *x = run_find(r, im->name, s);
                if (!x) continue;
                cell(im->title, title, sizeof title);
                if (!x->timed) {
                    char why[200];
                    fprintf(f, "| %s | %s | %s | %s | - | - | - | %s |\n", im->name, im->kind, text,
                            cell(!x->supported ? (x->reason ? x->reason : "unsupported") : "not timed",
                                 why, sizeof why), title);
                    continue;
                }
                double ratio = NAN, lo = NAN, hi = NAN;
                gate_result_ratio(c->cfg, r, x, &ratio, &lo, &hi);
                if (is_ext) {
                    external_row(f, r, x, im->name, text, ratio, lo, hi, title);
                    continue;
                }
                fprintf(f, "| %s | %s | %s | %s %s | %s %s | %s | %s | %s |\n", im->name, im->kind, text,
                        fmt_num(med, sizeof med, x->median_us), fmt_ci(ci, sizeof ci, x->ci_lo_us, x->ci_hi_us),
                        fmt_num(rat, sizeof rat, ratio), fmt_ci(rci, sizeof rci, lo, hi),
                        fmt_num(tf, sizeof tf, x->tflops), fmt_pct(fp, sizeof fp, x->frac_fp16_peak), title);
            }
        double fl = report_physical_floor_us(r, s);
        fprintf(f, "| physical floor | model | %s | %s | - | - | - | max(FLOPs / fp16 ceiling, "
                "bytes / DRAM ceiling) + launch floor |\n", text, fmt_num(med, sizeof med, fl));
    }
    fprintf(f, "\n");
}

static void drift_lines(FILE *f, const report_ctx *c, const report_gpu *g);

static void gate_section(FILE *f, const report_ctx *c, const report_gpu *g)
{
    fprintf(f, "#### Gate\n\n");
    if (!g->gate_ok) {
        char e[700];
        fprintf(f, "Ladder gate: **not evaluated**: %s\n\n", cell(g->gate_err, e, sizeof e));
    } else {
        fprintf(f, "Ladder gate (bounds in `%s` on the ratio's CI upper end at the headline shapes, and "
                "correctness on every claimed shape): **%s** (%zu checks).\n", c->cfg->path,
                g->ladder.failures ? "FAIL" : "pass", g->ladder.n);
        for (size_t i = 0; i < g->ladder.n; i++) {
            const gate_check *k = &g->ladder.checks[i];
            if (k->pass) continue;
            char text[96] = "", m[400];
            if (k->has_shape) run_shape_text(&k->shape, text, sizeof text);
            fprintf(f, "- %s%s%s: %s\n", k->phase, text[0] ? " at " : "", text, cell(k->message, m, sizeof m));
        }
        fprintf(f, "\n");
    }
    drift_lines(f, c, g);
}

/* The failed checks of a comparison, one line each. */
static void failed_checks(FILE *f, const gate_outcome *o)
{
    for (size_t i = 0; i < o->n; i++) {
        const gate_check *k = &o->checks[i];
        if (k->pass) continue;
        char text[96] = "", m[1400];
        if (k->has_shape) run_shape_text(&k->shape, text, sizeof text);
        fprintf(f, "- %s%s%s: %s\n", k->phase, text[0] ? " at " : "", text, cell(k->message, m, sizeof m));
    }
}

/* The drift rule on the reference run: against the accepted run (the pair `compare` and
 * `gate --against` judge, row for row), or, when it is the accepted run, against the rest
 * of the set (the drift gate of the workflow). */
static void drift_lines(FILE *f, const report_ctx *c, const report_gpu *g)
{
    char e[1400], missing[160] = "";
    if (g->set_missing)
        snprintf(missing, sizeof missing, " (%zu run%s it names %s not among the readable evidence)", g->set_missing,
                 g->set_missing == 1 ? "" : "s", g->set_missing == 1 ? "is" : "are");
    if (!g->accepted_name[0]) {
        fprintf(f, "Drift: no accepted runs yet (`%s/%s/accepted.txt`), nothing to hold this run against.\n\n",
                c->evidence_root, g->slug);
    } else if (!g->accepted) {
        fprintf(f, "Drift: the accepted run `%s` is not among the readable evidence of this GPU.\n\n",
                g->accepted_name);
    } else if (g->reg_state < 0 || g->drift_state < 0) {
        fprintf(f, "Drift against the accepted set: **not evaluated**: %s\n\n", cell(g->reg_err, e, sizeof e));
    } else if (g->reg_state > 0) {
        size_t counts[4] = { 0 };
        for (size_t i = 0; i < g->reg.n; i++)
            if (g->reg.checks[i].kind == CHECK_REGRESSION && g->reg.checks[i].has_shape)
                counts[g->reg.checks[i].verdict]++;
        fprintf(f, "Drift against the accepted run `%s` (`attnladder gate %s --against %s` and `attnladder compare` "
                "of the pair judge it row for row alike; tolerances from the other %zu run%s of `accepted.txt`%s): "
                "**%s** (%zu slower, %zu faster, %zu unsure, %zu within).\n", g->accepted_name, g->ref->base,
                g->accepted_name, g->set_runs, g->set_runs == 1 ? "" : "s", missing, g->reg.failures ? "FAIL" : "pass",
                counts[DRIFT_SLOWER], counts[DRIFT_FASTER], counts[DRIFT_UNSURE], counts[DRIFT_WITHIN]);
        failed_checks(f, &g->reg);
        fprintf(f, "\n");
    } else if (g->drift_state > 0) {
        size_t counts[4] = { 0 };
        for (size_t i = 0; i < g->drift.n; i++) counts[g->drift.rows[i].verdict]++;
        fprintf(f, "This run is the accepted run. Drift gate against the other %zu run%s of `accepted.txt`%s "
                "(`attnladder gate %s --against accepted`): **%s** (%zu slower, %zu faster, %zu unsure, %zu "
                "within).\n\n", g->drift.n_refs, g->drift.n_refs == 1 ? "" : "s", missing, g->ref->base,
                !g->drift.judged ? "not judged: too few runs" : g->drift.slower ? "FAIL" : "pass",
                counts[DRIFT_SLOWER], counts[DRIFT_FASTER], counts[DRIFT_UNSURE], counts[DRIFT_WITHIN]);
    } else {
        fprintf(f, "Drift against the accepted run `%s`: not evaluated (the ladder gate could not be).\n\n",
                g->accepted_name);
    }
}

static void plot_img(FILE *f, const char *dir, const char *slug, const char *what, const char *alt)
{
    char name[512];
    report_plot_name(name, sizeof name, slug, what);
    fprintf(f, "![%s](%splots/%s)\n\n", alt, dir, name);
}

/* Where a rung or the baseline read K and V cold (rotated copies, or K and V many times
 * the L2) faster than the device copies: a copy writes as many bytes as it reads and a
 * decode step only reads, so the copy's rate bounds a copy, not a read stream. Where the
 * run measured the read stream's ceiling, the note gives the fastest cold read as a share
 * of it (a figure past it by more than the slack is flagged and drawn apart, like an L2
 * figure); before it, it says that no read ceiling was measured. Nothing when no cold read
 * passes the copy and no read ceiling was measured. */
static void cold_reads_note(FILE *f, const run_data *r)
{
    if (!(r->dram_gbps > 0)) return;
    long n = 0, cold = 0, over_read = 0;
    double worst = 0, best_read = 0;
    const run_result *w = NULL, *b = NULL;
    for (size_t k = 0; k < r->n_results; k++) {
        const run_result *x = &r->results[k];
        if (!x->timed || !x->tag || strcmp(x->tag, "decode") || !isfinite(x->gbps)) continue;
        if (x->l2_state != L2_ROTATED && x->l2_state != L2_COLD_BY_SIZE) continue;
        const run_impl *im = run_find_impl(r, x->impl);
        if (!im || !strcmp(im->kind, "external")) continue;   /* timed in another process */
        cold++;
        over_read += x->above_ceiling;
        if (!b || x->gbps > best_read) {
            best_read = x->gbps;
            b = x;
        }
        double over = x->gbps / r->dram_gbps - 1;
        if (!(over > 0)) continue;
        if (!n++ || over > worst) {
            worst = over;
            w = x;
        }
    }
    int have_read = r->read_gbps > 0;
    if (!n && !(have_read && cold)) return;
    char shape[96];
    if (!have_read) {
        run_shape_text(&w->shape, shape, sizeof shape);
        fprintf(f, "Cold reads past the copy: at %ld of the decode points a rung or the baseline read K and V "
                "(cold in L2) faster than the device copies, %.0f GB/s, by up to %+.1f%% (%s at %s): a copy "
                "writes as many bytes as it reads and a decode step only reads, so the copy's rate bounds a copy, "
                "not a read stream; this run measured no read-only ceiling.\n\n",
                n, r->dram_gbps, 100 * worst, w->impl, shape);
        return;
    }
    run_shape_text(&b->shape, shape, sizeof shape);
    fprintf(f, "Cold reads against the read ceiling: a decode step only reads K and V, so its ceiling is the "
            "device's read stream, measured at %.0f GB/s (a copy, which writes as many bytes as it reads, "
            "runs at %.0f GB/s). The fastest cold read of a rung or the baseline is %.1f%% of it (%s at %s, "
            "%.0f GB/s)", r->read_gbps, r->dram_gbps, 100 * best_read / r->read_gbps, b->impl, shape, best_read);
    if (n) fprintf(f, "; %ld of the %ld cold decode figures pass the copy's rate", n, cold);
    if (over_read)
        fprintf(f, "; %ld %s the read ceiling by more than %.0f%%: not DRAM figures, drawn apart", over_read,
                over_read == 1 ? "passes" : "pass", 100 * RUN_CEILING_SLACK);
    else if (best_read > r->read_gbps)   /* past it within the slack: say by how much, not "none" */
        fprintf(f, "; the fastest passes it by %.1f%%, within the %.0f%% its measurement allows (the median of "
                "ten reads): none passes it by more", 100 * (best_read / r->read_gbps - 1), 100 * RUN_CEILING_SLACK);
    else
        fprintf(f, "; none passes the read ceiling");
    fprintf(f, ".\n\n");
}

/* The decode plot, or, for a reference run from before the decode sweep (no plot is
 * drawn: it would be empty, a gap), one line saying so and what adds the points. */
static void decode_plot_or_note(FILE *f, const report_gpu *g)
{
    if (report_has_decode(g->ref, 0))
        plot_img(f, "", g->slug, "decode", "achieved GB/s against seq_kv at the decode points, with the device "
                 "copy ceiling");
    else
        fprintf(f, "No decode plot: this reference run predates the decode sweep (`attnladder run --sweep`, "
                "which `make run` runs on the GPU, adds its points).\n\n");
    if (report_has_decode(g->ref, 1))
        plot_img(f, "", g->slug, "decode_batched", "achieved GB/s against seq_kv at the batched decode points, "
                 "with the device copy ceiling");
    else if (report_has_decode(g->ref, 0))
        fprintf(f, "No batched-decode plot: this reference run predates the batched decode points (batch 4-32; "
                "`attnladder run --sweep` adds them).\n\n");
    cold_reads_note(f, g->ref);
}

/* A measured number with its unit, or "not measured" (a run made with --no-ceilings). */
static const char *unit(char *buf, size_t len, double x, const char *u)
{
    char n[32];
    if (isfinite(x) && x > 0) snprintf(buf, len, "%s %s", fmt_num(n, sizeof n, x), u);
    else snprintf(buf, len, "not measured");
    return buf;
}

/* One line per GPU: the run its tables come from, with what a reader needs to trust the
 * numbers (date, commit, the measured ceilings, the clocks). */
static void runs_table(FILE *f, const report_ctx *c)
{
    fprintf(f, "| GPU | run the tables and plots come from | date (UTC) | commit | ratios | fp16 GEMM | device copy | "
            "launch floor | clocks |\n| --- | --- | --- | --- | --- | ---: | ---: | ---: | --- |\n");
    for (size_t i = 0; i < c->n_gpus; i++) {
        const report_gpu *g = &c->gpus[i];
        const run_data *r = g->ref;
        if (!r) {
            fprintf(f, "| [%s](#%s) | only partial (interrupted) runs so far | - | - | - | - | - | - | - |\n",
                    g->gpu_name, g->slug);
            continue;
        }
        char link[2048], b1[48], b2[48], b3[48];
        evidence_link(r, 0, link, sizeof link);
        fprintf(f, "| [%s](#%s) | [`%s`](%s) %s | %.10s %.8s | `%.12s`%s | %s | %s | %s | %s | %s |\n",
                g->gpu_name, g->slug, r->base, link,
                g->ref_rule == REFERENCE_FROM_FILE && !g->ref_bad ? "(the reference run)"
                : "(**not a reference run**, below)", r->created_utc, r->created_utc + (strlen(r->created_utc) > 11 ? 11 : 0),
                r->commit, r->dirty ? " (dirty)" : "",
                r->ratio_rotation ? "paired (rotation)" : "separate medians", unit(b1, sizeof b1, r->fp16_tflops, "TFLOP/s"),
                unit(b2, sizeof b2, r->dram_gbps, "GB/s"), unit(b3, sizeof b3, r->launch_floor_us, "us"),
                clocks_cell(r));
    }
    fprintf(f, "\n");
}

/* The rungs, in order, and the former ones with where they went. */
static void rungs_line(FILE *f, const report_ctx *c)
{
    fprintf(f, "Rungs:");
    size_t k = 0;
    for (size_t i = 0; i < c->n_phases; i++)
        if (c->current[i]) fprintf(f, "%s [%s](phases/%s.md)", k++ ? "," : "", c->phases[i], c->phases[i]);
    int former = 0;
    for (size_t i = 0; i < c->n_phases; i++) {
        if (c->current[i]) continue;
        fprintf(f, "%s [%s](phases/%s.md)", former++ ? "," : ". Former rungs, in older runs:", c->phases[i],
                c->phases[i]);
        if (c->successor[i] >= 0)
            fprintf(f, " (now [%s](phases/%s.md))", c->phases[c->successor[i]], c->phases[c->successor[i]]);
    }
    fprintf(f, ".\n\n");
}

/* A GPU's section of the README: its reference run's context, ladder, sessions, steps,
 * the rungs against the baseline, the baselines and gates, the plots, the history. */
static void gpu_section(FILE *f, const report_ctx *c, const report_gpu *g)
{
    fprintf(f, "## %s\n\n", g->gpu_name);
    if (!g->ref) {
        fprintf(f, "Only partial (interrupted) runs so far.\n\n");
        return;
    }
    context_paragraph(f, g);
    fprintf(f, "### Ladder\n\n");
    for (size_t h = 0; h < c->cfg->n_headline; h++) ladder_table(f, c, g, &c->cfg->headline[h]);
    sessions_table(f, c, g);
    report_targets_paragraph(f, c, g);
    steps_table(f, c, g->ref);
    report_vs_baseline_table(f, c, g->ref);
    plot_img(f, "", g->slug, "versus", "each rung's ratio to the baseline at every point of the run: geometric "
             "mean, lowest to highest, and how many points at or below 1.00");
    fprintf(f, "### Baselines and gates\n\n");
    report_libraries_paragraph(f, c, g->ref);
    baselines_table(f, c, g->ref);
    gate_section(f, c, g);
    fprintf(f, "### Plots\n\n");
    plot_img(f, "", g->slug, "waterfall", "speedup waterfall over the first rung");
    plot_img(f, "", g->slug, "roofline", "roofline: achieved TFLOP/s against arithmetic intensity");
    plot_img(f, "", g->slug, "latency-d64", "latency against sequence length, D = 64");
    plot_img(f, "", g->slug, "latency-d128", "latency against sequence length, D = 128");
    plot_img(f, "", g->slug, "tflops-d64", "TFLOP/s against sequence length, D = 64");
    plot_img(f, "", g->slug, "tflops-d128", "TFLOP/s against sequence length, D = 128");
    decode_plot_or_note(f, g);
    fprintf(f, "History: %zu run%s of this GPU (", g->n_runs, g->n_runs == 1 ? "" : "s");
    for (size_t k = 0; k < g->n_runs; k++) {
        char link[2048];
        evidence_link(&g->runs[k], 0, link, sizeof link);
        fprintf(f, "%s[`%s`](%s)%s", k ? ", " : "", g->runs[k].base, link, g->runs[k].partial ? " (partial)" : "");
    }
    fprintf(f, "); each phase page plots its ratio across them.\n\n");
}

int report_write_readme(const report_ctx *c)
{
    char path[4096];
    FILE *f = open_page(c, "README.md", path, sizeof path);
    if (!f) return -1;
    size_t runs = 0;
    for (size_t i = 0; i < c->n_gpus; i++) runs += c->gpus[i].n_runs;
    fprintf(f, "# attnladder: results\n\n");
    fprintf(f, "Generated by `attnladder report` from the %zu evidence run%s under `%s/` and the phase "
            "READMEs; do not edit by hand (`make test` regenerates it and fails on any difference). "
            "Latencies are per launch, CUDA-graph mode, each implementation timed alone; every CI is a 95%% "
            "bootstrap interval; ratios are to `%s` measured in the same run: paired where the GPU's table "
            "below says so (every implementation of a point timed again in rotation, the ratio the median of "
            "per-round quotients, so the GPU's clock cancels), else the quotient of the two separate "
            "medians.\n\n", runs, runs == 1 ? "" : "s", c->evidence_root,
            c->cfg->baseline);
    if (!c->n_gpus) {
        fprintf(f, "No evidence yet: run `make run` on a GPU machine and commit the file it writes under "
                "`evidence/<gpu>/`.\n");
        return close_page(f, path);
    }
    /* the first screen: which runs, the ladder of every GPU at the headline shape, its plots */
    runs_table(f, c);
    const attn_shape *h0 = &c->cfg->headline[0];
    char text[96];
    run_shape_text(h0, text, sizeof text);
    const run_result *first = NULL;
    for (size_t i = 0; i < c->n_gpus && !first; i++)
        if (c->gpus[i].ref) first = report_first_rung(c, c->gpus[i].ref, h0);
    fprintf(f, "### The ladder at %s, every GPU\n\n", text);
    ladder_head(f, c, 1, first ? first->impl : NULL);
    for (size_t i = 0; i < c->n_gpus; i++)
        if (c->gpus[i].ref) ladder_rows(f, c, &c->gpus[i], h0, 1);
    fprintf(f, "\n");
    resources_legend(f);
    for (size_t i = 0; i < c->n_gpus; i++) {
        char name[512];
        if (!c->gpus[i].ref) continue;
        report_plot_name(name, sizeof name, c->gpus[i].slug, "ladder");
        fprintf(f, "![%s: median latency per rung against the baseline and the physical floor](plots/%s) ",
                c->gpus[i].gpu_name, name);
    }
    fprintf(f, "\n\n");
    rungs_line(f, c);
    for (size_t i = 0; i < c->n_gpus; i++) gpu_section(f, c, &c->gpus[i]);
    return close_page(f, path);
}

/* ---- phase pages ------------------------------------------------------------------------- */

static void quote_section(FILE *f, const char *text, const char *heading, const char *phase,
                          const char *phases_dir)
{
    if (text) fprintf(f, "%s\n", text);
    else fprintf(f, "_`%s/%s/README.md` has no \"## %s\" section._\n\n", phases_dir, phase, heading);
}

static void measured_table(FILE *f, const report_ctx *c, const char *rung)
{
    size_t in = 0;
    for (size_t i = 0; i < c->n_gpus; i++) in += c->gpus[i].ref && report_name_in_run(c, c->gpus[i].ref, rung);
    if (!in) {
        fprintf(f, "Not in any GPU's reference run yet.\n\n");
        return;
    }
    fprintf(f, "| GPU | shape | median us [95%% CI] | ratio to %s [95%% CI] | vs previous rung | TFLOP/s | gate |\n",
            c->cfg->baseline);
    fprintf(f, "| --- | --- | ---: | ---: | ---: | ---: | --- |\n");
    size_t rows = 0;
    for (size_t i = 0; i < c->n_gpus; i++) {
        const report_gpu *g = &c->gpus[i];
        /* the rung under its name in this run: a former one in an older run */
        const char *phase = g->ref ? report_name_in_run(c, g->ref, rung) : NULL;
        if (!phase) continue;
        for (size_t h = 0; h < c->cfg->n_headline; h++) {
            const attn_shape *s = &c->cfg->headline[h];
            const run_result *x = run_find(g->ref, phase, s);
            char text[96], med[32], ci[64], rat[32], rci[64], prev[48], tf[32], v[256], vc[260];
            run_shape_text(s, text, sizeof text);
            if (g->gate_ok) gate_phase_verdict(&g->ladder, phase, s, v, sizeof v);
            else snprintf(v, sizeof v, "-");
            rows++;
            if (!x || !x->timed) {
                fprintf(f, "| %s | %s | - | - | - | - | %s |\n", g->gpu_name, text, cell(v, vc, sizeof vc));
                continue;
            }
            double ratio = NAN, lo = NAN, hi = NAN;
            gate_result_ratio(c->cfg, g->ref, x, &ratio, &lo, &hi);
            const run_result *p = report_previous_rung(c, g->ref, phase, s);
            fprintf(f, "| %s%s%s%s | %s | %s %s | %s %s | %s | %s | %s |\n", g->gpu_name,
                    phase != rung ? " (as `" : "", phase != rung ? phase : "", phase != rung ? "`)" : "", text,
                    fmt_num(med, sizeof med, x->median_us), fmt_ci(ci, sizeof ci, x->ci_lo_us, x->ci_hi_us),
                    fmt_num(rat, sizeof rat, ratio), fmt_ci(rci, sizeof rci, lo, hi),
                    p ? fmt_step(prev, sizeof prev, c, g->ref, p, x) : "first rung",
                    fmt_num(tf, sizeof tf, x->tflops), cell(v, vc, sizeof vc));
        }
    }
    fprintf(f, "\n");
}

static const struct {
    const char *metric, *label;
} PROFILE_COLUMNS[] = {
    { "sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy %" },
    { "sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy %" },
    { "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor pipe active %" },
    { "sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput %" },
    { "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput %" },
    { "lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput %" },
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem bank conflicts (ld)" },
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem bank conflicts (st)" },
    { "launch__registers_per_thread", "registers / thread" },
    { "launch__shared_mem_per_block_dynamic", "dynamic smem / block" },
    { "launch__grid_size", "grid" },
    { "launch__block_size", "block" },
};
#define N_PROFILE_COLUMNS (sizeof PROFILE_COLUMNS / sizeof PROFILE_COLUMNS[0])

static void metric_cell(const run_kernel_profile *k, const char *name, char *buf, size_t len)
{
    const run_metric *v = run_metric_find(k, name);
    double x = v && v->is_number ? v->number : NAN;
    if (isfinite(x) && fabs(x) < 1e15 && x == floor(x)) snprintf(buf, len, "%.0f", x);
    else if (v && v->is_number) fmt_num(buf, len, x);
    else if (v && v->text) cell(v->text, buf, len < 61 ? len : 61);
    else snprintf(buf, len, "-");
}

/* A kernel's name for a table cell: up to its parameter list (a C++ signature's types say
 * nothing the name does not), escaped for markdown. */
static void kernel_cell(const char *kernel, char *buf, size_t len)
{
    char name[200];
    size_t n = strcspn(kernel, "(");
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, kernel, n);
    name[n] = '\0';
    size_t need = text_escape(buf, len, name, TEXT_MARKDOWN);
    if (need >= len && len > 4) memcpy(buf + len - 4, "...", 4);
}

/* One table per GPU and profiled shape, a row per kernel: the metrics any of them has,
 * then its two largest stall reasons. The per-kernel figures in full stay in the evidence
 * (profile[].kernels[]); a page summarises them. */
static void profile_tables(FILE *f, const report_ctx *c, const char *rung)
{
    size_t shown = 0;
    for (size_t i = 0; i < c->n_gpus; i++) {
        const report_gpu *g = &c->gpus[i];
        const char *phase = g->ref ? report_name_in_run(c, g->ref, rung) : NULL;
        if (!phase) continue;
        for (size_t k = 0; k < g->ref->n_profiles; k++) {
            const run_profile *p = &g->ref->profiles[k];
            if (strcmp(p->impl, phase) != 0 || p->n_kernels == 0) continue;
            int used[N_PROFILE_COLUMNS] = { 0 };
            for (size_t kk = 0; kk < p->n_kernels; kk++)
                for (size_t m = 0; m < N_PROFILE_COLUMNS; m++) {
                    char v[64];
                    metric_cell(&p->kernels[kk], PROFILE_COLUMNS[m].metric, v, sizeof v);
                    used[m] |= strcmp(v, "-") != 0;
                }
            char text[96], whose[160] = "";
            run_shape_text(&p->shape, text, sizeof text);
            /* a rung that hands the shape to a rung below profiles that rung's kernel: said */
            const run_result *x = run_find(g->ref, phase, &p->shape);
            const run_result *origin = x ? report_kernel_origin(c, g->ref, x) : NULL;
            if (origin && origin != x)
                snprintf(whose, sizeof whose, ", the kernel of %s (the same init note at this shape)", origin->impl);
            fprintf(f, "%s (%s), %s, %zu kernel%s%s:\n\n| kernel |", g->gpu_name, p->tool, text, p->n_kernels,
                    p->n_kernels == 1 ? "" : "s", whose);
            for (size_t m = 0; m < N_PROFILE_COLUMNS; m++)
                if (used[m]) fprintf(f, " %s |", PROFILE_COLUMNS[m].label);
            fprintf(f, " top stalls (cycles per issue) |\n| --- |");
            for (size_t m = 0; m < N_PROFILE_COLUMNS; m++)
                if (used[m]) fprintf(f, " ---: |");
            fprintf(f, " --- |\n");
            for (size_t kk = 0; kk < p->n_kernels; kk++) {
                const run_kernel_profile *kp = &p->kernels[kk];
                char kname[160];
                kernel_cell(kp->kernel, kname, sizeof kname);
                fprintf(f, "| %s |", kname);
                for (size_t m = 0; m < N_PROFILE_COLUMNS; m++) {
                    if (!used[m]) continue;
                    char v[64];
                    metric_cell(kp, PROFILE_COLUMNS[m].metric, v, sizeof v);
                    fprintf(f, " %s |", v);
                }
                fprintf(f, " ");
                for (size_t si = 0; si < kp->n_stalls && si < 2; si++) {
                    char v[32], r[128];
                    fprintf(f, "%s%s %s", si ? ", " : "", cell(kp->stalls[si].reason, r, sizeof r),
                            fmt_num(v, sizeof v, kp->stalls[si].per_issue));
                }
                fprintf(f, "%s |\n", kp->n_stalls ? "" : "-");
                shown++;
            }
            fprintf(f, "\n");
        }
    }
    if (!shown) fprintf(f, "No profiler metrics for this phase in the GPUs' reference runs (`attnladder profile --into EVIDENCE`).\n\n");
}

static int cmp_results(const void *pa, const void *pb, void *ctx)
{
    const report_ctx *c = ctx;
    const run_result *a = *(const run_result *const *)pa, *b = *(const run_result *const *)pb;
    return run_shape_order(&a->shape, &b->shape, c->cfg->headline, c->cfg->n_headline);
}

/* Where the rung's own kernel or choice runs (its init note is no lower rung's at the
 * point: report_kernel_origin), named up to OWN_NAMED points; nothing said for a rung whose
 * rows carry no notes, or one with no rung below in the run. */
#define OWN_NAMED 12
static void own_points(FILE *f, const report_ctx *c, const run_data *r, const run_result *const *rows, size_t n)
{
    size_t noted = 0, own = 0, below = 0;
    char list[OWN_NAMED * 40] = "";
    for (size_t k = 0; k < n; k++) {
        const run_result *x = rows[k];
        if (!x->timed || !x->init_note || !x->init_note[0]) continue;
        noted++;
        below += report_previous_rung(c, r, x->impl, &x->shape) != NULL;
        if (report_kernel_origin(c, r, x) != x) continue;
        if (own++ < OWN_NAMED) {
            char text[96];
            run_shape_text(&x->shape, text, sizeof text);
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", text);
        }
    }
    if (!noted || !below) return;
    if (own == noted)
        fprintf(f, " Its own kernel or choice runs at every one of its %zu timed points (no rung below has its init "
                "note at any).", noted);
    else if (!own)
        fprintf(f, " At every one of its %zu timed points it runs a lower rung's kernel and choice (the same init "
                "note; \"same kernel\" below).", noted);
    else
        fprintf(f, " Its own kernel or choice (an init note no rung below has there) runs at %zu of its %zu timed "
                "points: %s%s; elsewhere a lower rung's (\"same kernel\" below).", own, noted, list,
                own > OWN_NAMED ? " and more" : "");
}

static void sweep_tables(FILE *f, const report_ctx *c, const char *rung)
{
    for (size_t i = 0; i < c->n_gpus; i++) {
        const report_gpu *g = &c->gpus[i];
        const run_data *r = g->ref;
        const char *phase = r ? report_name_in_run(c, r, rung) : NULL;
        if (!phase) continue;
        const run_result **rows = malloc((r->n_results + 1) * sizeof *rows);
        if (!rows) return;
        size_t n = 0;
        for (size_t k = 0; k < r->n_results; k++)
            if (strcmp(r->results[k].impl, phase) == 0) rows[n++] = &r->results[k];
        qsort_r(rows, n, sizeof *rows, cmp_results, (void *)c);
        char lib[96];
        report_baseline_library(lib, sizeof lib, r);
        fprintf(f, "### %s\n\nReference run `%s`%s%s%s; `%s` is %s.", g->gpu_name, r->base,
                phase != rung ? " (as `" : "", phase != rung ? phase : "", phase != rung ? "`)" : "", c->cfg->baseline,
                lib);
        own_points(f, c, r, rows, n);
        fprintf(f, "\n\n");
        /* the step over the rung below at each point, as the ladder's tables say it: where a
         * rung's idea acts is read off its own page (no column for a rung with none below) */
        int steps = 0;
        for (size_t k = 0; k < n && !steps; k++)
            steps = rows[k]->timed && report_previous_rung(c, r, phase, &rows[k]->shape);
        fprintf(f, "| shape | tag | median us [95%% CI] | ratio to %s [95%% CI] |%s TFLOP/s | %% of fp16 ceiling | "
                "rel L2 error | max abs error | status |\n", c->cfg->baseline, steps ? " vs previous rung |" : "");
        fprintf(f, "| --- | --- | ---: | ---: |%s ---: | ---: | ---: | ---: | --- |\n", steps ? " ---: |" : "");
        for (size_t k = 0; k < n; k++) {
            const run_result *x = rows[k];
            char text[96], med[32], ci[64], rat[32], rci[64], prev[48], tf[32], fp[32], rl[32], ma[32], why[200];
            run_shape_text(&x->shape, text, sizeof text);
            const char *status = !x->supported ? cell(x->reason ? x->reason : "unsupported", why, sizeof why)
                               : !x->checked ? "not checked" : !x->correct ? "**FAILED correctness**" : "ok";
            double ratio = NAN, lo = NAN, hi = NAN;
            if (x->timed) gate_result_ratio(c->cfg, r, x, &ratio, &lo, &hi);
            const run_result *p = x->timed ? report_previous_rung(c, r, phase, &x->shape) : NULL;
            char step[64] = "";
            if (steps) snprintf(step, sizeof step, " %s |", p ? fmt_step(prev, sizeof prev, c, r, p, x) : "-");
            fprintf(f, "| %s | %s | %s %s | %s %s |%s %s | %s | %s | %s | %s |\n", text, x->tag,
                    x->timed ? fmt_num(med, sizeof med, x->median_us) : "-",
                    x->timed ? fmt_ci(ci, sizeof ci, x->ci_lo_us, x->ci_hi_us) : "",
                    fmt_num(rat, sizeof rat, ratio), x->timed ? fmt_ci(rci, sizeof rci, lo, hi) : "", step,
                    x->timed ? fmt_num(tf, sizeof tf, x->tflops) : "-",
                    x->timed ? fmt_pct(fp, sizeof fp, x->frac_fp16_peak) : "-",
                    fmt_sci(rl, sizeof rl, x->rel_l2), fmt_sci(ma, sizeof ma, x->max_abs), status);
        }
        fprintf(f, "\n");
        free(rows);
    }
}

/* Every run of every GPU that timed the phase or one of its former names (a rung moved
 * under a new name keeps its history). */
static void history_table(FILE *f, const report_ctx *c, const char *phase)
{
    size_t names[8], n_names = 1;
    int pi = report_phase_index(c, phase);
    names[0] = (size_t)pi;
    if (pi >= 0) n_names += report_former_names(c, (size_t)pi, names + 1, 7);
    fprintf(f, "| GPU | run | commit |");
    for (size_t h = 0; h < c->cfg->n_headline; h++) {
        char text[96];
        run_shape_text(&c->cfg->headline[h], text, sizeof text);
        fprintf(f, " ratio at %s [95%% CI] |", text);
    }
    fprintf(f, "\n| --- | --- | --- |");
    for (size_t h = 0; h < c->cfg->n_headline; h++) fprintf(f, " ---: |");
    fprintf(f, "\n");
    for (size_t i = 0; i < c->n_gpus; i++)
        for (size_t k = 0; k < c->gpus[i].n_runs; k++) {
            const run_data *r = &c->gpus[i].runs[k];
            for (size_t nm = 0; nm < n_names && pi >= 0; nm++) {
                const char *name = c->phases[names[nm]];
                if (!run_find_impl(r, name)) continue;
                char link[2048];
                evidence_link(r, 1, link, sizeof link);
                fprintf(f, "| %s | [`%s`](%s)%s%s%s%s | `%.12s` |", c->gpus[i].gpu_name, r->base, link,
                        r->partial ? " (partial)" : "", nm ? " (as `" : "", nm ? name : "", nm ? "`)" : "",
                        r->commit);
                for (size_t h = 0; h < c->cfg->n_headline; h++) {
                    const run_result *x = run_find(r, name, &c->cfg->headline[h]);
                    double ratio = NAN, lo = NAN, hi = NAN;
                    char rat[32], rci[64];
                    if (x && x->timed) gate_result_ratio(c->cfg, r, x, &ratio, &lo, &hi);
                    fprintf(f, " %s %s |", fmt_num(rat, sizeof rat, ratio),
                            isfinite(ratio) ? fmt_ci(rci, sizeof rci, lo, hi) : "");
                }
                fprintf(f, "\n");
            }
        }
    fprintf(f, "\n");
}

/* A former rung's page says where it went: the current rung whose History names it,
 * quoted. */
static void former_note(FILE *f, const report_ctx *c, int pi, const char *phase)
{
    fprintf(f, "**`%s` is a former rung**: there is no `%s/%s/` any more; older runs name it.", phase,
            c->phases_dir, phase);
    int succ = pi >= 0 ? c->successor[pi] : -1;
    if (succ < 0) {
        fprintf(f, " No current rung's README says where it went.\n\n");
        return;
    }
    const char *to = c->phases[succ];
    fprintf(f, " It is now [%s](%s.md), whose README says:\n\n", to, to);
    phase_doc d;
    if (phase_doc_load(c->phases_dir, to, &d) == 0 && d.history) {
        const char *p = d.history;
        while (*p) {   /* quoted, line by line */
            size_t n = strcspn(p, "\n");
            fprintf(f, "> %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
        fprintf(f, "\n");
    }
    phase_doc_free(&d);
    fprintf(f, "Its runs are in the history of [%s](%s.md) too.\n\n", to, to);
}

int report_write_phase(const report_ctx *c, const char *phase)
{
    char rel[512], path[4096];
    snprintf(rel, sizeof rel, "phases/%s.md", phase);
    phase_doc doc;
    int found = phase_doc_load(c->phases_dir, phase, &doc);
    if (found < 0) {
        fprintf(stderr, "attnladder report: out of memory reading %s/%s/README.md\n", c->phases_dir, phase);
        return -1;
    }
    FILE *f = open_page(c, rel, path, sizeof path);
    if (!f) {
        phase_doc_free(&doc);
        return -1;
    }
    const char *title = NULL;
    for (size_t i = 0; i < c->n_gpus && !title; i++)
        for (size_t k = 0; k < c->gpus[i].n_runs && !title; k++) {
            const run_impl *im = run_find_impl(&c->gpus[i].runs[k], phase);
            if (im && im->title[0]) title = im->title;
        }
    char t[300];
    fprintf(f, "# %s\n\n", doc.title ? doc.title : phase);
    if (title) fprintf(f, "%s.\n\n", cell(title, t, sizeof t));
    if (found == 0)
        fprintf(f, "Generated by `attnladder report`; the text sections are quoted from "
                "[`%s/%s/README.md`](../../%s/%s/README.md). [Back to the ladder](../README.md).\n\n",
                c->phases_dir, phase, c->phases_dir, phase);
    else
        fprintf(f, "Generated by `attnladder report`. [Back to the ladder](../README.md).\n\n");
    int pi = report_phase_index(c, phase);
    if (found == 1) {
        former_note(f, c, pi, phase);
    } else {
        fprintf(f, "## Technique\n\n");
        quote_section(f, doc.technique, "Technique", phase, c->phases_dir);
        fprintf(f, "## Prediction and outcome\n\n### Prediction (written before measuring)\n\n");
        quote_section(f, doc.prediction, "Prediction", phase, c->phases_dir);
        fprintf(f, "### Outcome\n\n");
        quote_section(f, doc.outcome, "Outcome", phase, c->phases_dir);
    }
    fprintf(f, "### Measured at the headline shapes (each GPU's reference run)\n\n");
    measured_table(f, c, phase);
    fprintf(f, "## Profiler metrics\n\n");
    profile_tables(f, c, phase);
    fprintf(f, "## Sweep\n\n");
    sweep_tables(f, c, phase);
    fprintf(f, "## History\n\n");
    char name[512];
    snprintf(name, sizeof name, "history-%s.svg", phase);
    fprintf(f, "![ratio to %s across the evidence runs](../plots/%s)\n\n", c->cfg->baseline, name);
    history_table(f, c, phase);
    phase_doc_free(&doc);
    return close_page(f, path);
}
