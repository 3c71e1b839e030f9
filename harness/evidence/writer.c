/* evidence/writer.c: typed values written as evidence JSON (see writer.h). Each object's
 * keys are set here, once, in the order evidence/SCHEMA.md shows; reader.c reads them. */
#include "evidence/writer.h"

#include <math.h>
#include <string.h>
#include "evidence/evidence_file.h"

/* Sets key to v (stolen); v NULL leaves the key out. */
static void put(json_t *o, const char *key, json_t *v)
{
    if (v) json_object_set_new(o, key, v);
}

static json_t *real_or_null(double x)
{
    return isnan(x) ? NULL : json_real(x);
}

static json_t *long_or_null(long x)
{
    return x < 0 ? NULL : json_integer((json_int_t)x);
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : NULL;
}

static json_t *numbers(const double *x, size_t n);

/* keys[i] to v[i] where known (>= 0) */
static void put_longs(json_t *o, const char *const *keys, const long *v, size_t n)
{
    for (size_t i = 0; i < n; i++) put(o, keys[i], long_or_null(v[i]));
}

/* registers, smem_static, spill_stores, spill_loads where known */
static void put_counts(json_t *o, long registers, long smem_static, long spill_stores, long spill_loads)
{
    static const char *const keys[] = { "registers", "smem_static", "spill_stores", "spill_loads" };
    put_longs(o, keys, (long[]){ registers, smem_static, spill_stores, spill_loads }, 4);
}

json_t *run_write_shape(const attn_shape *s, int with_scale)
{
    json_t *o = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "batch", s->batch, "heads", s->heads,
                          "seq_q", s->seq_q, "seq_kv", s->seq_kv, "head_dim", s->head_dim, "causal", s->causal);
    if (o && with_scale) json_object_set_new(o, "scale", json_real((double)s->scale));
    return o;
}

/* ---- the device context ------------------------------------------------------------- */

json_t *run_write_gpu(const device_gpu *g)
{
    if (!g->known) return json_pack("{s:s, s:s}", "name", "unknown", "slug", "unknown");
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:s}",
                          "name", g->name, "slug", g->slug, "sm_count", g->sm_count,
                          "cc_major", g->cc_major, "cc_minor", g->cc_minor,
                          "l2_bytes", (json_int_t)g->l2_bytes, "mem_bytes", (json_int_t)g->mem_bytes,
                          "smem_per_block_optin", (json_int_t)g->smem_per_block_optin,
                          "clock_khz", g->clock_khz, "mem_clock_khz", g->mem_clock_khz,
                          "mem_bus_bits", g->mem_bus_bits, "index", g->index, "uuid", g->uuid);
    if (o) json_object_set_new(o, "cuda_visible_devices", g->cuda_visible_devices
                                                          ? json_string(g->cuda_visible_devices) : json_null());
    return o;
}

json_t *run_write_versions(const device_versions *v)
{
    json_t *o = json_object();
    if (!o) return NULL;
    put(o, "cuda_driver", json_integer(v->cuda_driver));
    put(o, "cuda_runtime", json_integer(v->cuda_runtime));
    if (v->has_cublas) put(o, "cublas", json_integer(v->cublas));
    if (v->cublas_path) put(o, "cublas_path", json_string(v->cublas_path));
    if (v->cudart_path) put(o, "cudart_path", json_string(v->cudart_path));
    if (v->cudnn == DEVICE_CUDNN_NOT_LOADED) put(o, "cudnn", json_null());
    if (v->cudnn == DEVICE_CUDNN_VERSION) {
        put(o, "cudnn", json_integer((json_int_t)v->cudnn_version));
        if (v->cudnn_path[0]) put(o, "cudnn_path", json_string(v->cudnn_path));
    }
    if (v->has_driver) put(o, "driver", json_string(v->driver));
    put(o, "nvcc", json_string(v->nvcc ? v->nvcc : "unknown"));
    return o;
}

json_t *run_write_git(const device_git *g)
{
    return json_pack("{s:s, s:b, s:s}", "commit", g->commit, "dirty", g->dirty, "source", g->source);
}

