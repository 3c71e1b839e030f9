/* core/stats.h: the statistics of the measuring method.
 * Percentiles use linear interpolation between order statistics (Hyndman-Fan type 7,
 * numpy's default). Bootstrap CIs are percentile intervals over resamples drawn with
 * rng.h, so a seed reproduces them exactly. */
#ifndef ATTNLADDER_STATS_H
#define ATTNLADDER_STATS_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t n;
    double median, p10, p90, mean, min, max;
    double ci_lo, ci_hi;         /* bootstrap CI of the median at level conf */
} stats_summary;

/* p in [0, 1]; sorted ascending; n > 0 */
double stats_percentile_sorted(const double *sorted, size_t n, double p);
double stats_median(const double *x, size_t n);   /* does not modify x */
/* stats_percentile_sorted of v sorted, bit for bit, found by selection in O(n) instead of
 * sorting (a bootstrap interval reads two percentiles of thousands of resamples); v is
 * reordered. n > 0. */
double stats_percentile_select(double *v, size_t n, double p);

/* Percentile-bootstrap CI of the median: `resamples` resamples of size n drawn with
 * replacement from x. Returns 0, -1 on bad arguments (n == 0, resamples == 0,
 * conf outside (0, 1)) or allocation failure. */
int stats_bootstrap_median_ci(const double *x, size_t n, size_t resamples, uint64_t seed,
                              double conf, double *lo, double *hi);

int stats_summarize(const double *x, size_t n, size_t resamples, uint64_t seed,
                    double conf, stats_summary *out);

/* Ratio of medians median(a) / median(b) and its bootstrap CI, resampling a and b
 * independently in each of the resamples. */
int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                   size_t resamples, uint64_t seed, double conf,
                   double *ratio, double *lo, double *hi);

/* The point of stats_ratio_ci alone, median(a) / median(b), without resampling (what a
 * reader of the point only needs: the bootstrap is most of the cost). 0, or -1 when a set
 * is empty or b's median is 0, where stats_ratio_ci refuses the same sets. */
int stats_median_ratio(const double *a, size_t na, const double *b, size_t nb, double *ratio);

/* Paired samples (a[i], b[i] measured back to back): the median of the quotients
 * a[i] / b[i] and its percentile-bootstrap CI, resampling pairs. 0, or -1 when n == 0, a
 * time is not finite and > 0, or on the bootstrap's bad arguments / allocation failure. */
int stats_paired_ratio_ci(const double *a, const double *b, size_t n, size_t resamples,
                          uint64_t seed, double conf, double *ratio, double *lo, double *hi);

/* The quotients a[i] / b[i] of n pairs (malloc'd; the caller frees them), or NULL when n
 * is 0, a time is not finite and > 0, or out of memory. */
double *stats_paired_quotients(const double *a, const double *b, size_t n);

/* The point of stats_paired_ratio_ci alone: the median of the quotients a[i] / b[i]. 0, or
 * -1 where stats_paired_ratio_ci refuses the same pairs for them. */
int stats_paired_median(const double *a, const double *b, size_t n, double *ratio);

/* A ratio through a bridge: an implementation timed in two processes. (a1[i], b1[i]): an
 * implementation and the bridge in one process's rounds, n1 of them; (a2[i], b2[i]): the
 * bridge and the baseline in the other's, n2. ratio = median(a1/b1) x median(a2/b2); its
 * percentile-bootstrap CI resamples both sets of rounds (the processes are independent)
 * and takes the product of the resampled medians. 0, or -1 where stats_paired_ratio_ci
 * refuses either set of pairs. */
int stats_bridged_ratio_ci(const double *a1, const double *b1, size_t n1, const double *a2,
                           const double *b2, size_t n2, size_t resamples, uint64_t seed,
                           double conf, double *ratio, double *lo, double *hi);

/* A statistic of the medians of several sample sets (medians[j]: set j's), writing its
 * values to out. */
typedef void (*stats_of_medians)(const double *medians, double *out, void *ctx);

typedef struct {
    const double *const *sets;   /* k sample sets, resampled in the order given */
    const size_t *n;             /* their sizes */
    size_t k;
    stats_of_medians statistic;
    size_t n_values;             /* how many values the statistic writes */
    void *ctx;                   /* passed to the statistic */
} stats_bootstrap_spec;

/* Percentile-bootstrap CIs of a statistic of the sets' medians. Each of `resamples`
 * resamples draws every set in turn, n_j indices (rng_below(n_j), in order) into set j as
 * given, from one stream seeded with seed, and evaluates the statistic on the resampled
 * sets' medians; lo[v], hi[v]: the type-7 percentiles (1-conf)/2 and (1+conf)/2 of value
 * v over the resamples. point (NULL: not wanted): the statistic of the sets' own medians.
 * 0, or -1 on bad arguments (as stats_bootstrap_median_ci's, for every set) or
 * allocation failure. */
int stats_bootstrap_medians(const stats_bootstrap_spec *s, size_t resamples, uint64_t seed,
                            double conf, double *point, double *lo, double *hi);

/* When to stop sampling (as nvbench does: a minimum and maximum count, a time budget,
 * and a noise criterion: the CI width of the median relative to the median). */
typedef struct {
    size_t min_samples, max_samples;
    double max_seconds;          /* wall time spent sampling this measurement */
    double rel_ci_target;        /* stop once (ci_hi - ci_lo) / median <= this */
} stop_rule;

typedef enum {
    STOP_CONTINUE = 0,
    STOP_NOISE,          /* relative CI width reached the target */
    STOP_MAX_SAMPLES,
    STOP_MAX_TIME,
    STOP_THROTTLED       /* too many samples discarded for a throttled clock (timing.h) */
} stop_reason;

/* Decides after each new sample. Order of the checks: fewer than min_samples and
 * within time -> continue; noise target met -> NOISE; n >= max -> MAX_SAMPLES;
 * elapsed >= max_seconds -> MAX_TIME (also below min_samples: a slow kernel must not
 * run for minutes). Uses a cheap bootstrap (seeded) for the noise test. */
stop_reason stats_should_stop(const double *x, size_t n, double elapsed_s,
                              const stop_rule *rule, uint64_t seed);

/* The stop rule with a floor of timed GPU work: as stats_should_stop, but the noise rule
 * may stop sampling only once gpu_s >= min_gpu_s (a quiet CI over a few milliseconds of
 * GPU time says little about the next run); the sample and time limits still hold. Before
 * the floor and short of those limits it returns CONTINUE without reading x: the noise
 * test's bootstrap, run after every sample, would be thrown away there. */
stop_reason stats_should_stop_after(const double *x, size_t n, double elapsed_s, double gpu_s, double min_gpu_s,
                                    const stop_rule *rule, uint64_t seed);
const char *stop_reason_name(stop_reason r);   /* "noise", "max_samples", ... */

#endif
