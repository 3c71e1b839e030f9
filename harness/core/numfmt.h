/* core/numfmt.h: how the gate's table, `compare` and the reports write numbers: fixed
 * rules per kind of number, so every output is byte-for-byte reproducible and the same
 * number reads the same everywhere. A NaN prints as "-". */
#ifndef ATTNLADDER_REPORT_FMT_H
#define ATTNLADDER_REPORT_FMT_H
#include <stddef.h>

/* 4 significant digits above 1, 3 decimals below: "1234", "123.4", "12.34", "1.234",
 * "0.812" (latencies in us, ratios, TFLOP/s). */
const char *fmt_num(char *buf, size_t len, double x);
/* "[lo, hi]" with fmt_num. */
const char *fmt_ci(char *buf, size_t len, double lo, double hi);
/* A quotient as a signed percentage change, one decimal: 1.219 -> "+21.9%". */
const char *fmt_change(char *buf, size_t len, double q);
/* A fraction as a percentage, one decimal: 0.1234 -> "12.3%". */
const char *fmt_pct(char *buf, size_t len, double frac);
/* A speedup factor: "x3.21" (3 significant digits, at most 2 decimals). */
const char *fmt_speedup(char *buf, size_t len, double x);
/* Scientific with 2 significant decimals: "3.1e-04". */
const char *fmt_sci(char *buf, size_t len, double x);

#endif
