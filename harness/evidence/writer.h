/* evidence/writer.h: the one evidence writer, the mirror of reader.h. Typed values in,
 * the evidence's JSON out, in the key order and number forms of ../evidence/SCHEMA.md:
 * the pieces a run is assembled from (a shape, the device context, the top-level
 * document), and a whole run_data, which reading it again gives back field for field.
 * Every function returns a new reference (NULL only when out of memory); the bytes are
 * evidence_file.h's to write. */
#ifndef ATTNLADDER_EVIDENCE_WRITER_H
#define ATTNLADDER_EVIDENCE_WRITER_H
#include <jansson.h>
#include "attn_phase.h"
#include "evidence/reader.h"
#include "measure/clock_watch.h"
#include "measure/device_info.h"
#include "measure/kernel_resources.h"
#include "measure/point_record.h"
#include "measure/step_clock.h"
#include "measure/timing.h"

/* A shape object: batch, heads, seq_q, seq_kv, head_dim, causal, then scale when
 * with_scale (the profile rows carry none). */
json_t *run_write_shape(const attn_shape *s, int with_scale);

/* context.gpu, context.versions, context.git (a build's git in ab's builds too) and a
 * clocks_before/clocks_after snapshot, from what measure/device_info.h read. */
json_t *run_write_gpu(const device_gpu *g);
json_t *run_write_versions(const device_versions *v);
json_t *run_write_git(const device_git *g);
json_t *run_write_clocks(const clock_reading *c);

/* method: how everything in a run was measured, as `run` records it. The fixed texts (the
 * inputs' timed distribution, the ratio design's description) are the writer's: they
 * describe measure/point_ratios.c's rotation and measure/inputs.c's draws. */
typedef struct {
    const char *const *modes;            /* timing modes of headline points, by name */
    size_t n_modes;
    const char *const *sweep_modes;      /* of every other point */
    size_t n_sweep_modes;
    int inner;
    double graph_target_us;
    size_t min_samples, max_samples;
    double max_seconds, rel_ci_target;
    size_t bootstrap_resamples;
    double ci_level;
    unsigned long long seed, stats_seed;
    double bound_rel_l2, bound_max_abs;  /* the correctness bounds */
    size_t l2_scrub_bytes;
    const char *baseline;                /* "" when none */
    double full_ref_gflop;
    long long sample_rows;
    const char *const *checked_also;     /* inputs: the other distributions checked */
    size_t n_checked_also;
    int sample_tile_rows;
    size_t chunk_elems;
    double min_gpu_s;
    int paired;                          /* ratios from the rotation; 0: independent */
    struct {                             /* ratio_design, written when paired */
        double slow_factor;
        size_t min_rounds, max_rounds;
        double max_seconds, rel_ci_target, min_gpu_s;
    } rotation;
    const char *oracle_gpu, *oracle_gpu_why_not;   /* reference: the GPU oracle's path or why none */
    double cpu_check_gflop, oracle_agree_max_abs;
    int per_sample;                      /* clock_watch: the clock read after every sample */
    const char *watch_why_not, *discard;
    double discard_limit;
} run_method;

json_t *run_write_method(const run_method *m);

/* context.env_overrides{name: value}: the ATTN* variables set for a run (reader.h's
 * run_env_override; a value NULL is written null). */
json_t *run_write_env_overrides(const run_env_override *env, size_t n);

/* The context of the process that ran: gpu, versions, git, host, argv, planted_slowdown
 * (test builds), env_overrides, clocks_before, nvml, throttled, clocks_after. */
typedef struct {
    const device_gpu *gpu;
    const device_versions *versions;
    const device_git *git;
    const char *host;
    char *const *argv;
    size_t argc;
    const char *planted_slowdown;          /* NULL: left out */
    const run_env_override *env;
    size_t n_env;
    const clock_reading *clocks_before;    /* NULL: not read (written null) */
    const char *nvml;                      /* "ok", or why the clocks could not be read */
    int throttled;
    const clock_reading *clocks_after;     /* NULL: not read (written null) */
} run_process_context;

json_t *run_write_context(const run_process_context *c);

