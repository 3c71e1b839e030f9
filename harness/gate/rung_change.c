/* gate/rung_change.c: which rungs changed between two builds (rung_change.h). */
#include "gate/rung_change.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/files.h"
#include "core/names.h"

#define RECORD_MAX_BYTES (1 << 20)   /* a rung's closure is tens of files: 1 MiB is far past it */
#define RECORD_MAX_LINES 4096
#define RECORD_PATH_MAX 512

typedef struct {
    char hash[65];
    char path[RECORD_PATH_MAX];
} record_line;

/* The file's text (NUL-terminated), NULL when it does not exist; *bad set (err) when it
 * exists but is not a regular file of at most 1 MiB without NUL bytes (the input rule of
 * core/files.h: a FIFO is refused, not waited on). */
static char *read_record(const char *path, int *bad, char *err, size_t errlen)
{
    struct stat st;
    *bad = 0;
    if (lstat(path, &st) != 0 && errno == ENOENT) return NULL;
    size_t len = 0;
    char *text = files_read_input(path, RECORD_MAX_BYTES, &len, err, errlen);
    if (text && strlen(text) != len) {
        snprintf(err, errlen, "%s: a NUL byte", path);
        free(text);
        text = NULL;
    }
    *bad = !text;
    return text;
}

/* One "HASH  PATH" line of sha256sum (" *PATH": binary mode, alike). 0, or -1 (why). */
static int parse_line(const char *line, size_t len, record_line *out, const char **why)
{
    if (len < 67) {
        *why = "expected a sha256 (64 hex digits), two separators and a path";
        return -1;
    }
    for (int i = 0; i < 64; i++)
        if (!isxdigit((unsigned char)line[i]) || isupper((unsigned char)line[i])) {
            *why = "the sha256 is not 64 lower-case hex digits";
            return -1;
        }
    if (line[64] != ' ' || (line[65] != ' ' && line[65] != '*')) {
        *why = "expected two separators after the sha256";
        return -1;
    }
    size_t plen = len - 66;
    const char *p = line + 66;
    if (plen >= RECORD_PATH_MAX || p[0] == '/' || strstr(p, "..")) {
        *why = "the path is absolute, climbs out with '..' or is too long";
        return -1;
    }
    for (size_t i = 0; i < plen; i++)
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f || p[i] == '\\') {
            *why = "the path holds a control character or a backslash";
            return -1;
        }
    memcpy(out->hash, line, 64);
    out->hash[64] = '\0';
    memcpy(out->path, p, plen);
    out->path[plen] = '\0';
    return 0;
}

/* Every line of a record; at least one. The lines (caller frees) or NULL with err. */
static record_line *parse_record(const char *text, const char *file, size_t *n, char *err, size_t errlen)
{
    record_line *lines = calloc(RECORD_MAX_LINES, sizeof *lines);
    *n = 0;
    if (!lines) {
        snprintf(err, errlen, "%s: out of memory", file);
        return NULL;
    }
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        const char *why = NULL;
        if (*n == RECORD_MAX_LINES) why = "more than 4096 lines";
        if (why || parse_line(s, len, &lines[*n], &why)) {
            snprintf(err, errlen, "%s: line %zu: %s", file, *n + 1, why);
            free(lines);
            return NULL;
        }
        (*n)++;
        s = e ? e + 1 : s + len;
    }
    if (!*n) {
        snprintf(err, errlen, "%s: empty (expected \"SHA256  PATH\" lines)", file);
        free(lines);
        return NULL;
    }
    return lines;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const record_line *)a)->path, ((const record_line *)b)->path);
}

static int is_own_path(const char *p)
{
    return !strncmp(p, "phases/", 7) || !strncmp(p, "kernels/", 8);
}

/* Compares two sources records (sorted here): sets own/shared difference flags and the
 * first differing path (an own one first). */
static void diff_sources(record_line *a, size_t na, record_line *b, size_t nb, int *own, int *shared,
                         char *first, size_t flen)
{
    qsort(a, na, sizeof *a, by_path);
    qsort(b, nb, sizeof *b, by_path);
    *own = *shared = 0;
    first[0] = '\0';
    for (size_t i = 0, j = 0; i < na || j < nb;) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].path, b[j].path);
        const char *path = c <= 0 ? a[i].path : b[j].path;
        int differs = c != 0 || strcmp(a[i].hash, b[j].hash);
        if (c <= 0) i++;
        if (c >= 0) j++;
        if (!differs) continue;
        int mine = is_own_path(path);
        if ((mine && !*own) || (!*own && !*shared)) snprintf(first, flen, "%s", path);
        if (mine) *own = 1;
        else *shared = 1;
    }
}

