/* evidence/reader.h: the one evidence reader. A run file read into plain structs for
 * every consumer (show, run's table, gate, compare, report): its context, implementations,
 * per-shape results (graph-mode timing, derived figures) and profiler rows. Everything
 * the consumers use is checked here once, so a malformed file fails with one message
 * naming the file and the field path, and no consumer touches the JSON. */
#ifndef ATTNLADDER_EVIDENCE_READER_H
#define ATTNLADDER_EVIDENCE_READER_H
#include <stddef.h>
#include <jansson.h>
#include "attn_phase.h"
#include "core/shapes.h"   /* shape_same: whether two results are at one shape */
#include "measure/clock_watch.h"   /* CLOCK_LIMITS: the violation counters a snapshot keeps */

/* One kernel of an implementation's shared object (resources.kernels[]): its mangled
 * name and what the build says of it; -1 where absent. */
typedef struct {
    const char *name;
    long registers, smem_static, spill_stores, spill_loads;
} run_kernel_resources;

typedef struct {
    const char *name, *title, *kind;   /* kind: "phase", "baseline", "floor", "external" */
    int has_resources;
    /* over every kernel of the object: the largest registers and static smem, the sum of
     * the spills; -1 where absent */
    long registers, smem_static, spill_stores, spill_loads;
    run_kernel_resources *kernels;     /* each kernel, n_kernels of them (0: not listed) */
    size_t n_kernels;
} run_impl;

typedef struct {
    size_t index;                  /* position in the evidence's results array */
    const char *impl, *tag;
    attn_shape shape;              /* scale is ignored when matching shapes */
    int supported;
    const char *reason;            /* why unsupported, or NULL */
    const char *init_note;         /* what init chose (the kernel, its tiles), or NULL */
    int checked, correct;          /* checked: a correctness verdict is present */
    double rel_l2, max_abs;        /* NAN when absent */
    int timed;                     /* a graph-mode timing with samples is present */
    double median_us, ci_lo_us, ci_hi_us;
    double *samples;               /* graph-mode samples_us, n_samples of them */
    size_t n_samples;
    int throttled;                 /* graph-mode sampling stopped past the clock discard limit */
    size_t discarded;              /* graph-mode samples discarded for a clock event */
    const char *graph_stop, *paired_stop;   /* timing.graph.stop, paired.stop; NULL when absent */
    /* paired_throttled: every round of the point's rotation with paired_throttled_baseline
     * fell under a clock event (discarded_pairs of them), so no pairs were kept */
    int paired_throttled;
    const char *paired_throttled_baseline;   /* NULL when absent */
    size_t discarded_pairs;
    /* results[].paired: this implementation and `paired_baseline` timed interleaved,
     * pair i = (paired_impl[i], paired_base[i]); n_paired 0 when absent */
    const char *paired_baseline;
    double *paired_impl, *paired_base;
    size_t n_paired;
    int paired_rotation;           /* results[].paired.design "rotation": timed in the
                                      point's rotation (the pairs that decide) */
    int has_ratio;                 /* derived.ratio against `ratio_baseline` */
    const char *ratio_baseline;    /* "" when absent */
    double ratio, ratio_lo, ratio_hi;
    double flops, bytes, tflops, gbps;   /* NAN when absent */
    double frac_fp16_peak, frac_dram;    /* NAN when null */
    /* timing.l2: how the inputs were kept cold in L2 (measure/l2_copies.h); l2_state -1
     * where the run does not say (runs before it: "not recorded") */
    int l2_state;
    int l2_copies;
    size_t l2_copy_bytes, l2_bytes;      /* one set of Q, K and V; the device's L2 */
    /* gbps above the run's measured copy ceiling by more than RUN_CEILING_SLACK on inputs
     * that may have stayed in L2 (resident, not recorded): not a DRAM figure, never shown as
     * one. On cold inputs (rotated, cold by size) the figure is a read rate (a copy writes a
     * byte for each it reads), held to the read stream's ceiling instead, where measured */
    int above_ceiling;
} run_result;

