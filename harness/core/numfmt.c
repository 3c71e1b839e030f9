/* core/numfmt.c: number formatting for tables (see numfmt.h). */
#include "core/numfmt.h"

#include <math.h>
#include <stdio.h>

/* -0.000 would print for tiny negatives: fold them to 0. */
static double tidy(double x, int decimals)
{
    double half_ulp = 0.5 * pow(10.0, -decimals);
    return fabs(x) < half_ulp ? 0.0 : x;
}

static int decimals_for(double x)
{
    double a = fabs(x);
    return a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;
}

const char *fmt_num(char *buf, size_t len, double x)
{
    if (!isfinite(x)) {
        snprintf(buf, len, "-");
        return buf;
    }
    int d = decimals_for(x);
    snprintf(buf, len, "%.*f", d, tidy(x, d));
    return buf;
}

const char *fmt_ci(char *buf, size_t len, double lo, double hi)
{
    char a[32], b[32];
    if (!isfinite(lo) || !isfinite(hi)) snprintf(buf, len, "-");
    else snprintf(buf, len, "[%s, %s]", fmt_num(a, sizeof a, lo), fmt_num(b, sizeof b, hi));
    return buf;
}

const char *fmt_change(char *buf, size_t len, double q)
{
    if (!isfinite(q)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%+.1f%%", tidy((q - 1.0) * 100.0, 1));
    return buf;
}

const char *fmt_pct(char *buf, size_t len, double frac)
{
    if (!isfinite(frac)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.1f%%", tidy(frac * 100.0, 1));
    return buf;
}

const char *fmt_speedup(char *buf, size_t len, double x)
{
    if (!isfinite(x) || x <= 0) snprintf(buf, len, "-");
    else snprintf(buf, len, "x%.*f", x >= 100 ? 0 : x >= 10 ? 1 : 2, x);
    return buf;
}

const char *fmt_sci(char *buf, size_t len, double x)
{
    if (!isfinite(x)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.1e", x);
    return buf;
}