json_t *run_write_clocks(const clock_reading *c)
{
    json_t *o = json_pack("{s:i, s:i, s:i, s:f, s:I, s:o}", "sm_mhz", (int)c->sm_mhz, "mem_mhz", (int)c->mem_mhz,
                          "temp_c", (int)c->temp_c, "power_w", c->power_w, "throttle_mask", (json_int_t)c->reasons,
                          "throttle", clock_reasons_json(c->reasons));
    if (o && c->have_violation) {
        json_t *v = json_object();
        for (int i = 0; i < CLOCK_LIMITS; i++)
            put(v, clock_violation_name(i), json_integer((json_int_t)c->violation_ns[i]));
        put(o, "violation_ns", v);
    }
    return o;
}

json_t *run_write_env_overrides(const run_env_override *env, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < n; i++) put(o, env[i].name, env[i].value ? json_string(env[i].value) : json_null());
    return o;
}

/* A new object and a new array for a writer that fills both; 0, or -1 (neither kept) when
 * either cannot be made. */
static int object_and_array(json_t **o, json_t **a)
{
    *o = json_object();
    *a = json_array();
    if (*o && *a) return 0;
    json_decref(*o);
    json_decref(*a);
    return -1;
}

static json_t *clocks_or_null(const clock_reading *c)
{
    return c ? run_write_clocks(c) : json_null();
}

json_t *run_write_context(const run_process_context *c)
{
    json_t *o, *argv;
    if (object_and_array(&o, &argv)) return NULL;
    for (size_t i = 0; i < c->argc; i++) json_array_append_new(argv, json_string(c->argv[i]));
    put(o, "gpu", run_write_gpu(c->gpu));
    put(o, "versions", run_write_versions(c->versions));
    put(o, "git", run_write_git(c->git));
    put(o, "host", json_string(c->host));
    put(o, "argv", argv);
    put(o, "planted_slowdown", str_or_null(c->planted_slowdown));
    put(o, "env_overrides", run_write_env_overrides(c->env, c->n_env));
    put(o, "clocks_before", clocks_or_null(c->clocks_before));
    put(o, "nvml", json_string(c->nvml));
    put(o, "throttled", json_boolean(c->throttled));
    put(o, "clocks_after", clocks_or_null(c->clocks_after));
    return o;
}

json_t *run_write_ceilings(const run_ceilings *c)
{
    json_t *o = json_object();
    if (!o) return NULL;
    put(o, "dram_gbps", c->dram_gbps > 0 ? json_real(c->dram_gbps) : json_null());
    if (c->read_gbps > 0) put(o, "read_gbps", json_real(c->read_gbps));
    put(o, "fp16_tflops", c->fp16_tflops > 0 ? json_real(c->fp16_tflops) : json_null());
    put(o, "copy_bytes", json_integer((json_int_t)c->copy_bytes));
    put(o, "gemm_shape", json_pack("[i,i,i]", c->gemm_n, c->gemm_n, c->gemm_n));
    return o;
}

json_t *run_write_cost(run_cost *c)
{
    json_t *o = json_pack("{s:f, s:f, s:I, s:o, s:o, s:o}", "wall_s", c->wall_s, "gpu_timed_s", c->gpu_timed_s,
                          "measurements", (json_int_t)c->measurements, "stages_s", c->stages_s, "steps_s",
                          c->steps_s, "points", c->points);
    c->stages_s = c->steps_s = c->points = NULL;
    return o;
}

static json_t *resource_kernel(const kernel_resource *k, resources_source source)
{
    json_t *o = json_object();
    if (!o) return NULL;
    put(o, "name", json_string(k->name));
    put(o, "registers", json_integer(k->registers));
    put(o, "smem_static", json_integer(k->smem_static));
    if (source == RESOURCES_PTXAS) {
        put(o, "stack_bytes", json_integer(k->stack_bytes));
    } else {
        put(o, "local_bytes", json_integer(k->local_bytes));
        put(o, "max_threads", json_integer(k->max_threads));
        put(o, "binary_version", json_integer(k->binary_version));
    }
    if (k->has_spills) {
        put(o, "spill_stores", json_integer(k->spill_stores));
        put(o, "spill_loads", json_integer(k->spill_loads));
    }
    return o;
}