/* ceilings of a run measured by this process: the copy bandwidth and GEMM rate (null
 * where not measured: <= 0), the copy's size and the GEMM's n, and the read stream's rate
 * over the copy's source (written only where measured: runs from before it have no
 * read_gbps). The launch floor, a timing object per mode, is added once measured. */
typedef struct {
    double dram_gbps, fp16_tflops;
    size_t copy_bytes;
    int gemm_n;
    double read_gbps;
} run_ceilings;

json_t *run_write_ceilings(const run_ceilings *c);

/* cost: the run's wall and timed device time, its measurements, and where the time went
 * (stages_s, steps_s, points: objects and arrays stolen by run_write_cost). */
typedef struct {
    double wall_s, gpu_timed_s;
    size_t measurements;
    json_t *stages_s, *steps_s, *points;
} run_cost;

json_t *run_write_cost(run_cost *c);

/* implementations[].resources, from measure/kernel_resources.h's typed value. The ptxas
 * report's: arch, registers, smem_static, stack_bytes, spill_stores, spill_loads, kernels
 * (name, registers, smem_static, stack_bytes, spill_stores, spill_loads). The loaded
 * code's: source "loaded", arch, registers, smem_static, stack_bytes, spills_from, kernels
 * (name, registers, smem_static, local_bytes, max_threads, binary_version, then the spills
 * where known), then the spill totals where known. */
json_t *run_write_resources(const kernel_resources *r);

/* implementations[]: one implementation as `run` loaded it. Its resources (borrowed;
 * NULL: written null) are the loaded code's own, or, where the driver could not say
 * (ptxas_why), the build's ptxas report's, which then says so (source "ptxas report",
 * loaded_why_not). */
typedef struct {
    const char *name, *title, *kind, *path;
    const kernel_resources *resources;
    const char *ptxas_why;      /* NULL: the resources are the loaded code's */
} run_impl_record;

json_t *run_write_impl(const run_impl_record *r);

/* ---- a point's rows, from measure/point_record.h's typed values -------------------- */

/* One timing mode (timing.<mode>, ceilings.launch_floor.<mode>): inner, n, the samples and
 * their summary rounded to 1e-4 us, the stop reason, wall and GPU seconds; then, where the
 * clock was read after every sample and clock is not NULL, its per-sample figures. */
json_t *run_write_timing_mode(const time_result *r, const clock_policy *clock);
/* timing.l2: state, copies, copy_bytes, bytes (the copies'), l2_bytes. */
json_t *run_write_l2(const l2_plan *p);

/* The clock of a rotation's rounds or of an A/B comparison's pairs (paired.clock, an A/B
 * row's clock): null when the policy watched no clock. */
json_t *run_write_rounds_clock(const unsigned *sm_mhz, size_t n, const clock_tally *t, const clock_policy *p);

/* {"inputs": 0.12, ...}: every step's seconds (cost.steps_s), rounded to 0.1 ms. */
json_t *run_write_steps(const step_times *st);

/* A result's derived object (results[].derived): the rates, the fractions of the ceilings
 * (null without one) and the ratio (null without one). */
json_t *run_write_derived(const result_derived *d);

/* results[]: impl, shape, tag, supported, reason, init_note, correctness (its after_timing
 * last), timing, paired, paired_throttled, derived, each where the result has it. */
json_t *run_write_result(const result_record *r);
/* input_checks[], reference_checks[] and cost.points[] members. */
json_t *run_write_input_check(const input_check_record *c);
json_t *run_write_oracle_check(const oracle_check_record *c);
json_t *run_write_point_cost(const point_cost_record *c);

/* A point's record appended to the run's arrays: its results, input checks, oracle checks
 * and cost (when it has one). 0, or -1 out of memory (what was appended stays). */
int run_write_point(const point_record *p, json_t *results, json_t *input_checks, json_t *reference_checks,
                    json_t *points);

/* profile[]: one row (impl, shape without scale, tool, kernels, which it takes) and one
 * stall reason of a kernel's stall_top. */
json_t *run_write_profile(const char *impl, const attn_shape *s, const char *tool, json_t *kernels);
json_t *run_write_stall(const run_stall *st);