int rung_change_of_texts(const char *base_so, const char *head_so, const char *base_src, const char *head_src,
                         const char *const paths[4], const char *name, rung_change *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    const char *texts[4] = { base_so, head_so, base_src, head_src };
    record_line *rec[4] = { NULL };
    size_t n[4] = { 0 };
    int rc = 0;
    for (int k = 0; k < 4 && rc == 0; k++) {
        if (!texts[k]) continue;
        if (!(rec[k] = parse_record(texts[k], paths[k], &n[k], err, errlen))) rc = -1;
        else if (k < 2) {
            char want[RECORD_PATH_MAX];
            snprintf(want, sizeof want, "%s.so", name);
            if (n[k] != 1 || strcmp(rec[k][0].path, want)) {
                snprintf(err, errlen, "%s: expected one line naming %s", paths[k], want);
                rc = -1;
            }
        }
    }
    if (rc == 0) {
        if (!texts[0] || !texts[1] || !texts[2] || !texts[3]) {
            c->kind = RUNG_NO_RECORD;
            snprintf(c->first_diff, sizeof c->first_diff, "%s", !texts[0] || !texts[2] ? "base" : "head");
        } else {
            int own, shared;
            c->binary_differs = strcmp(rec[0][0].hash, rec[1][0].hash) != 0;
            diff_sources(rec[2], n[2], rec[3], n[3], &own, &shared, c->first_diff, sizeof c->first_diff);
            c->kind = own ? RUNG_OWN_SOURCES : shared ? RUNG_SHARED_SOURCES
                    : c->binary_differs ? RUNG_BINARY : RUNG_SAME;
        }
    }
    for (int k = 0; k < 4; k++) free(rec[k]);
    return rc;
}

int rung_change_read(const char *base_build, const char *head_build, const char *name, rung_change *c,
                     char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!name_is_safe(name)) {
        snprintf(err, errlen, "rung name '%s' is not a safe file name", name);
        return -1;
    }
    char paths[4][1024];
    char *texts[4] = { NULL };
    const char *const ptrs[4] = { paths[0], paths[1], paths[2], paths[3] };
    int rc = 0;
    for (int k = 0; k < 4 && rc == 0; k++) {
        int bad;
        snprintf(paths[k], sizeof paths[k], "%s/phases/%s.%s", k % 2 ? head_build : base_build, name,
                 k < 2 ? "so.sha256" : "sources.sha256");
        texts[k] = read_record(paths[k], &bad, err, errlen);
        if (bad) rc = -1;
    }
    if (rc == 0) rc = rung_change_of_texts(texts[0], texts[1], texts[2], texts[3], ptrs, name, c, err, errlen);
    for (int k = 0; k < 4; k++) free(texts[k]);
    return rc;
}

int rung_changes_decide(rung_change *c, size_t n)
{
    size_t binary_only = 0, alike = 0, shared = 0;
    for (size_t i = 0; i < n; i++) {
        binary_only += c[i].kind == RUNG_BINARY;
        alike += c[i].kind == RUNG_BINARY || c[i].kind == RUNG_SAME;
        shared += c[i].kind == RUNG_SHARED_SOURCES;
    }
    /* every binary whose sources are alike moved: the compiler, the flags or a shared
     * header, not a rule (a rung whose own source changed beside it is still swept); at
     * least two such rungs, since one alone cannot tell */
    int wide = shared > 0 || (binary_only > 1 && binary_only == alike);
    for (size_t i = 0; i < n; i++)
        c[i].sweep = c[i].kind == RUNG_OWN_SOURCES || c[i].kind == RUNG_NO_RECORD ||
                     (c[i].kind == RUNG_BINARY && !wide);
    return wide;
}

const char *rung_change_why(const rung_change *c, int wide, char *buf, size_t len)
{
    switch (c->kind) {
    case RUNG_SAME: snprintf(buf, len, "unchanged (binary and sources alike)"); break;
    case RUNG_OWN_SOURCES: snprintf(buf, len, "sources differ (%.300s)", c->first_diff); break;
    case RUNG_BINARY:
        snprintf(buf, len, "binary differs, sources alike%s",
                 wide ? " (as every rung's: a toolchain or flag change)" : "");
        break;
    case RUNG_SHARED_SOURCES: snprintf(buf, len, "only a shared source differs (%.300s): a harness change", c->first_diff); break;
    case RUNG_NO_RECORD: snprintf(buf, len, "no record of its build in the %s build: timed as changed", c->first_diff); break;
    }
    return buf;
}