json_t *run_write_resources(const kernel_resources *r)
{
    json_t *o, *kernels;
    if (object_and_array(&o, &kernels)) return NULL;
    for (size_t i = 0; i < r->n_kernels; i++) json_array_append_new(kernels, resource_kernel(&r->kernels[i], r->source));
    int loaded = r->source == RESOURCES_LOADED;
    if (loaded) put(o, "source", json_string("loaded"));
    put(o, "arch", json_string(r->arch));
    put(o, "registers", json_integer(r->registers));
    put(o, "smem_static", json_integer(r->smem_static));
    put(o, "stack_bytes", json_integer(r->stack_bytes));
    if (loaded) {   /* the totals after the kernels, and only where the report says */
        put(o, "spills_from", str_or_null(r->spills_from));
        put(o, "kernels", kernels);
    }
    if (r->has_spills) {
        put(o, "spill_stores", json_integer(r->spill_stores));
        put(o, "spill_loads", json_integer(r->spill_loads));
    }
    if (!loaded) put(o, "kernels", kernels);
    return o;
}

json_t *run_write_impl(const run_impl_record *r)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "name", r->name, "title", r->title, "kind", r->kind,
                          "path", r->path);
    if (!o) return NULL;
    json_t *res = r->resources ? run_write_resources(r->resources) : json_null();
    if (res && r->resources && r->ptxas_why) {
        put(res, "source", json_string("ptxas report"));
        put(res, "loaded_why_not", json_string(r->ptxas_why));
    }
    put(o, "resources", res);
    return o;
}

/* ---- how a run was measured ----------------------------------------------------------- */

static json_t *names_of(const char *const *names, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) json_array_append_new(a, json_string(names[i]));
    return a;
}

static json_t *ratio_design_of(const run_method *m)
{
    return json_pack("{s:s, s:s, s:s, s:f, s:I, s:I, s:f, s:f, s:f}", "ratio",
                     "median of per-round quotients implementation/baseline, 95% bootstrap CI over rounds",
                     "rounds", "every implementation of the point no slower than slow_factor times the "
                     "baseline, one CUDA graph replay each per round, in an order drawn per round "
                     "(results[].paired.design \"rotation\"); a slower one keeps the quotient of its own "
                     "and the baseline's separate medians (derived.ratio.method \"independent\")",
                     "absolute", "timing.* and derived.tflops/gbps: each implementation timed alone, "
                     "one after another (the sustained regime)",
                     "slow_factor", m->rotation.slow_factor, "min_rounds", (json_int_t)m->rotation.min_rounds,
                     "max_rounds", (json_int_t)m->rotation.max_rounds, "max_seconds", m->rotation.max_seconds,
                     "rel_ci_target", m->rotation.rel_ci_target, "min_gpu_s", m->rotation.min_gpu_s);
}

json_t *run_write_method(const run_method *m)
{
    json_t *o = json_pack("{s:o, s:o, s:i, s:f, s:I, s:I, s:f, s:f, s:I, s:f, s:I, s:I, s:{s:f, s:f},"
                          " s:I, s:s, s:f, s:I}",
                          "modes", names_of(m->modes, m->n_modes),
                          "sweep_modes", names_of(m->sweep_modes, m->n_sweep_modes), "inner", m->inner,
                          "graph_target_us", m->graph_target_us, "min_samples", (json_int_t)m->min_samples,
                          "max_samples", (json_int_t)m->max_samples, "max_seconds", m->max_seconds,
                          "rel_ci_target", m->rel_ci_target, "bootstrap_resamples", (json_int_t)m->bootstrap_resamples,
                          "ci_level", m->ci_level, "seed", (json_int_t)m->seed, "stats_seed", (json_int_t)m->stats_seed,
                          "bounds", "rel_l2", m->bound_rel_l2, "max_abs", m->bound_max_abs,
                          "l2_scrub_bytes", (json_int_t)m->l2_scrub_bytes, "baseline", m->baseline,
                          "full_ref_gflop", m->full_ref_gflop, "sample_rows", (json_int_t)m->sample_rows);
    if (!o) return NULL;
    put(o, "inputs", json_pack("{s:s, s:o, s:i, s:b, s:I}", "timed", "uniform", "checked_also",
                               names_of(m->checked_also, m->n_checked_also), "sample_tile_rows", m->sample_tile_rows,
                               "sampled_needs_baseline", 1, "chunk_elems", (json_int_t)m->chunk_elems));
    put(o, "min_gpu_s", json_real(m->min_gpu_s));
    /* where each figure comes from: derived.ratio from the rotation (or, independent, the
     * separate measurements); timing.* and the derived rates from each one alone */
    put(o, "ratio", json_string(m->paired ? "paired" : "independent"));
    put(o, "paired", json_boolean(m->paired));
    if (m->paired) put(o, "ratio_design", ratio_design_of(m));
    put(o, "reference", json_pack("{s:s, s:s, s:f, s:f}", "gpu", m->oracle_gpu, "gpu_why_not", m->oracle_gpu_why_not,
                                  "cpu_check_gflop", m->cpu_check_gflop, "agree_max_abs", m->oracle_agree_max_abs));
    /* the harness never changes a GPU's clocks (locking them is the machine owner's
     * choice, e.g. nvidia-smi -lgc); whether they were held by an applications-clock
     * setting shows as that reason in every sample's clock_events */
    put(o, "clock_watch", json_pack("{s:b, s:s, s:s, s:f, s:b}", "per_sample", m->per_sample, "why_not",
                                    m->watch_why_not, "discard", m->discard, "discard_limit", m->discard_limit,
                                    "clocks_locked_by_harness", 0));
    return o;
}

