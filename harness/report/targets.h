/* report/targets.h: the paired method's targets, read from a GPU's accepted runs: the same
 * kernel measured twice in one run within 1%, and a fresh session reproducing every row
 * within 2% (ci/README.md, "The gates' reliability"). */
#ifndef ATTNLADDER_REPORT_TARGETS_H
#define ATTNLADDER_REPORT_TARGETS_H
#include <stdio.h>
#include "report/model.h"

/* The same kernel twice in one run: two rungs whose init notes are identical at a point
 * (a rung that hands the shape to the one below), both in the rotation; the quotient of
 * their paired ratios. Over the runs given: how many pairs, the lowest and highest
 * quotient - 1. 0, or -1 when there is none. */
int report_same_kernel_spread(const run_data *const *runs, size_t n_runs, size_t *n_pairs, double *lo, double *hi);

/* Reproduction between two runs: the rows (a rung or the baseline at a shape) that both
 * timed with a ratio to the baseline, and how many of them moved by at most `within`
 * (ratio quotient - 1, either way). Rungs 01 and 02 are counted too. */
void report_reproduction(const run_data *a, const run_data *b, double within, size_t *n_rows, size_t *n_within);

/* The GPU page's paragraph quoting both from its accepted runs. */
void report_targets_paragraph(FILE *f, const report_ctx *c, const report_gpu *g);

#endif