/* A GB/s figure may pass the copy ceiling by this fraction before it is flagged: the
 * ceiling is the median of ten copies, which vary by a few tenths of a percent. */
#define RUN_CEILING_SLACK 0.01

/* "resident", "rotated", "cold_by_size", or "not recorded" (l2_state -1). */
const char *run_l2_text(const run_result *x);

/* One profiler metric of a kernel: a number or a text (NULL when a number). */
typedef struct {
    const char *name;
    int is_number;
    double number;
    const char *text;
} run_metric;

typedef struct {
    const char *reason;
    double per_issue;              /* stall cycles per issued instruction */
} run_stall;

typedef struct {
    const char *kernel;
    run_metric *metrics;
    size_t n_metrics;
    run_stall *stalls;             /* the top stall reasons, in the evidence's order */
    size_t n_stalls;
} run_kernel_profile;

/* One `profile` row: an implementation's kernels profiled at one shape. */
typedef struct {
    const char *impl, *tool;       /* tool: "ncu" when absent */
    attn_shape shape;
    run_kernel_profile *kernels;
    size_t n_kernels;
} run_profile;

/* One correctness check on other inputs than the timed ones (`input_checks`). */
typedef struct {
    const char *impl, *tag, *inputs;   /* inputs: "peaked", "outliers", ... */
    attn_shape shape;
    int correct;
    double rel_l2, max_abs;            /* NAN when absent */
} run_input_check;

/* One ATTN* variable of context.env_overrides (value NULL when not a string). */
typedef struct {
    const char *name, *value;
} run_env_override;

/* The machine and library versions of context.gpu / context.versions (-1 or NULL when
 * absent). */
typedef struct {
    long device_index;             /* -1 when absent (runs before it was recorded) */
    const char *uuid, *cuda_visible_devices;
    long sm_count, cc_major, cc_minor;
    long cuda_runtime, cuda_driver, cublas, cudnn;
    const char *driver, *nvcc;
    const char *cudnn_path;        /* the cuDNN the run's process loaded (NULL when absent) */
} run_context;

/* What the run's clocks say of its numbers (run_data.clocks, derived when read):
 * THROTTLED, a result stopped past the clock discard limit, a snapshot named a thermal or
 * brake reason, or the violation counters say a thermal, board or reliability limit held
 * the clocks down (the numbers may be low); POWER_CAP, the run was marked throttled for
 * the software power cap alone (its normal state under load); else NOT_THROTTLED. */
typedef enum {
    RUN_CLOCKS_NOT_THROTTLED = 0,
    RUN_CLOCKS_POWER_CAP,
    RUN_CLOCKS_THROTTLED
} run_clock_state;

/* What said a run marked throttled was at the power cap (run_data.clocks POWER_CAP): the
 * snapshots at its processes' starts and ends, NVML's violation counters between them, or
 * the reasons read after every timed sample (where the snapshots cannot tell). */
typedef enum {
    RUN_CAP_FROM_SNAPSHOTS = 0,
    RUN_CAP_FROM_COUNTERS,
    RUN_CAP_FROM_SAMPLES
} run_cap_basis;

