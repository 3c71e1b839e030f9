/* gate/ratio.h: a result's ratio to the gate's baseline in the same run, the number
 * every gate, compare and the report judge (DESIGN.md, Gate). */
#ifndef ATTNLADDER_GATE_RATIO_H
#define ATTNLADDER_GATE_RATIO_H
#include "gate/config.h"
#include "evidence/reader.h"

/* The ratio of a result to the config's baseline at the same shape, with its bootstrap
 * CI, recomputed from both sample sets with the run's own bootstrap seed and count.
 * 0, or -1 when either is untimed. */
int gate_result_ratio(const gate_config *c, const run_data *run, const run_result *res,
                      double *ratio, double *lo, double *hi);

/* The same ratio without its CI (no bootstrap), for readers of the point only: the
 * accepted set's centre and spread. 0 and the same ratio where gate_result_ratio returns 0,
 * -1 where it returns -1. */
int gate_result_point_ratio(const gate_config *c, const run_data *run, const run_result *res, double *ratio);

#endif
