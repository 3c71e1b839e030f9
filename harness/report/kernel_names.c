/* report/kernel_names.c: a profiled kernel's demangled name against the mangled names of
 * a shared object's kernels (kernel_names.h says which forms are read). Every read is
 * bounded by the name's length, found once with strnlen. */
#include "report/kernel_names.h"

#include <string.h>

static int is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* s[0..n) is an identifier: not empty, not starting with a digit. */
static int is_ident(const char *s, size_t n)
{
    if (n == 0 || is_digit(s[0])) return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_ident_char(s[i])) return 0;
    return 1;
}

static int span_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* The length of s, or -1 when it is NULL, empty or longer than KERNEL_NAME_MAX. */
static long bounded_len(const char *s)
{
    if (!s) return -1;
    size_t n = strnlen(s, KERNEL_NAME_MAX + 1);
    return n == 0 || n > KERNEL_NAME_MAX ? -1 : (long)n;
}

static int fail(kernel_name *out)
{
    memset(out, 0, sizeof *out);
    return -1;
}

/* ---- the profiler's (demangled) names ---------------------------------------------------- */

/* One template argument as printed: an integer (no leading zero, at most 20 digits,
 * optionally negative), true or false. */
static int demangled_arg(const char *s, size_t n, kernel_name *out)
{
    while (n && s[0] == ' ') s++, n--;
    while (n && s[n - 1] == ' ') n--;
    size_t k = out->n_args;
    if (k == KERNEL_NAME_MAX_PARTS) return -1;
    if (span_is(s, n, "true") || span_is(s, n, "false")) {
        out->arg[k] = (kernel_name_part){ s[0] == 't' ? "1" : "0", 1 };
        out->arg_type[k] = 'b';
    } else {
        int neg = n && s[0] == '-';
        s += neg, n -= (size_t)neg;
        if (n == 0 || n > 20 || (s[0] == '0' && n > 1)) return -1;
        for (size_t i = 0; i < n; i++)
            if (!is_digit(s[i])) return -1;
        out->arg[k] = (kernel_name_part){ s, n };
        out->arg_negative[k] = neg;
        out->arg_type[k] = 0;
    }
    out->n_args++;
    return 0;
}

/* The namespaces before the name, "a::<unnamed>::b" (n > 0), outermost first. */
static int demangled_namespaces(const char *s, size_t n, kernel_name *out)
{
    size_t at = 0;
    for (;;) {
        const char *sep = NULL;
        for (size_t i = at; i + 1 < n; i++)
            if (s[i] == ':' && s[i + 1] == ':') {
                sep = s + i;
                break;
            }
        size_t len = (sep ? (size_t)(sep - s) : n) - at;
        const char *p = s + at;
        if (out->n_ns == KERNEL_NAME_MAX_PARTS) return -1;
        if (span_is(p, len, "<unnamed>") || span_is(p, len, "(anonymous namespace)")) {
            out->ns[out->n_ns++] = (kernel_name_part){ p, 0 };
        } else if (span_is(p, len, "unnamed>") && out->n_ns == 0) {
            /* ncu's spelling of <unnamed> inside a named namespace: what was outside is lost */
            out->ns[out->n_ns++] = (kernel_name_part){ p, 0 };
        } else if (is_ident(p, len)) {
            out->ns[out->n_ns++] = (kernel_name_part){ p, len };
        } else {
            return -1;
        }
        if (!sep) return 0;
        at = (size_t)(sep - s) + 2;
    }
}

int kernel_name_from_profile(const char *s, kernel_name *out)
{
    memset(out, 0, sizeof *out);
    long total = bounded_len(s);
    if (total < 0) return -1;
    size_t n = (size_t)total;
    /* the parameter list: the balanced (...) the name ends with, when it ends with ')' */
    if (s[n - 1] == ')') {
        size_t depth = 0, i = n;
        while (i-- > 0) {
            if (s[i] == ')') depth++;
            else if (s[i] == '(' && --depth == 0) break;
        }
        if (depth != 0) return fail(out);
        n = i;
    }
    size_t start = 0;
    if (n >= 5 && memcmp(s, "void ", 5) == 0) start = 5;   /* a kernel's return type */
    /* the template arguments: the balanced <...> the rest ends with */
    size_t end = n;
    if (end > start && s[end - 1] == '>') {
        size_t depth = 0, i = end;
        while (i-- > start) {
            if (s[i] == '>') depth++;
            else if (s[i] == '<' && --depth == 0) break;
        }
        if (depth != 0 || i == start) return fail(out);
        out->templated = 1;
        size_t a = i + 1, b = end - 1;   /* the arguments: s[a..b) */
        end = i;
        size_t blank = a;
        while (blank < b && s[blank] == ' ') blank++;
        if (blank < b) {   /* "<>" and "< >" hold no argument */
            for (size_t from = a;;) {
                const char *comma = memchr(s + from, ',', b - from);
                size_t to = comma ? (size_t)(comma - s) : b;
                if (demangled_arg(s + from, to - from, out)) return fail(out);
                if (!comma) break;
                from = to + 1;
            }
        }
    }
    /* the name, and the namespaces before "::" */
    size_t name = end;
    while (name > start && is_ident_char(s[name - 1])) name--;
    if (!is_ident(s + name, end - name) || span_is(s + name, end - name, "void")) return fail(out);
    out->name = (kernel_name_part){ s + name, end - name };
    if (name == start) return 0;
    if (name - start < 3 || s[name - 1] != ':' || s[name - 2] != ':') return fail(out);
    if (demangled_namespaces(s + start, name - 2 - start, out)) return fail(out);
    return 0;
}

