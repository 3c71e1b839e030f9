/* evidence/result_ratio.h: a result's ratio to a baseline in the same run, the one rule
 * every gate, compare, the report and the results table read it by (DESIGN.md, Gate). */
#ifndef ATTNLADDER_EVIDENCE_RESULT_RATIO_H
#define ATTNLADDER_EVIDENCE_RESULT_RATIO_H
#include "evidence/reader.h"

/* Whether the result's pairs decide its ratio: a run that measured its ratios in rotation
 * (run_data.ratio_rotation) and a result timed in that rotation (design "rotation"). The
 * pairs of `run --paired` before the rotation, and a slow rung's pairs with the baseline
 * alone (design "pair"), are kept in the file and never decide. */
int result_pairs_decide(const run_data *run, const run_result *res);

/* The bridge of a result whose pairs decide and name another implementation than
 * `baseline` (an external timed in PyTorch's process, paired there with a rung): that
 * rung's row at the same shape, when the rung is a phase (its machine code does not depend
 * on the cuDNN either process loaded) and its own pairs decide and name `baseline`; else
 * NULL. A bridge is never followed through another. */
const run_result *result_bridge(const run_data *run, const run_result *res, const char *baseline);

/* The ratio of a result to `baseline` at the same shape with its bootstrap CI, recomputed
 * with the run's own bootstrap seed and count: the median of the paired quotients where
 * the pairs decide; through a bridge (result_bridge), the product of the two processes'
 * paired ratios with a CI that resamples both (stats_bridged_ratio_ci); else the quotient
 * of the two separate graph medians. 0, or -1 when either is untimed or the pairs name
 * another baseline and no bridge carries them to it. */
int result_ratio(const run_data *run, const run_result *res, const char *baseline, double *ratio, double *lo,
                 double *hi);

/* The same ratio without its CI (no bootstrap). 0 and the same ratio where result_ratio
 * returns 0, -1 where it returns -1. */
int result_point_ratio(const run_data *run, const run_result *res, const char *baseline, double *ratio);

#endif
