/* measure/point_record.h: what measuring one point gives, as typed values: a result per
 * implementation (its correctness, the timing of each mode, the pairs of the point's
 * rotation, the derived figures), the checks on the other inputs, the GPU oracle's checks
 * against the CPU rows, and what the point cost. measure/ fills them and writes no JSON:
 * evidence/writer.c writes them (run_write_point) in the key order of
 * ../../evidence/SCHEMA.md, the mirror of what evidence/reader.c reads. The types live
 * here, below evidence/, because measure/ fills them and may not use a stage above it. */
#ifndef ATTNLADDER_MEASURE_POINT_RECORD_H
#define ATTNLADDER_MEASURE_POINT_RECORD_H
#include <stddef.h>
#include "attn_phase.h"
#include "measure/clock_watch.h"
#include "measure/correctness.h"
#include "measure/l2_copies.h"
#include "measure/step_clock.h"
#include "measure/timing.h"

/* One verdict of an output (results[].correctness, its after_timing, an input check's
 * correctness): the comparison's figures, or (compared 0) a run that failed and why. */
typedef struct {
    int pass;
    int compared;              /* nonfinite, max_abs, rel_l2, checked: c's */
    compare_result c;
    const char *reference;     /* correctness.reference and rows_checked; NULL: not named
                                  (after_timing) */
    size_t rows_checked;
    int has_vs_baseline;       /* the baseline's full output against this one */
    compare_result vs_baseline;
    char error[512];           /* why it failed where no figure says it; "" none */
} result_check;

typedef struct {
    result_check check;        /* on the uniform inputs, before timing */
    int has_after;
    result_check after;        /* after_timing: the last timed launch's output */
} result_correctness;

/* results[].timing: each mode measured (timed[m]) and the clock rule its samples were
 * read under (the mode's clock object is written when its clock was read), and how the
 * point's inputs were kept cold in L2 (the graph mode and the point's rotation alike). */
typedef struct {
    int timed[MODE_COUNT];
    time_result mode[MODE_COUNT];   /* owned */
    clock_policy clock;
    int has_l2;                     /* timing.l2: how the inputs were kept cold in L2 */
    l2_plan l2;
} result_timing;

/* The clock of a rotation's rounds or an A/B comparison's pairs (paired.clock, an A/B
 * row's clock): the SM clock after each, what fell under a clock event; written null
 * when the clock was not read (policy's watch NULL). */
typedef struct {
    unsigned *sm_mhz;          /* n of them, owned */
    size_t n;
    clock_tally tally;
    clock_policy policy;
} rounds_clock;

/* results[].paired: the implementation and the baseline in the rounds of the point's
 * rotation (design "rotation"), pair i = (impl_us[i], baseline_us[i]). */
typedef struct {
    const char *baseline;
    size_t implementations;    /* how many rotated */
    int inner, baseline_inner;
    size_t n;
    const char *stop;
    double gpu_s, wall_s;
    double *impl_us, *baseline_us;   /* n each, owned */
    unsigned char *impl_first;       /* n flags, owned */
    rounds_clock clock;
} result_paired;

/* derived.ratio: the ratio to the baseline, method "paired" (the median of the paired
 * quotients) or "independent" (of the separate medians). */
typedef struct {
    const char *baseline, *method;
    double median, ci_lo, ci_hi;
} derived_ratio;

typedef struct {
    double flops, bytes, tflops, gbps;
    double frac_fp16_peak, frac_dram;   /* NAN: no ceiling (written null) */
    int has_ratio;                      /* 0: ratio null */
    derived_ratio ratio;
} result_derived;

/* One implementation at one shape (results[]). */
typedef struct {
    const char *impl, *tag;
    attn_shape shape;
    int supported;
    char reason[1025];             /* not supported: why; supported: written null (an
                                      evidence string holds 1024 bytes at most) */
    int has_init_note;
    char init_note[1025];          /* error_string(0) after init, copied then: an object
                                      may say it from a buffer its next init rewrites */
    int checked;
    result_correctness correctness;
    int timed;
    result_timing timing;
    int has_paired;
    result_paired paired;
    const char *paired_throttled;  /* the baseline of a rotation whose every round fell
                                      under a clock event; NULL: none */
    size_t discarded_pairs;
    int has_derived;
    result_derived derived;
} result_record;

/* input_checks[]: an implementation on other inputs, untimed. */
typedef struct {
    const char *impl, *tag, *inputs;
    attn_shape shape;
    result_check correctness;
} input_check_record;

/* reference_checks[]: the GPU oracle against the CPU rows at a point, for one set of inputs. */
typedef struct {
    attn_shape shape;
    const char *tag, *inputs, *cpu;
    size_t rows, nonfinite;
    double max_abs, rel_l2;
    int pass;
} oracle_check_record;

/* cost.points[]: a point's wall time and its steps. */
typedef struct {
    attn_shape shape;
    const char *tag;
    double wall_s;
    step_times steps;
} point_cost_record;

/* Everything one point measured, in the order it was measured. The strings borrowed
 * (names, tags) are the loaded implementations' and the options'. */
typedef struct {
    result_record *results;        /* at most cap_results (one per implementation) */
    size_t n_results, cap_results;
    input_check_record *checks;
    size_t n_checks, cap_checks;
    oracle_check_record *oracle_checks;
    size_t n_oracle_checks, cap_oracle_checks;
    int has_cost;
    point_cost_record cost;
} point_record;

/* Room for n_impls results: their addresses stay put while the point is measured. 0, or
 * -1 out of memory. */
int point_record_init(point_record *p, size_t n_impls);
/* The next result (zeroed, NULL when all are taken), an input check and an oracle check
 * appended (NULL out of memory). */
result_record *point_record_result(point_record *p);
input_check_record *point_record_check(point_record *p);
/* Drops the last result, freeing what it owns (a measurement a fatal failure cut). */
void point_record_drop_last(point_record *p);
oracle_check_record *point_record_oracle_check(point_record *p);
void point_record_free(point_record *p);

void result_paired_free(result_paired *p);

#endif
