/* core/args.c: option value parsing. */
#include "core/args.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/shapes.h"

/* strtol and strtod skip leading blanks and take a '+'; a value typed with them is
 * taken as a typing slip, not a number. */
static int starts_like_a_number(const char *text)
{
    return text[0] == '-' || text[0] == '.' || isdigit((unsigned char)text[0]);
}

int arg_long(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || !starts_like_a_number(text) || v < lo || v > hi) {
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
    if (errno || end == text || *end || !starts_like_a_number(text) || !isfinite(v) || v < lo ||
        v > hi) {
        fprintf(stderr, "attnladder %s: %s '%s' is not valid; accepted: a number in [%g, %g]\n",
                cmd, opt, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int arg_known(const char *cmd, const char *opt, const char *const *known, const char *accepted)
{
    for (; *known; known++)
        if (!strcmp(opt, *known)) return 1;
    fprintf(stderr, "attnladder %s: unknown option '%s'; accepted: %s\n", cmd, opt, accepted);
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

int arg_shape(const char *cmd, const char *opt, const char *text, attn_shape *out)
{
    int field = 1;
    for (const char *p = text; *p; field++) {
        size_t len = strcspn(p, ",");
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end != p && (errno == ERANGE || x > INT_MAX || x < INT_MIN)) {
            /* both quoted short (shape_quoted), so that the reason is never cut off */
            char whole[SHAPE_SHOWN], part[SHAPE_SHOWN], *f = strndup(p, len);
            fprintf(stderr, "attnladder %s: %s %s: field %d %s is out of range (at most %d)\n", cmd, opt,
                    shape_quoted(text, whole), field, f ? shape_quoted(f, part) : "", INT_MAX);
            free(f);
            return -1;
        }
        p += len;
        if (*p == ',') p++;
    }
    char err[512];
    if (shape_parse(text, out, err, sizeof err)) {
        fprintf(stderr, "attnladder %s: %s\n", cmd, err);
        return -1;
    }
    return 0;
}

int arg_list(const char *cmd, const char *opt, const char *text, const char *accepted)
{
    size_t len = strlen(text);
    if (len == 0) {
        fprintf(stderr, "attnladder %s: %s '' is empty; accepted: %s, separated by commas\n", cmd,
                opt, accepted);
        return -1;
    }
    if (text[0] == ',' || text[len - 1] == ',' || strstr(text, ",,")) {
        fprintf(stderr, "attnladder %s: %s '%s' has an empty item; accepted: %s, separated by commas\n",
                cmd, opt, text, accepted);
        return -1;
    }
    return 0;
}
