/* gate/ab_rule.c: the A/B regression decision (ab_rule.h). */
#include "gate/ab_rule.h"

#include "core/stats.h"

int ab_change_ci(const double *base_us, const double *head_us, size_t n, size_t resamples,
                 uint64_t seed, double conf, ab_change *out)
{
    return stats_paired_ratio_ci(head_us, base_us, n, resamples, seed, conf, &out->change,
                                 &out->lo, &out->hi);
}

ab_verdict ab_decide(const ab_change *c, double tolerance)
{
    double up = 1.0 + tolerance, down = 1.0 / (1.0 + tolerance);
    if (c->lo > up) return AB_REGRESSED;
    if (c->hi < down) return AB_IMPROVED;
    if (c->change > up || c->change < down) return AB_INCONCLUSIVE;
    return AB_UNCHANGED;
}

const char *ab_verdict_name(ab_verdict v)
{
    switch (v) {
    case AB_UNCHANGED: return "unchanged";
    case AB_REGRESSED: return "regressed";
    case AB_IMPROVED: return "improved";
    case AB_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}