/* ---- the build's (mangled) names --------------------------------------------------------- */

/* <len><name> at s[*at] (s has n characters), an identifier; *at moves past it. */
static int source_name(const char *s, size_t n, size_t *at, kernel_name_part *part)
{
    size_t i = *at, len = 0;
    if (i >= n || !is_digit(s[i]) || s[i] == '0') return -1;
    while (i < n && is_digit(s[i])) {
        len = len * 10 + (size_t)(s[i++] - '0');
        if (len > KERNEL_NAME_MAX) return -1;
    }
    if (len > n - i || !is_ident(s + i, len)) return -1;
    *part = (kernel_name_part){ s + i, len };
    *at = i + len;
    return 0;
}

/* I <args> E at s[*at]: each L i [n] <digits> E or L b 0|1 E. */
static int template_args(const char *s, size_t n, size_t *at, kernel_name *out)
{
    size_t i = *at + 1;   /* past the I */
    out->templated = 1;
    while (i < n && s[i] != 'E') {
        size_t k = out->n_args;
        if (k == KERNEL_NAME_MAX_PARTS || i + 1 >= n || s[i] != 'L') return -1;
        char type = s[i + 1];
        if (type != 'i' && type != 'b') return -1;
        i += 2;
        int neg = i < n && s[i] == 'n' && type == 'i';
        i += (size_t)neg;
        size_t from = i;
        while (i < n && is_digit(s[i])) i++;
        size_t len = i - from;
        if (len == 0 || len > 20 || (s[from] == '0' && len > 1) || i >= n || s[i] != 'E') return -1;
        if (type == 'b' && !(len == 1 && (s[from] == '0' || s[from] == '1'))) return -1;
        out->arg[k] = (kernel_name_part){ s + from, len };
        out->arg_negative[k] = neg;
        out->arg_type[k] = type;
        out->n_args++;
        i++;   /* past the argument's E */
    }
    if (i >= n) return -1;
    *at = i + 1;   /* past the list's E */
    return 0;
}

int kernel_name_from_build(const char *s, kernel_name *out)
{
    memset(out, 0, sizeof *out);
    long total = bounded_len(s);
    if (total < 0) return -1;
    size_t n = (size_t)total;
    if (n < 2 || s[0] != '_' || s[1] != 'Z') {   /* extern "C": the name as it is */
        if (!is_ident(s, n)) return fail(out);
        out->name = (kernel_name_part){ s, n };
        return 0;
    }
    size_t at = 2;
    kernel_name_part parts[KERNEL_NAME_MAX_PARTS + 1];
    size_t n_parts = 0;
    int nested = at < n && s[at] == 'N';
    at += (size_t)nested;
    for (;;) {
        if (n_parts == KERNEL_NAME_MAX_PARTS + 1 || source_name(s, n, &at, &parts[n_parts])) return fail(out);
        n_parts++;
        if (at < n && s[at] == 'I' && template_args(s, n, &at, out)) return fail(out);
        if (!nested) break;
        if (at < n && s[at] == 'E') break;
        if (out->templated) return fail(out);   /* arguments on a namespace or class: not read */
    }
    if (nested && n_parts < 2) return fail(out);
    for (size_t k = 0; k + 1 < n_parts; k++) {
        int anonymous = parts[k].len >= 10 && memcmp(parts[k].s, "_GLOBAL__N", 10) == 0;
        out->ns[k] = anonymous ? (kernel_name_part){ parts[k].s, 0 } : parts[k];
    }
    out->n_ns = n_parts - 1;
    out->name = parts[n_parts - 1];
    return 0;
}

/* ---- comparing --------------------------------------------------------------------------- */

static int same_part(kernel_name_part a, kernel_name_part b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.s, b.s, a.len) == 0);
}

int kernel_name_same(const kernel_name *ran, const kernel_name *built)
{
    if (!ran->name.len || !built->name.len || !same_part(ran->name, built->name)) return 0;
    if (ran->templated != built->templated || ran->n_args != built->n_args) return 0;
    for (size_t k = 0; k < ran->n_args; k++) {
        if (!same_part(ran->arg[k], built->arg[k]) || ran->arg_negative[k] != built->arg_negative[k]) return 0;
        if (ran->arg_type[k] == 'b' && built->arg_type[k] != 'b') return 0;   /* true is no int */
    }
    /* innermost first, as far as the profile names them: its innermost namespace is the
     * build's innermost; the ones around it are the build's in order, some of the build's
     * left out (ncu prints rung11::rung10::<unnamed> as rung11::<unnamed>) */
    if (ran->n_ns > built->n_ns) return 0;
    if (ran->n_ns == 0) return 1;
    if (!same_part(ran->ns[ran->n_ns - 1], built->ns[built->n_ns - 1])) return 0;
    size_t b = built->n_ns - 1;
    for (size_t k = 2; k <= ran->n_ns; k++) {
        const kernel_name_part want = ran->ns[ran->n_ns - k];
        while (b > 0 && !same_part(want, built->ns[b - 1])) b--;
        if (b == 0) return 0;
        b--;
    }
    return 1;
}

long kernel_name_find(const kernel_name *ran, const kernel_name *built, size_t n)
{
    long found = -1;
    for (size_t i = 0; i < n; i++) {
        if (!kernel_name_same(ran, &built[i])) continue;
        if (found >= 0) return -1;
        found = (long)i;
    }
    return found;
}

int kernel_names_match(const char *profiled, const char *mangled)
{
    kernel_name a, b;
    return kernel_name_from_profile(profiled, &a) == 0 && kernel_name_from_build(mangled, &b) == 0 &&
           kernel_name_same(&a, &b);
}
