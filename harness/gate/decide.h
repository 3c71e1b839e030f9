/* gate/decide.h: the ladder decision as a pure function of the measured numbers, and the
 * bootstrap of a phase's change between two runs that is shown beside the drift rule's
 * verdict (gate/drift.h decides it). */
#ifndef ATTNLADDER_GATE_DECIDE_H
#define ATTNLADDER_GATE_DECIDE_H
#include <stddef.h>
#include <stdint.h>
#include "gate/config.h"

/* Ladder: pass when the upper end of the ratio's CI is below the phase's bound. */
int gate_ladder_pass(double ratio_ci_hi, double ratio_max);

/* A phase's ratio to the baseline in two runs, and their quotient. */
typedef struct {
    double ref, ref_lo, ref_hi;        /* median(phase_ref) / median(base_ref), CI */
    double now, now_lo, now_hi;        /* the same in the run under test */
    double change, lo, hi;             /* now / ref and its bootstrap CI */
} reg_change;

/* Bootstraps the change: each resample draws the four sample sets (phase and baseline,
 * in each run) independently with replacement and takes the quotient of the ratios of
 * their medians; the CI is the percentile interval at `conf`. The two ratios' own CIs
 * come from the same resamples. 0, or -1 on empty input or allocation failure. */
int gate_change_ci(const double *p_now, size_t n_pn, const double *b_now, size_t n_bn,
                   const double *p_ref, size_t n_pr, const double *b_ref, size_t n_br,
                   size_t resamples, uint64_t seed, double conf, reg_change *out);

#endif