/* ---- a point's rows ------------------------------------------------------------------ */

/* Times keep 4 decimals (0.1 ns), as measure/timing.c rounds the samples when taken. */
static double round4(double x)
{
    return round(x * 1e4) / 1e4;
}

static json_t *clock_of_mode(const time_result *r, const clock_policy *p)
{
    json_t *mhz = json_array(), *disc = json_array();
    for (size_t i = 0; i < r->n; i++) json_array_append_new(mhz, json_integer(r->sm_mhz ? r->sm_mhz[i] : 0));
    for (size_t i = 0; i < r->n_discarded; i++) json_array_append_new(disc, json_real(round4(r->discarded_us[i])));
    return json_pack("{s:o, s:I, s:o, s:I, s:o, s:s, s:f}", "sm_mhz", mhz,
                     "discarded", (json_int_t)r->n_discarded, "discarded_us", disc,
                     "power_capped", (json_int_t)r->power_capped, "reasons_seen", clock_reasons_json(r->reasons_seen),
                     "discard", clock_discard_name(p->discard_mask), "discard_limit", p->discard_limit);
}

json_t *run_write_timing_mode(const time_result *r, const clock_policy *clock)
{
    json_t *samples = json_array();
    for (size_t i = 0; samples && i < r->n; i++) json_array_append_new(samples, json_real(round4(r->samples_us[i])));
    json_t *o = json_pack("{s:i, s:I, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:f, s:f}",
                          "inner", r->inner, "n", (json_int_t)r->n, "samples_us", samples,
                          "median_us", round4(r->sum.median), "p10_us", round4(r->sum.p10),
                          "p90_us", round4(r->sum.p90), "ci_lo_us", round4(r->sum.ci_lo),
                          "ci_hi_us", round4(r->sum.ci_hi), "mean_us", round4(r->sum.mean),
                          "min_us", round4(r->sum.min), "max_us", round4(r->sum.max),
                          "stop", stop_reason_name(r->stop),
                          "wall_s", round4(r->wall_s), "gpu_s", round4(r->gpu_s));
    /* only when the clock was read: a run without NVML says nothing rather than zeros */
    if (o && clock && r->clock_read) put(o, "clock", clock_of_mode(r, clock));
    return o;
}

json_t *run_write_rounds_clock(const unsigned *sm_mhz, size_t n, const clock_tally *t, const clock_policy *p)
{
    if (!p->watch) return json_null();
    json_t *mhz = json_array();
    for (size_t i = 0; mhz && i < n; i++) json_array_append_new(mhz, json_integer(sm_mhz[i]));
    return json_pack("{s:o, s:I, s:I, s:o, s:s}", "sm_mhz", mhz, "discarded_pairs", (json_int_t)t->discarded,
                     "power_capped_pairs", (json_int_t)t->power_capped, "reasons_seen", clock_reasons_json(t->seen),
                     "discard", clock_discard_name(p->discard_mask));
}

json_t *run_write_steps(const step_times *st)
{
    json_t *o = json_object();
    for (int i = 0; o && i < STEP_COUNT; i++) put(o, step_name((step_id)i), json_real(round4(st->s[i])));
    return o;
}

