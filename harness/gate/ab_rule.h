/* gate/ab_rule.h: the A/B regression decision. The same implementation from the base and the
 * head build, measured in alternation in one process (measure/interleave.h): pair i
 * gives the quotient head_i / base_i, in which whatever the two shared (clocks, the
 * machine's load, drift) cancels. The change is the median quotient, with a percentile
 * bootstrap CI over the pairs. */
#ifndef ATTNLADDER_GATE_AB_H
#define ATTNLADDER_GATE_AB_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    double change, lo, hi;         /* median of head_i / base_i and its CI */
} ab_change;

typedef enum { AB_UNCHANGED = 0, AB_REGRESSED, AB_IMPROVED, AB_INCONCLUSIVE } ab_verdict;

/* 0, or -1 on empty input, a non-positive time, or allocation failure. */
int ab_change_ci(const double *base_us, const double *head_us, size_t n, size_t resamples,
                 uint64_t seed, double conf, ab_change *out);

/* Regressed when the whole CI lies above 1 + tolerance: a change the size of the
 * tolerance or smaller never blocks, one clearly past it does. Improved symmetrically
 * (CI below 1 / (1 + tolerance)); inconclusive when the median is past the tolerance
 * but its CI is not. */
ab_verdict ab_decide(const ab_change *c, double tolerance);
const char *ab_verdict_name(ab_verdict v);

#endif