typedef struct {
    char *path;                    /* as given */
    const char *base;              /* file name within path */
    json_t *doc;
    const char *gpu_name, *slug, *created_utc, *commit;
    int dirty, partial, throttled; /* throttled: context.throttled as recorded */
    run_clock_state clocks;        /* derived from it, the snapshots and the results */
    /* Seconds each limit (clock_watch.h, CLOCK_LIMIT_*) held the clocks down between the
     * snapshots at the start and end of each of the run's processes: NVML's violation
     * counters, end minus start, summed over a resumed run's segments. have_violation 0:
     * a snapshot without them, or counters that went back (a driver reloaded). */
    int have_violation;
    double violation_s[CLOCK_LIMITS];
    run_cap_basis cap_basis;       /* when clocks is POWER_CAP */
    /* The per-sample clock watch (method.clock_watch.per_sample): how many measurements
     * (timing modes and rotations) it read, how many of them it saw at the power cap, and
     * the reasons it saw in any; samples_read 0: not watched, or a list not read. */
    int samples_read;
    size_t watched, watched_capped;
    unsigned long long sample_reasons;
    int marked_partial;            /* the file's own "partial" (partial also counts its name) */
    const char *baseline;          /* method.baseline, "" when none */
    double ci_level;               /* method.ci_level, 0.95 when absent */
    unsigned long long stats_seed; /* method.stats_seed: the seed of the run's own bootstraps */
    size_t resamples;              /* method.bootstrap_resamples, 2000 when absent */
    int ratio_rotation;            /* method.ratio "paired" with method.ratio_design: every
                                      result's ratio is its pairs' (the rotation's rounds or
                                      pairs with the baseline alone); 0: the separate
                                      measurements' (older paired files included) */
    const char *ratio_method;      /* method.ratio as written, NULL when absent */
    int has_ratio_design;          /* method.ratio_design is an object */
    int has_ci_level, has_stats_seed, has_resamples;   /* present in the file, not defaults */
    const char *planted;           /* context.planted_slowdown: a test build's plant, or NULL */
    const char *overrides;         /* context.env_overrides as "NAME=value ...", or NULL */
    char *overrides_buf;
    run_env_override *env;         /* context.env_overrides in the file's order; NULL when absent */
    size_t n_env;
    double fp16_tflops, dram_gbps; /* ceilings, NAN when null */
    double read_gbps;              /* the read stream's ceiling, NAN when absent (runs from before it) */
    double launch_floor_us;        /* graph-mode median of the empty kernel, NAN if absent */
    run_impl *impls;
    size_t n_impls;
    run_result *results;
    size_t n_results;
    run_context ctx;
    double cost_wall_s, cost_gpu_s;   /* the run's wall time and timed device time, NAN if absent */
    long cost_measurements;           /* timed measurements, -1 if absent */
    run_profile *profiles;
    size_t n_profiles;
    run_input_check *input_checks;
    size_t n_input_checks;
} run_data;

/* Loads and validates path (evidence/evidence_file.h), then reads it. 0, or -1 with err naming the
 * file and the field. */
int run_open(run_data *r, const char *path, char *err, size_t errlen);
/* The same for a document already in memory (takes a reference to doc). */
int run_from_doc(run_data *r, json_t *doc, const char *path, char *err, size_t errlen);
void run_close(run_data *r);
/* The newest run under root (file names start with their UTC stamp): partial runs, by
 * name or by content, are passed over unless include_partial. 0; -1 with err when there is
 * none or the newest cannot be read (an unreadable newest run is not skipped). */
int run_open_newest(run_data *r, const char *root, int include_partial, char *err, size_t errlen);

const run_impl *run_find_impl(const run_data *r, const char *name);
/* The result of impl at shape (scale ignored), or NULL. */
const run_result *run_find(const run_data *r, const char *impl, const attn_shape *s);

/* An evidence shape object: -1 when read, else the index of the first missing or
 * non-integer key of batch, heads, seq_q, seq_kv, head_dim, causal (scale is read when
 * present, else 0). */
int run_read_shape(json_t *js, attn_shape *s);

/* A kernel's metric by name, or NULL. */
const run_metric *run_metric_find(const run_kernel_profile *k, const char *name);

/* Two results of one kernel: their init notes (what each implementation said it chose at
 * the shape) are present and the same. The reports' "same kernel" step and the same-kernel
 * spread of the paired method's targets both read it. */
int run_same_kernel(const run_result *a, const run_result *b);
/* A total order for tables: headline first (when headline != NULL, count nh), then
 * head_dim, causal, seq_q, seq_kv, batch, heads. */
int run_shape_order(const attn_shape *a, const attn_shape *b, const attn_shape *headline,
                    size_t nh);
/* "1x8x512x64", "1x8x512x64 causal", "1x8x129:257x64" */
void run_shape_text(const attn_shape *s, char *buf, size_t len);

#endif
