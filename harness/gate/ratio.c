/* gate/ratio.c: a result's ratio to the baseline (ratio.h). */
#include "gate/ratio.h"

#include "core/stats.h"

int gate_result_ratio(const gate_config *c, const run_data *run, const run_result *res,
                      double *ratio, double *lo, double *hi)
{
    /* Recomputed from both sample sets with the run's own bootstrap seed and count, never
     * read from derived.ratio: for a file the harness wrote the two agree exactly, and an
     * edited file is judged on its samples. */
    if (!res->timed) return -1;
    /* The pairs of `run --paired` (res->paired_*) never decide: interleaved with a slower,
     * lower-power rung the baseline leaves the power-capped steady state its own measurement
     * runs in (H100, 4x16x4096x128: 831-892 us beside 01-06 against 910-925 us alone), so
     * the paired ratio depends on the partner's power draw; bounds and accepted sets are in
     * the separate measurements' ratio (ci/README.md, the paired study). */
    const run_result *b = run_find(run, c->baseline, &res->shape);
    if (!b || !b->timed) return -1;
    return stats_ratio_ci(res->samples, res->n_samples, b->samples, b->n_samples,
                          run->resamples, run->stats_seed, run->ci_level, ratio, lo, hi);
}

int gate_result_point_ratio(const gate_config *c, const run_data *run, const run_result *res, double *ratio)
{
    if (!res->timed) return -1;
    const run_result *b = run_find(run, c->baseline, &res->shape);
    if (!b || !b->timed) return -1;
    /* the bootstrap's own refusals, so that a run is left out exactly where it would be */
    if (run->resamples == 0 || !(run->ci_level > 0 && run->ci_level < 1)) return -1;
    return stats_median_ratio(res->samples, res->n_samples, b->samples, b->n_samples, ratio);
}