json_t *run_write_derived(const result_derived *d)
{
    json_t *o = json_pack("{s:f, s:f, s:f, s:f}", "flops", d->flops, "bytes", d->bytes, "tflops", d->tflops,
                          "gbps", d->gbps);
    if (!o) return NULL;
    put(o, "frac_fp16_peak", isnan(d->frac_fp16_peak) ? json_null() : json_real(d->frac_fp16_peak));
    put(o, "frac_dram", isnan(d->frac_dram) ? json_null() : json_real(d->frac_dram));
    const derived_ratio *r = &d->ratio;
    put(o, "ratio", d->has_ratio ? json_pack("{s:s, s:f, s:f, s:f, s:s}", "baseline", r->baseline, "median",
                                             r->median, "ci_lo", r->ci_lo, "ci_hi", r->ci_hi, "method", r->method)
                                 : json_null());
    return o;
}

/* A comparison's figures: pass, nonfinite, max_abs, rel_l2, checked. */
static json_t *compared_of(int pass, const compare_result *c)
{
    return json_pack("{s:b, s:I, s:f, s:f, s:I}", "pass", pass, "nonfinite", (json_int_t)c->nonfinite,
                     "max_abs", c->max_abs, "rel_l2", c->rel_l2, "checked", (json_int_t)c->checked);
}

/* A verdict: the comparison's figures, the reference named, the baseline's output
 * against it, why it failed; or, where the run failed, pass and why. */
static json_t *verdict_of(const result_check *k)
{
    json_t *o = k->compared ? compared_of(k->pass, &k->c) : json_pack("{s:b}", "pass", k->pass);
    if (!o) return NULL;
    if (k->compared && k->reference) {
        put(o, "reference", json_string(k->reference));
        put(o, "rows_checked", json_integer((json_int_t)k->rows_checked));
    }
    if (k->has_vs_baseline) put(o, "vs_baseline", compared_of(k->vs_baseline.pass, &k->vs_baseline));
    if (k->error[0]) put(o, "error", json_string(k->error));
    return o;
}

/* timing.l2: how the point's inputs were kept cold in L2 (measure/l2_copies.h). */
json_t *run_write_l2(const l2_plan *p)
{
    return json_pack("{s:s, s:i, s:I, s:I, s:I}", "state", l2_state_name(p->state), "copies", p->copies,
                     "copy_bytes", (json_int_t)p->copy_bytes,
                     "bytes", (json_int_t)((size_t)p->copies * p->copy_bytes), "l2_bytes", (json_int_t)p->l2_bytes);
}

static json_t *timing_of(const result_timing *t)
{
    json_t *o = json_object();
    for (int m = 0; o && m < MODE_COUNT; m++)
        if (t->timed[m]) put(o, time_mode_name((time_mode)m), run_write_timing_mode(&t->mode[m], &t->clock));
    if (o && t->has_l2) put(o, "l2", run_write_l2(&t->l2));
    return o;
}

static json_t *paired_of(const result_paired *p)
{
    json_t *o = json_pack("{s:s, s:s, s:I, s:i, s:i, s:I, s:s, s:f, s:f}", "baseline", p->baseline, "design",
                          "rotation", "implementations", (json_int_t)p->implementations, "inner", p->inner,
                          "baseline_inner", p->baseline_inner, "n", (json_int_t)p->n, "stop", p->stop,
                          "gpu_s", p->gpu_s, "wall_s", p->wall_s);
    if (!o) return NULL;
    json_t *first = json_array();
    for (size_t i = 0; first && i < p->n; i++) json_array_append_new(first, json_integer(p->impl_first[i]));
    put(o, "impl_us", numbers(p->impl_us, p->n));
    put(o, "baseline_us", numbers(p->baseline_us, p->n));
    put(o, "impl_first", first);
    put(o, "clock", run_write_rounds_clock(p->clock.sm_mhz, p->clock.n, &p->clock.tally, &p->clock.policy));
    return o;
}

json_t *run_write_result(const result_record *r)
{
    json_t *o = json_pack("{s:s, s:o, s:s, s:b}", "impl", r->impl, "shape", run_write_shape(&r->shape, 1),
                          "tag", r->tag, "supported", r->supported);
    if (!o) return NULL;
    put(o, "reason", r->supported ? json_null() : json_string(r->reason));
    if (r->has_init_note) put(o, "init_note", json_string(r->init_note));
    if (r->checked) {
        json_t *c = verdict_of(&r->correctness.check);
        if (c && r->correctness.has_after) put(c, "after_timing", verdict_of(&r->correctness.after));
        put(o, "correctness", c);
    }
    if (r->timed) put(o, "timing", timing_of(&r->timing));
    if (r->has_paired) put(o, "paired", paired_of(&r->paired));
    if (r->paired_throttled)
        put(o, "paired_throttled", json_pack("{s:s, s:I}", "baseline", r->paired_throttled, "discarded_pairs",
                                             (json_int_t)r->discarded_pairs));
    if (r->has_derived) put(o, "derived", run_write_derived(&r->derived));
    return o;
}

