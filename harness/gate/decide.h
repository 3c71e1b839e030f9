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
    double ref, ref_lo, ref_hi;        /* the reference run's ratio, CI */
    double now, now_lo, now_hi;        /* the same in the run under test */
    double change, lo, hi;             /* now / ref and its bootstrap CI */
} reg_change;

/* One run's ratio as its samples give it (evidence/result_ratio.h's rule): `num` the
 * rotation's per-round quotients implementation / baseline and `den` NULL (the ratio is
 * their median), or `num` the implementation's and `den` the baseline's separate samples
 * (the ratio is the quotient of their medians). */
typedef struct {
    const double *num;
    size_t n_num;
    const double *den;
    size_t n_den;
} ratio_samples;

/* Bootstraps the change: each resample draws every sample set of the two ratios (in the
 * order now.num, now.den, ref.num, ref.den, those present) independently with replacement
 * and takes the quotient of the two ratios; the CI is the percentile interval at `conf`.
 * The two ratios' own CIs come from the same resamples. 0, or -1 on empty input or
 * allocation failure. */
int gate_change_ci(const ratio_samples *now, const ratio_samples *ref, size_t resamples, uint64_t seed,
                   double conf, reg_change *out);

#endif
