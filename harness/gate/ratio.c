/* gate/ratio.c: a result's ratio to the baseline (ratio.h). */
#include "gate/ratio.h"

#include "core/stats.h"

#include <string.h>

int gate_result_ratio(const gate_config *c, const run_data *run, const run_result *res,
                      double *ratio, double *lo, double *hi)
{
    /* Recomputed from both sample sets with the run's own bootstrap seed and count, never
     * read from derived.ratio: for a file the harness wrote the two agree exactly, and an
     * edited file is judged on its samples. */
    if (!res->timed) return -1;
    /* A run that measured its ratios in rotation (run_data.ratio_rotation) is judged on
     * them: the median of the paired quotients, its CI over the rounds. Older files' pairs
     * (`run --paired` before the rotation: each implementation paired with the baseline
     * alone, whose power state then followed the partner's) never decide. */
    if (run->ratio_rotation && res->n_paired) {
        if (strcmp(res->paired_baseline, c->baseline)) return -1;
        return stats_paired_ratio_ci(res->paired_impl, res->paired_base, res->n_paired, run->resamples,
                                     run->stats_seed, run->ci_level, ratio, lo, hi);
    }
    const run_result *b = run_find(run, c->baseline, &res->shape);
    if (!b || !b->timed) return -1;
    return stats_ratio_ci(res->samples, res->n_samples, b->samples, b->n_samples,
                          run->resamples, run->stats_seed, run->ci_level, ratio, lo, hi);
}

int gate_result_point_ratio(const gate_config *c, const run_data *run, const run_result *res, double *ratio)
{
    if (!res->timed) return -1;
    if (run->ratio_rotation && res->n_paired) {
        if (strcmp(res->paired_baseline, c->baseline) || run->resamples == 0 ||
            !(run->ci_level > 0 && run->ci_level < 1))
            return -1;
        return stats_paired_median(res->paired_impl, res->paired_base, res->n_paired, ratio);
    }
    const run_result *b = run_find(run, c->baseline, &res->shape);
    if (!b || !b->timed) return -1;
    /* the bootstrap's own refusals, so that a run is left out exactly where it would be */
    if (run->resamples == 0 || !(run->ci_level > 0 && run->ci_level < 1)) return -1;
    return stats_median_ratio(res->samples, res->n_samples, b->samples, b->n_samples, ratio);
}