json_t *run_write_input_check(const input_check_record *c)
{
    return json_pack("{s:s, s:o, s:s, s:s, s:o}", "impl", c->impl, "shape", run_write_shape(&c->shape, 1), "tag",
                     c->tag, "inputs", c->inputs, "correctness", verdict_of(&c->correctness));
}

json_t *run_write_oracle_check(const oracle_check_record *c)
{
    return json_pack("{s:o, s:s, s:s, s:s, s:I, s:I, s:f, s:f, s:b}", "shape", run_write_shape(&c->shape, 1),
                     "tag", c->tag, "inputs", c->inputs, "cpu", c->cpu, "rows", (json_int_t)c->rows,
                     "nonfinite", (json_int_t)c->nonfinite, "max_abs", c->max_abs, "rel_l2", c->rel_l2,
                     "pass", c->pass);
}

json_t *run_write_point_cost(const point_cost_record *c)
{
    return json_pack("{s:o, s:s, s:f, s:o}", "shape", run_write_shape(&c->shape, 1), "tag", c->tag, "wall_s",
                     round4(c->wall_s), "steps_s", run_write_steps(&c->steps));
}

/* Appends x (stolen) to a; -1 when x is NULL (out of memory) or a refuses it. */
static int append_to(json_t *a, json_t *x)
{
    return x && json_array_append_new(a, x) == 0 ? 0 : -1;
}

int run_write_point(const point_record *p, json_t *results, json_t *input_checks, json_t *reference_checks,
                    json_t *points)
{
    int rc = 0;
    for (size_t i = 0; i < p->n_results; i++) rc |= append_to(results, run_write_result(&p->results[i]));
    for (size_t i = 0; i < p->n_checks; i++) rc |= append_to(input_checks, run_write_input_check(&p->checks[i]));
    for (size_t i = 0; i < p->n_oracle_checks; i++)
        rc |= append_to(reference_checks, run_write_oracle_check(&p->oracle_checks[i]));
    if (p->has_cost) rc |= append_to(points, run_write_point_cost(&p->cost));
    return rc;
}

/* ---- the profiler's rows ------------------------------------------------------------- */

json_t *run_write_profile(const char *impl, const attn_shape *s, const char *tool, json_t *kernels)
{
    return json_pack("{s:s, s:o, s:s, s:o}", "impl", impl, "shape", run_write_shape(s, 0), "tool", tool,
                     "kernels", kernels);
}

json_t *run_write_stall(const run_stall *st)
{
    return json_pack("{s:s, s:f}", "reason", st->reason, "per_issue", st->per_issue);
}

/* ---- the document ------------------------------------------------------------------- */

json_t *run_write_document(run_document *d)
{
    json_t *o = json_pack("{s:s, s:i, s:b, s:s}", "schema", EVIDENCE_SCHEMA, "schema_version",
                          EVIDENCE_SCHEMA_VERSION, "partial", d->partial, "created_utc",
                          d->created_utc ? d->created_utc : "");
    json_t **parts[] = { &d->context, &d->method, &d->ceilings, &d->implementations, &d->results,
                         &d->input_checks, &d->reference_checks, &d->cost };
    static const char *const names[] = { "context", "method", "ceilings", "implementations", "results",
                                         "input_checks", "reference_checks", "cost" };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (o) put(o, names[i], *parts[i]);
        else json_decref(*parts[i]);
        *parts[i] = NULL;
    }
    if (o && d->has_progress)
        put(o, "progress", json_pack("{s:I, s:I}", "points", (json_int_t)d->progress_points,
                                     "done", (json_int_t)d->progress_done));
    json_t *tail[] = { d->resumed, d->profile };
    static const char *const tail_names[] = { "resumed", "profile" };
    for (size_t i = 0; i < 2; i++) {
        if (o) put(o, tail_names[i], tail[i]);
        else json_decref(tail[i]);
    }
    d->resumed = d->profile = NULL;
    return o;
}

/* ---- a run as the reader holds it ----------------------------------------------------- */

