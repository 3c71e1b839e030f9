/* gate/drift.c: the drift decision (drift.h). */
#include "gate/drift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int drift_reference(const double *ratios, size_t k, double pooled, const drift_params *p, drift_ref *out)
{
    if (k == 0) return -1;
    double sum = 0;
    for (size_t i = 0; i < k; i++) {
        if (!(ratios[i] > 0) || !isfinite(ratios[i])) return -1;
        sum += log(ratios[i]);
    }
    double mean = sum / (double)k, ss = 0;
    for (size_t i = 0; i < k; i++) ss += (log(ratios[i]) - mean) * (log(ratios[i]) - mean);
    out->k = k;
    out->center = exp(mean);
    out->spread = k >= 2 ? sqrt(ss / (double)(k - 1)) : 0;
    drift_settle(out, pooled, p);
    return 0;
}

void drift_settle(drift_ref *r, double pooled, const drift_params *p)
{
    r->used_spread = r->spread > pooled ? r->spread : pooled;
    /* the spread is of logs: exp(k sd) - 1 is the relative change it allows */
    double tol = expm1(p->k_sigma * r->used_spread);
    r->tol = tol > p->floor ? tol : p->floor;
}

double drift_pooled(const drift_ref *rows, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].k < 2) continue;
        num += (double)(rows[i].k - 1) * rows[i].spread * rows[i].spread;
        den += (double)(rows[i].k - 1);
    }
    return den > 0 ? sqrt(num / den) : 0;
}

drift_verdict drift_decide(const drift_ref *r, double now, double now_lo, double now_hi)
{
    return drift_decide_moved(r, 1, now, now_lo, now_hi);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double drift_shape_move(double *logs, size_t n, const drift_params *p)
{
    if (p->shape_rows == 0 || n < p->shape_rows) return 1;
    qsort(logs, n, sizeof *logs, cmp_double);
    double med = n % 2 ? logs[n / 2] : (logs[n / 2 - 1] + logs[n / 2]) / 2;
    double dead = log1p(p->shape_floor);
    if (!isfinite(med) || fabs(med) <= dead) return 1;
    return exp(med > 0 ? med - dead : med + dead);
}

drift_verdict drift_decide_moved(const drift_ref *r, double move, double now, double now_lo, double now_hi)
{
    double up = r->center * (1 + r->tol) * (move > 1 ? move : 1);
    double down = r->center / (1 + r->tol) * (move < 1 ? move : 1);
    if (now_lo > up) return DRIFT_SLOWER;
    if (now_hi < down) return DRIFT_FASTER;
    if (now > up || now < down) return DRIFT_UNSURE;
    return DRIFT_WITHIN;
}

const char *drift_verdict_name(drift_verdict v)
{
    switch (v) {
    case DRIFT_WITHIN: return "within";
    case DRIFT_SLOWER: return "slower";
    case DRIFT_FASTER: return "faster";
    case DRIFT_UNSURE: return "unsure";
    }
    return "?";
}

void drift_move_note(char *buf, size_t len, const drift_params *p, drift_verdict plain, drift_verdict v,
                     double move)
{
    if (plain == v) {
        snprintf(buf, len, "%s", "");
        return;
    }
    snprintf(buf, len, " (the shape's rows in rotation moved %+.1f%% past %.0f%%: %s against the centre alone)",
             (move - 1) * 100, p->shape_floor * 100, drift_verdict_name(plain));
}
