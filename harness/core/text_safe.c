/* core/text_safe.c: checking and escaping printed text (text_safe.h). */
#include "core/text_safe.h"

#include <string.h>

/* The next character of s: its code point in *cp and its length in bytes, or 0 for a
 * byte that starts no valid UTF-8 sequence (then *cp is the byte). */
static size_t next_char(const unsigned char *s, unsigned long *cp)
{
    unsigned char c = s[0];
    *cp = c;
    if (c < 0x80) return 1;
    size_t n;
    unsigned long v, min;
    if ((c & 0xe0) == 0xc0) n = 2, v = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0) n = 3, v = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0) n = 4, v = c & 0x07, min = 0x10000;
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;   /* also stops at the terminating NUL */
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return n;
}

/* Characters that act on a terminal or reorder what is displayed around them. */
static const char *acting(unsigned long cp)
{
    if (cp < 0x20 || cp == 0x7f) return "a control character";
    if (cp >= 0x80 && cp <= 0x9f) return "a C1 control character";
    if (cp == 0x2028 || cp == 0x2029) return "a line or paragraph separator";
    if (cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
        (cp >= 0x2066 && cp <= 0x2069))
        return "a bidirectional control character";
    return NULL;
}

int text_check(const char *s, size_t max, char *why, size_t whylen)
{
    if (!s) s = "";
    size_t len = strlen(s);
    if (len > max) {
        snprintf(why, whylen, "%zu bytes long, longer than the %zu allowed", len, max);
        return -1;
    }
    for (size_t i = 0; i < len;) {
        unsigned long cp;
        size_t n = next_char((const unsigned char *)s + i, &cp);
        const char *what = n ? acting(cp) : "a byte that is not UTF-8";
        if (what) {
            snprintf(why, whylen, "holds %s (0x%02lx) at byte %zu", what, n ? cp : (unsigned long)(unsigned char)s[i], i);
            return -1;
        }
        i += n;
    }
    return 0;
}

int text_only(const char *s, const char *extra)
{
    if (!s || !*s) return 0;
    for (; *s; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 (c && strchr(extra, c));
        if (!ok) return 0;
    }
    return 1;
}

/* ---- escaping ------------------------------------------------------------------------ */

/* Where the escaped text goes: a buffer that keeps only whole characters (room kept for
 * a closing quote and the NUL), or a stream. */
typedef struct {
    char *buf;
    size_t len, used, need, reserve;
    int full;
    FILE *f;
    int failed;
} sink;

static void emit(sink *k, const char *p, size_t n)
{
    k->need += n;
    if (k->f) {
        if (fwrite(p, 1, n, k->f) != n) k->failed = 1;
        return;
    }
    if (k->full || k->used + n + k->reserve + 1 > k->len) {
        k->full = 1;   /* nothing after the first piece that does not fit */
        return;
    }
    memcpy(k->buf + k->used, p, n);
    k->used += n;
}

/* ASCII characters markdown (CommonMark, GitHub's tables, mentions and math) or HTML
 * give a meaning anywhere in a line; and those that open a block at a line's start.
 * '_' is left as it is: names are full of it, and inside a word it emphasises nothing. */
static const char MD_ANYWHERE[] = "&<>\"'`\\*[]|~@$#!";
static const char MD_LINE_START[] = "-+=.0123456789";

static void escape_into(sink *k, const char *s, text_ctx ctx)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    if (ctx == TEXT_GNUPLOT) {
        k->reserve = 1;   /* the closing quote's room, from the opening quote on */
        emit(k, "'", 1);
    }
    for (size_t i = 0; p[i];) {
        unsigned long cp;
        size_t n = next_char(p + i, &cp);
        if (!n || acting(cp)) {
            emit(k, ctx == TEXT_TERMINAL ? "?" : ctx == TEXT_GNUPLOT ? " " : "?", 1);
            i += n ? n : 1;
            continue;
        }
        if (ctx == TEXT_MARKDOWN && cp < 0x80 &&
            (strchr(MD_ANYWHERE, (int)cp) || (i == 0 && strchr(MD_LINE_START, (int)cp)))) {
            char e[8];
            int m = snprintf(e, sizeof e, "&#%lu;", cp);
            emit(k, e, (size_t)m);
        } else if (ctx == TEXT_GNUPLOT && cp == '\'') {
            /* gnuplot reads '' inside single quotes as one quote, but not at a string's
             * start: the quote is joined on as a double-quoted string instead */
            emit(k, "'.\"'\".'", 7);
        } else {
            emit(k, (const char *)p + i, n);
        }
        i += n;
    }
    if (ctx == TEXT_GNUPLOT) {
        int opened = k->used > 0 || k->f;
        k->reserve = 0;
        k->full = !opened;   /* the closing quote has its room when the opening one went in */
        emit(k, "'", 1);
    }
}

size_t text_escape(char *buf, size_t len, const char *s, text_ctx ctx)
{
    sink k = { .buf = buf, .len = len };
    if (len == 0) k.full = 1;
    escape_into(&k, s, ctx);
    if (len) buf[k.used] = '\0';
    return k.need;
}

int text_put(FILE *f, const char *s, text_ctx ctx)
{
    sink k = { .f = f };
    escape_into(&k, s, ctx);
    return k.failed ? -1 : 0;
}
