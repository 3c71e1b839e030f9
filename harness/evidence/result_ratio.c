/* evidence/result_ratio.c: a result's ratio to a baseline (result_ratio.h). */
#include "evidence/result_ratio.h"

#include <string.h>
#include "core/stats.h"

int result_pairs_decide(const run_data *run, const run_result *res)
{
    /* A slow rung paired with the baseline alone moved by up to 29% between H100
     * machines where the ratio of the separate medians moved by at most 6.6%
     * (evidence/STUDIES.md): the baseline timed right after a millisecond-long low-power
     * replay is not the baseline of the point. Only the rotation's pairs decide. */
    return run->ratio_rotation && res->n_paired && res->paired_rotation;
}

/* The bootstrap's own refusals, so that a result is left out exactly where it would be. */
static int bootstrap_ok(const run_data *run)
{
    return run->resamples > 0 && run->ci_level > 0 && run->ci_level < 1;
}

int result_ratio(const run_data *run, const run_result *res, const char *baseline, double *ratio, double *lo,
                 double *hi)
{
    /* Recomputed from the samples, never read from derived.ratio: for a file the harness
     * wrote the two agree exactly, and an edited file is judged on its samples. */
    if (!res->timed) return -1;
    if (result_pairs_decide(run, res)) {
        if (strcmp(res->paired_baseline, baseline)) return -1;
        return stats_paired_ratio_ci(res->paired_impl, res->paired_base, res->n_paired, run->resamples,
                                     run->stats_seed, run->ci_level, ratio, lo, hi);
    }
    const run_result *b = run_find(run, baseline, &res->shape);
    if (!b || !b->timed) return -1;
    return stats_ratio_ci(res->samples, res->n_samples, b->samples, b->n_samples, run->resamples,
                          run->stats_seed, run->ci_level, ratio, lo, hi);
}

int result_point_ratio(const run_data *run, const run_result *res, const char *baseline, double *ratio)
{
    if (!res->timed) return -1;
    if (result_pairs_decide(run, res)) {
        if (strcmp(res->paired_baseline, baseline) || !bootstrap_ok(run)) return -1;
        return stats_paired_median(res->paired_impl, res->paired_base, res->n_paired, ratio);
    }
    const run_result *b = run_find(run, baseline, &res->shape);
    if (!b || !b->timed || !bootstrap_ok(run)) return -1;
    return stats_median_ratio(res->samples, res->n_samples, b->samples, b->n_samples, ratio);
}
