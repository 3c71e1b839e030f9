/* gate/decide.c: the ladder decision and the bootstrap of a change between two runs.
 * A change between two runs is judged by the drift rule (gate/drift.c), the one rule of
 * the gate, compare and the report; the bootstrapped change is what they show beside it. */
#include "gate/decide.h"

#include <math.h>
#include "core/memo.h"
#include "core/stats.h"

int gate_ladder_pass(double ratio_ci_hi, double ratio_max)
{
    return isfinite(ratio_ci_hi) && ratio_ci_hi < ratio_max;
}

/* The three values bootstrapped from one resample of the sets, in reg_change's order. */
enum { CH_REF, CH_NOW, CH_CHANGE, CH_VALUES };

/* Where each ratio's sets sit among the bootstrap's: a ratio of quotients is its one set's
 * median, one of separate samples the quotient of its two sets' medians (den -1: none). */
typedef struct {
    int now_num, now_den, ref_num, ref_den;
} change_layout;

static double ratio_at(const double *m, int num, int den)
{
    return den < 0 ? m[num] : m[num] / m[den];
}

static void change_of_medians(const double *m, double *out, void *ctx)
{
    const change_layout *l = ctx;
    out[CH_NOW] = ratio_at(m, l->now_num, l->now_den);
    out[CH_REF] = ratio_at(m, l->ref_num, l->ref_den);
    out[CH_CHANGE] = out[CH_NOW] / out[CH_REF];
}

/* Appends a ratio's sets to the bootstrap's; the set indices it took. */
static void add_sets(const ratio_samples *r, const double **sets, size_t *n, size_t *k, int *num, int *den)
{
    *num = (int)*k;
    sets[*k] = r->num;
    n[(*k)++] = r->n_num;
    *den = -1;
    if (!r->den) return;
    *den = (int)*k;
    sets[*k] = r->den;
    n[(*k)++] = r->n_den;
}

int gate_change_ci(const ratio_samples *now, const ratio_samples *ref, size_t resamples, uint64_t seed,
                   double conf, reg_change *out)
{
    if (resamples < 2 || !now || !ref || !now->num || !ref->num) return -1;
    /* The same change is asked for again in one process: a report's tables and history
     * of each pair of runs, a test's reports of one evidence, the gate's rows against
     * each run of an accepted set. Answered from the memo (core/memo.h), keyed by every
     * input: the sets' bytes, which of them are there, the count, the seed and the level.
     * Under ASan and UBSan test_report 29-39 -> 23-25 CPU s, test_compare_cmd 3.5-4.7 ->
     * 2.1-2.3 (issue 53). Planted: the key without the reference's samples, then without
     * the seed: test_decide's repeated change failed each time; the change's upper bound
     * 1% high with the memo in place: test_compare_cmd's golden tables failed. */
    const int dens[2] = { now->den != NULL, ref->den != NULL };
    const memo_part key[] = { { "gate_change_ci", 14 },
                              { dens, sizeof dens },
                              { now->num, now->n_num * sizeof *now->num },
                              { now->den, now->den ? now->n_den * sizeof *now->den : 0 },
                              { ref->num, ref->n_num * sizeof *ref->num },
                              { ref->den, ref->den ? ref->n_den * sizeof *ref->den : 0 },
                              { &resamples, sizeof resamples },
                              { &seed, sizeof seed },
                              { &conf, sizeof conf } };
    if (memo_get(key, sizeof key / sizeof key[0], out, sizeof *out)) return 0;
    const double *sets[4];
    size_t n[4], k = 0;
    change_layout l;
    add_sets(now, sets, n, &k, &l.now_num, &l.now_den);
    add_sets(ref, sets, n, &k, &l.ref_num, &l.ref_den);
    stats_bootstrap_spec spec = { sets, n, k, change_of_medians, CH_VALUES, &l };
    double point[CH_VALUES], lo[CH_VALUES], hi[CH_VALUES];
    if (stats_bootstrap_medians(&spec, resamples, seed, conf, point, lo, hi)) return -1;
    *out = (reg_change){ point[CH_REF], lo[CH_REF], hi[CH_REF], point[CH_NOW], lo[CH_NOW],
                         hi[CH_NOW], point[CH_CHANGE], lo[CH_CHANGE], hi[CH_CHANGE] };
    memo_put(key, sizeof key / sizeof key[0], out, sizeof *out);
    return 0;
}
