/* report/targets.h: the paired method's targets, read from a GPU's accepted runs: the same
 * kernel measured twice in one run within 1%, and a fresh session reproducing every row
 * within 2% (ci/README.md, "The gates' reliability"). */
#ifndef ATTNLADDER_REPORT_TARGETS_H
#define ATTNLADDER_REPORT_TARGETS_H
#include <stdio.h>
#include "report/model.h"

/* The same kernel twice in one run: two rungs whose init notes are identical at a point
 * (a rung that hands the shape to the one below), both in the rotation; the quotient of
 * their paired ratios, the later rung's over the earlier's. Over the runs given: how many
 * pairs, the lowest and highest quotient - 1, and the pair and point of each. */
typedef struct {
    double d;                      /* quotient - 1 */
    const char *later, *earlier;   /* rung names, in the runs */
    attn_shape at;
} report_spread_end;

typedef struct {
    size_t n_pairs;
    report_spread_end lo, hi;
} report_spread;

/* 0, or -1 when there is no pair. */
int report_same_kernel_spread(const run_data *const *runs, size_t n_runs, report_spread *out);

/* The sentence naming the pair at each end of the spread that lies past `target` (either
 * way), so that a reader can tell the method's noise at a small point from two rungs whose
 * notes agree but not their code (a rung that rebuilds a lower rung's kernels must mark its
 * notes: harness/gate/README.md). 1 with it written to buf, 0 (buf empty) when the spread
 * is inside the target. */
int report_spread_past_target(char *buf, size_t len, const report_spread *s, double target);

/* Reproduction between two runs: the rows (a rung or the baseline at a shape) that both
 * timed with a ratio to the baseline, and how many of them moved by at most `within`
 * (ratio quotient - 1, either way). Rungs 01 and 02 are counted too. */
void report_reproduction(const run_data *a, const run_data *b, double within, size_t *n_rows, size_t *n_within);

/* The top rung against the best rung below it, at every point where the run paired it
 * (in the rotation, with an init note). The rungs at a point whose init notes are equal run
 * one kernel: they count once, at the median of their paired ratios, the top rung among
 * its own kernel's rungs too, so that the lowest of several readings of one kernel is not
 * taken for a faster kernel. The step is that median over the lowest median of the other
 * kernels below; a point where every rung below with a ratio runs the top rung's kernel has
 * no step (one_kernel). */
typedef struct {
    const char *top;        /* the run's last rung (NN_ order), NULL when it has none */
    size_t points;          /* points with a step */
    size_t over;            /* of them, steps above `over` (slower by more than it) */
    size_t one_kernel;      /* points without one: one kernel below and above */
    double worst;           /* the largest step - 1, NAN without points */
    attn_shape worst_at;
} report_top_step;

/* 0, or -1 when the run has no rung or the top rung no point with a step. */
int report_top_rung_step(const run_data *r, double over, report_top_step *out);

/* A rung against the run's baseline at every point where it has a ratio (paired where the
 * rotation decides it, else of separate medians; result_point_ratio): how many points, how
 * many at or below 1.00 (unrounded), the geometric mean, and the highest and the lowest
 * ratio with their points (the first in the run's order on a tie). The figures the
 * ladder's promise is read by: a rung ahead of the baseline everywhere has at_or_below ==
 * points. */
typedef struct {
    size_t points, at_or_below;
    double geomean, highest, lowest;   /* NAN without points */
    attn_shape highest_at, lowest_at;
} report_vs_baseline;

/* 0, or -1 when the rung has no point with a ratio in the run. */
int report_rung_vs_baseline(const run_data *r, const char *rung, report_vs_baseline *out);

/* The GPU page's table of report_rung_vs_baseline for every rung of its reference run. */
void report_vs_baseline_table(FILE *f, const report_ctx *c, const run_data *r);
/* The same figures as plain text for a terminal (`show`, `run`): a line per rung of the run,
 * in the run's order; nothing when the run has no rung with a ratio. */
void report_vs_baseline_lines(FILE *f, const run_data *r);

/* The GPU page's paragraph quoting both from its accepted runs. */
void report_targets_paragraph(FILE *f, const report_ctx *c, const report_gpu *g);

#endif
