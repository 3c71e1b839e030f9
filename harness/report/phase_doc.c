/* report/phase_doc.c: sections of a phase README (see phase_doc.h). */
#include "report/phase_doc.h"
#include "core/files.h"

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    char *s;
    size_t n, cap;
} buf;

static int put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) return -1;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
    return 0;
}

static int is_relative_target(const char *t)
{
    if (*t == '#' || *t == '/' || *t == ')') return 0;
    for (const char *p = t; *p && *p != ')' && *p != ' '; p++) {
        if (*p == ':') return 0;           /* a scheme: http:, https:, mailto: */
        if (*p == '/' || *p == '.') break;
    }
    return 1;
}

/* One line with the targets of "](...)" links prefixed (outside inline code). */
static int put_line(buf *b, const char *line, size_t n, const char *prefix)
{
    int code = 0;
    for (size_t i = 0; i < n; i++) {
        if (line[i] == '`') code = !code;
        if (put(b, line + i, 1)) return -1;
        if (!code && line[i] == ']' && i + 1 < n && line[i + 1] == '(' &&
            is_relative_target(line + i + 2)) {
            if (put(b, "(", 1) || put(b, prefix, strlen(prefix))) return -1;
            i++;
        }
    }
    return put(b, "\n", 1);
}

static int starts_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    return strncasecmp(text, word, n) == 0 && !isalnum((unsigned char)text[n]);
}

/* Strips blank lines at both ends; NULL for an empty section. */
static char *trimmed(buf *b)
{
    if (!b->s) return NULL;
    size_t start = 0, end = b->n;
    while (start < end && (b->s[start] == '\n' || b->s[start] == ' ')) start++;
    while (end > start && (b->s[end - 1] == '\n' || b->s[end - 1] == ' ')) end--;
    if (end == start) {
        free(b->s);
        return NULL;
    }
    memmove(b->s, b->s + start, end - start);
    b->s[end - start] = '\n';
    b->s[end - start + 1] = '\0';
    return b->s;
}

int phase_doc_parse(const char *text, const char *link_prefix, phase_doc *d)
{
    memset(d, 0, sizeof *d);
    buf sec[3] = { { 0 } }, hist = { 0 };
    int seen[3] = { 0 };
    int cur = -1, fence = 0, in_hist = 0;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *line = p;
        p += n + (p[n] == '\n');
        if (n >= 3 && strncmp(line, "```", 3) == 0) fence = !fence;
        /* the History paragraph: from its "History:" line to the next blank line */
        if (in_hist && (n == 0 || fence)) in_hist = 0;
        if (!fence && !hist.s && n >= 8 && strncmp(line, "History:", 8) == 0) in_hist = 1;
        if (in_hist && put_line(&hist, line, n, link_prefix)) goto oom;
        int h1 = !fence && n >= 2 && strncmp(line, "# ", 2) == 0;
        int h2 = !fence && n >= 3 && strncmp(line, "## ", 3) == 0;
        if (h1 && !d->title) {
            const char *t = line + 2;
            size_t tn = n - 2;
            while (tn && (t[tn - 1] == ' ' || t[tn - 1] == '\r')) tn--;
            d->title = strndup(t, tn);
            if (!d->title) goto oom;
        }
        if (h1 || h2) {
            const char *t = line + (h1 ? 2 : 3);
            while (*t == ' ') t++;
            cur = -1;
            if (h2 && starts_word(t, "technique")) cur = 0;
            else if (h2 && (starts_word(t, "prediction") || starts_word(t, "hypothesis"))) cur = 1;
            else if (h2 && starts_word(t, "outcome")) cur = 2;
            if (cur >= 0 && seen[cur]) cur = -1;   /* the first such section counts */
            if (cur >= 0) seen[cur] = 1;
            continue;
        }
        if (cur >= 0 && put_line(&sec[cur], line, n, link_prefix)) goto oom;
    }
    d->technique = trimmed(&sec[0]);
    d->prediction = trimmed(&sec[1]);
    d->outcome = trimmed(&sec[2]);
    d->history = trimmed(&hist);
    return 0;
oom:
    for (int i = 0; i < 3; i++) free(sec[i].s);
    free(hist.s);
    phase_doc_free(d);
    return -1;
}

int phase_doc_load(const char *phases_dir, const char *phase, phase_doc *d)
{
    memset(d, 0, sizeof *d);
    char *path = NULL, *prefix = NULL;
    if (asprintf(&path, "%s/%s/README.md", phases_dir, phase) < 0) path = NULL;
    if (asprintf(&prefix, "../../%s/%s/", phases_dir, phase) < 0) prefix = NULL;
    int rc = -1;
    struct stat st;
    if (!path || !prefix) {
        fprintf(stderr, "attnladder report: out of memory\n");
    } else if (stat(path, &st) != 0 && errno == ENOENT) {
        rc = 1;   /* no README: the page says so */
    } else {
        /* the input rule (core/files.h): a FIFO or a directory here is refused, not waited on */
        char err[1024];
        size_t len = 0;
        char *text = files_read_input(path, PHASE_DOC_MAX_BYTES, &len, err, sizeof err);
        if (!text) fprintf(stderr, "attnladder report: --phases: %s\n", err);
        else rc = phase_doc_parse(text, prefix, d);
        free(text);
    }
    free(path);
    free(prefix);
    return rc;
}

void phase_doc_free(phase_doc *d)
{
    free(d->title);
    free(d->technique);
    free(d->prediction);
    free(d->outcome);
    free(d->history);
    memset(d, 0, sizeof *d);
}

int phase_doc_names_former(const phase_doc *d, const char *name)
{
    if (!d->history) return 0;
    char a[300], b[300];
    snprintf(a, sizeof a, "`%s`", name);
    snprintf(b, sizeof b, "`phases/%s`", name);
    return strstr(d->history, a) || strstr(d->history, b);
}