static json_t *context_of(const run_data *r)
{
    const run_context *c = &r->ctx;
    static const char *const gpu_keys[] = { "sm_count", "cc_major", "cc_minor", "index" };
    static const char *const ver_keys[] = { "cuda_driver", "cuda_runtime", "cublas", "cudnn" };
    json_t *gpu = json_pack("{s:s, s:s}", "name", r->gpu_name, "slug", r->slug), *ver = json_object();
    put_longs(gpu, gpu_keys, (long[]){ c->sm_count, c->cc_major, c->cc_minor, c->device_index }, 4);
    put(gpu, "uuid", str_or_null(c->uuid));
    put(gpu, "cuda_visible_devices", str_or_null(c->cuda_visible_devices));
    put_longs(ver, ver_keys, (long[]){ c->cuda_driver, c->cuda_runtime, c->cublas, c->cudnn }, 4);
    put(ver, "driver", str_or_null(c->driver));
    put(ver, "nvcc", str_or_null(c->nvcc));
    json_t *o = json_pack("{s:o, s:o, s:{s:s, s:b}}", "gpu", gpu, "versions", ver, "git", "commit", r->commit,
                          "dirty", r->dirty);
    if (r->env) put(o, "env_overrides", run_write_env_overrides(r->env, r->n_env));
    put(o, "planted_slowdown", str_or_null(r->planted));
    put(o, "throttled", json_boolean(r->throttled));
    return o;
}

static json_t *method_of(const run_data *r)
{
    json_t *o = json_object();
    if (r->has_resamples) put(o, "bootstrap_resamples", json_integer((json_int_t)r->resamples));
    if (r->has_ci_level) put(o, "ci_level", json_real(r->ci_level));
    if (r->has_stats_seed) put(o, "stats_seed", json_integer((json_int_t)r->stats_seed));
    put(o, "baseline", json_string(r->baseline));
    put(o, "ratio", str_or_null(r->ratio_method));
    if (r->has_ratio_design) put(o, "ratio_design", json_object());
    return o;
}

static json_t *ceilings_of(const run_data *r)
{
    json_t *o = json_object();
    put(o, "dram_gbps", isnan(r->dram_gbps) ? json_null() : json_real(r->dram_gbps));
    if (!isnan(r->read_gbps)) put(o, "read_gbps", json_real(r->read_gbps));
    put(o, "fp16_tflops", isnan(r->fp16_tflops) ? json_null() : json_real(r->fp16_tflops));
    if (!isnan(r->launch_floor_us))
        put(o, "launch_floor", json_pack("{s:{s:f}}", "graph", "median_us", r->launch_floor_us));
    return o;
}

static json_t *resources_of(const run_impl *im)
{
    json_t *o = json_object();
    put_counts(o, im->registers, im->smem_static, im->spill_stores, im->spill_loads);
    if (im->kernels) {
        json_t *ks = json_array();
        for (size_t k = 0; k < im->n_kernels; k++) {
            const run_kernel_resources *kr = &im->kernels[k];
            json_t *kj = json_pack("{s:s}", "name", kr->name);
            put_counts(kj, kr->registers, kr->smem_static, kr->spill_stores, kr->spill_loads);
            json_array_append_new(ks, kj);
        }
        put(o, "kernels", ks);
    }
    return o;
}

static json_t *impls_of(const run_data *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n_impls; i++) {
        const run_impl *im = &r->impls[i];
        json_t *o = json_pack("{s:s, s:s, s:s}", "name", im->name, "title", im->title, "kind", im->kind);
        if (im->has_resources) put(o, "resources", resources_of(im));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *numbers(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_real(x[i]));
    return a;
}

/* pass, then max_abs and rel_l2 where known: the correctness object's order */
static json_t *correctness_of(int pass, double max_abs, double rel_l2)
{
    json_t *o = json_pack("{s:b}", "pass", pass);
    put(o, "max_abs", real_or_null(max_abs));
    put(o, "rel_l2", real_or_null(rel_l2));
    return o;
}