/* The A/B comparison's file (`ab --out`, schema attnladder-ab version 3): the device, the
 * two builds' git, the order loaded, the rule's settings, the sampling method, the clock
 * watch, which rungs it saw as changed and why (version 3; gate/rung_change.h), and the
 * code paths and rows it measured (borrowed). */
typedef struct {
    const device_gpu *gpu;
    const device_versions *versions;
    const device_git *base_git, *head_git;
    int head_first;
    unsigned long long seed;
    double tolerance, baseline_tolerance;
    size_t min_samples, max_samples;
    double min_gpu_s, max_seconds;
    int warmup;
    int per_pair;                  /* the clock read after every pair */
    const char *watch_why_not, *discard;
    double discard_limit;
    json_t *changes, *paths, *rows;   /* changes: NULL leaves it out */
} run_ab_document;

json_t *run_write_ab(const run_ab_document *d);

/* One implementation at one shape, a member of the A/B file's rows[]. What is written
 * depends on how far the comparison got: a failed check (error, verdict "failed"), too
 * many pairs under clock events (clock, verdict "throttled", pairs, stop), or a decision
 * (clock, the rule's tolerance and seed, the change with its CI, verdict, the pairs and
 * both sides' samples). */
typedef enum { RUN_AB_FAILED, RUN_AB_THROTTLED, RUN_AB_DECIDED } run_ab_outcome;

typedef struct {
    const double *samples_us;      /* `pairs` of them */
    double median_us;
} run_ab_side;

typedef struct {
    run_ab_outcome outcome;
    const char *impl, *kind, *shape;
    const char *selected;                /* why it was timed: "fixed" (the gate's set), "path"
                                            (one shape of a code path), "moved" (a sweep point
                                            where the builds' init notes differ in full), "probe"
                                            (a rule probe off the sweep where a rule moved), "sweep"
                                            (a sweep point of a rung the head changed) */
    int correct;
    const char *base_note, *head_note;   /* what each build said it chose; NULL: left out */
    const char *error;                   /* RUN_AB_FAILED: why the check failed */
    json_t *clock;                       /* the pairs' clock watch (measure/interleave.h);
                                            stolen, NULL for RUN_AB_FAILED */
    double tolerance;
    unsigned long long bootstrap_seed;
    double change, change_lo, change_hi; /* head/base: the median and its CI */
    const char *verdict;                 /* RUN_AB_DECIDED: the rule's (gate/ab_rule.h) */
    size_t pairs, base_first;
    int inner;
    const char *stop;
    double gpu_s;
    double wall_s;                       /* the row's wall time: inputs, checks, graphs, pairs */
    run_ab_side base, head;
} run_ab_row;

json_t *run_write_ab_row(const run_ab_row *r);

/* One code path of a build in the A/B file's paths{impl: {base: [], head: []}}: its key,
 * the shape that times it ("-" when none), and whether a fixed shape does. */
typedef struct {
    const char *path, *shape;
    int fixed;
} run_ab_path;

json_t *run_write_ab_paths(const run_ab_path *base, size_t n_base, const run_ab_path *head, size_t n_head);

/* The parts of a run document, each already an object or array (stolen by
 * run_write_document; NULL leaves the key out, except where said). */
typedef struct {
    int partial;
    const char *created_utc;
    json_t *context, *method, *ceilings, *implementations, *results;
    json_t *input_checks, *reference_checks, *cost, *profile;
    int has_progress;              /* progress: {points, done} */
    long long progress_points, progress_done;
    json_t *resumed;               /* a resumed run's segments; NULL: none */
} run_document;

/* The document in the evidence's top-level order: schema, schema_version, partial,
 * created_utc, context, method, ceilings, implementations, results, input_checks,
 * reference_checks, cost, progress, resumed, profile. Takes every json_t of d. */
json_t *run_write_document(run_document *d);

/* The run as the reader holds it: every field run_data covers, where the file had it,
 * in the file's order; reading the result gives the same run_data and writing that the
 * same bytes. Fields the reader does not keep (a result's other timing modes, the
 * method's other settings, the costs per point) are not written. */
json_t *run_to_doc(const run_data *r);

#endif
