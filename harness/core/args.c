/* core/args.c: option value parsing. */
#include "core/args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int arg_long(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "attnladder %s: %s '%s' is not valid; accepted: an integer in [%ld, %ld]\n",
                cmd, opt, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int arg_double(const char *cmd, const char *opt, const char *text, double lo, double hi,
               double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "attnladder %s: %s '%s' is not valid; accepted: a number in [%g, %g]\n",
                cmd, opt, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

const char *arg_value(const char *cmd, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "attnladder %s: %s needs a value\n", cmd, argv[*i]);
        return NULL;
    }
    return argv[++*i];
}