static json_t *result_of(const run_result *x)
{
    json_t *o = json_pack("{s:s, s:o, s:s, s:b}", "impl", x->impl, "shape", run_write_shape(&x->shape, 1),
                          "tag", x->tag, "supported", x->supported);
    put(o, "reason", x->reason ? json_string(x->reason) : json_null());
    if (x->checked) put(o, "correctness", correctness_of(x->correct, x->max_abs, x->rel_l2));
    if (x->timed) {
        json_t *g = json_pack("{s:o, s:f, s:f, s:f}", "samples_us", numbers(x->samples, x->n_samples),
                              "median_us", x->median_us, "ci_lo_us", x->ci_lo_us, "ci_hi_us", x->ci_hi_us);
        put(g, "stop", str_or_null(x->graph_stop));
        if (x->discarded) put(g, "clock", json_pack("{s:I}", "discarded", (json_int_t)x->discarded));
        put(o, "timing", json_pack("{s:o}", "graph", g));
    }
    if (x->n_paired) {
        json_t *p = json_pack("{s:s}", "baseline", x->paired_baseline);
        /* the design as far as the reader tells it: "rotation" (the pairs that decide) or
         * left out ("pair", or a file from before the rotation) */
        if (x->paired_rotation) put(p, "design", json_string("rotation"));
        put(p, "stop", str_or_null(x->paired_stop));
        put(p, "impl_us", numbers(x->paired_impl, x->n_paired));
        put(p, "baseline_us", numbers(x->paired_base, x->n_paired));
        put(o, "paired", p);
    }
    if (x->paired_throttled)
        put(o, "paired_throttled", json_pack("{s:s, s:I}", "baseline", x->paired_throttled_baseline,
                                             "discarded_pairs", (json_int_t)x->discarded_pairs));
    if (x->has_ratio) {
        json_t *ra = json_object();
        if (x->ratio_baseline[0]) put(ra, "baseline", json_string(x->ratio_baseline));
        put(ra, "median", json_real(x->ratio));
        put(ra, "ci_lo", json_real(x->ratio_lo));
        put(ra, "ci_hi", json_real(x->ratio_hi));
        put(o, "derived", json_pack("{s:o}", "ratio", ra));
    }
    return o;
}

static json_t *kernel_profile_of(const run_kernel_profile *k)
{
    json_t *m = json_object(), *stalls = json_array();
    for (size_t i = 0; i < k->n_metrics; i++) {
        const run_metric *x = &k->metrics[i];
        put(m, x->name, x->is_number ? json_real(x->number) : x->text ? json_string(x->text) : json_null());
    }
    for (size_t i = 0; i < k->n_stalls; i++) json_array_append_new(stalls, run_write_stall(&k->stalls[i]));
    return json_pack("{s:s, s:o, s:o}", "kernel", k->kernel, "metrics", m, "stall_top", stalls);
}

static json_t *profiles_of(const run_data *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n_profiles; i++) {
        const run_profile *p = &r->profiles[i];
        json_t *ks = json_array();
        for (size_t k = 0; k < p->n_kernels; k++) json_array_append_new(ks, kernel_profile_of(&p->kernels[k]));
        json_array_append_new(a, run_write_profile(p->impl, &p->shape, p->tool, ks));
    }
    return a;
}

static json_t *input_checks_of(const run_data *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n_input_checks; i++) {
        const run_input_check *c = &r->input_checks[i];
        json_array_append_new(a, json_pack("{s:s, s:o, s:s, s:s, s:o}", "impl", c->impl, "shape",
                                           run_write_shape(&c->shape, 1), "tag", c->tag, "inputs", c->inputs,
                                           "correctness", correctness_of(c->correct, c->max_abs, c->rel_l2)));
    }
    return a;
}

static json_t *cost_of(const run_data *r)
{
    if (isnan(r->cost_wall_s) && isnan(r->cost_gpu_s) && r->cost_measurements < 0) return NULL;
    json_t *o = json_object();
    put(o, "wall_s", real_or_null(r->cost_wall_s));
    put(o, "gpu_timed_s", real_or_null(r->cost_gpu_s));
    put(o, "measurements", long_or_null(r->cost_measurements));
    return o;
}

json_t *run_to_doc(const run_data *r)
{
    json_t *results = json_array();
    for (size_t i = 0; i < r->n_results; i++) json_array_append_new(results, result_of(&r->results[i]));
    run_document d = { .partial = r->marked_partial, .created_utc = r->created_utc, .context = context_of(r),
                       .method = method_of(r), .ceilings = ceilings_of(r), .implementations = impls_of(r),
                       .results = results, .input_checks = r->input_checks ? input_checks_of(r) : NULL,
                       .cost = cost_of(r), .profile = r->profiles ? profiles_of(r) : NULL };
    return run_write_document(&d);
}
