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

const run_result *result_bridge(const run_data *run, const run_result *res, const char *baseline)
{
    if (!result_pairs_decide(run, res) || !strcmp(res->paired_baseline, baseline)) return NULL;
    /* a rung: its machine code does not depend on which cuDNN either process loaded */
    const run_impl *im = run_find_impl(run, res->paired_baseline);
    if (!im || !im->kind || strcmp(im->kind, "phase")) return NULL;
    const run_result *b = run_find(run, res->paired_baseline, &res->shape);
    if (!b || !b->timed || !result_pairs_decide(run, b) || strcmp(b->paired_baseline, baseline)) return NULL;
    return b;
}

int result_ratio(const run_data *run, const run_result *res, const char *baseline, double *ratio, double *lo,
                 double *hi)
{
    /* Recomputed from the samples, never read from derived.ratio: for a file the harness
     * wrote the two agree exactly, and an edited file is judged on its samples. */
    if (!res->timed) return -1;
    const run_result *bridge = result_bridge(run, res, baseline);
    if (bridge)
        return stats_bridged_ratio_ci(res->paired_impl, res->paired_base, res->n_paired, bridge->paired_impl,
                                      bridge->paired_base, bridge->n_paired, run->resamples, run->stats_seed,
                                      run->ci_level, ratio, lo, hi);
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
    const run_result *bridge = result_bridge(run, res, baseline);
    double to_bridge, bridge_ratio;
    if (bridge) {
        if (!bootstrap_ok(run) || stats_paired_median(res->paired_impl, res->paired_base, res->n_paired, &to_bridge) ||
            stats_paired_median(bridge->paired_impl, bridge->paired_base, bridge->n_paired, &bridge_ratio))
            return -1;
        *ratio = to_bridge * bridge_ratio;
        return 0;
    }
    if (result_pairs_decide(run, res)) {
        if (strcmp(res->paired_baseline, baseline) || !bootstrap_ok(run)) return -1;
        return stats_paired_median(res->paired_impl, res->paired_base, res->n_paired, ratio);
    }
    const run_result *b = run_find(run, baseline, &res->shape);
    if (!b || !b->timed || !bootstrap_ok(run)) return -1;
    return stats_median_ratio(res->samples, res->n_samples, b->samples, b->n_samples, ratio);
}
