/* evidence/run_lists.c: the accepted reference runs of a GPU (run_lists.h says the rule). */
#include "evidence/run_lists.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/files.h"
#include "core/names.h"
#include "evidence/run_forms.h"

/* A byte order mark (EF BB BF) at the start of a list: named, not read as part of the
 * first file name (an editor on another system may write one). */
#define BOM_WHY "starts with a byte order mark (EF BB BF); save it as UTF-8 without one"
static int has_bom(const char *text, size_t len)
{
    return len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
           (unsigned char)text[2] == 0xBF;
}

/* Whether a list (accepted.txt, reference.txt) is absent: 1 when nothing is at txt, 0 when
 * something is (read it: the reader refuses what is not a regular file), -1 with err when
 * it is a symbolic link to nothing, which is a list that cannot be read, not an absent one
 * (taken for absent, the fallback would stand in for the run it was meant to name). */
static int list_absent(const char *txt, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(txt, &st) != 0) return errno == ENOENT;
    if (S_ISLNK(st.st_mode) && stat(txt, &st) != 0) {
        snprintf(err, errlen, "%s: cannot read it: a symbolic link to nothing (%s)", txt, strerror(errno));
        return -1;
    }
    return 0;
}

/* One listed name s (l bytes) of accepted.txt (txt, line lineno) checked and added to
 * set: a complete run's file name, listed once, naming a file of the directory in one
 * form. 0, or -1 (err). */
static int accept_line(accepted_set *set, const char *root, const char *slug, const char *txt, int lineno,
                       const char *s, size_t l, char *err, size_t errlen)
{
    struct stat st;
    int partial = 0;
    if (!name_is_run_file(s, &partial) || partial || l >= sizeof set->name[0]) {
        snprintf(err, errlen, "%s:%d: each line must hold the file name of one complete run in that "
                 "directory (yyyymmddThhmmssZ_<commit>.json, or .json.gz), got '%.200s'", txt, lineno, s);
        return -1;
    }
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(set->name[i], s)) {
            snprintf(err, errlen, "%s:%d: '%s' is listed twice", txt, lineno, s);
            return -1;
        }
    if (set->n == ACCEPTED_MAX) {
        snprintf(err, errlen, "%s: more than %d runs listed", txt, ACCEPTED_MAX);
        return -1;
    }
    snprintf(set->name[set->n], sizeof set->name[0], "%s", s);
    if (snprintf(set->path[set->n], sizeof set->path[0], "%s/%s/%s", root, slug, s) >= (int)sizeof set->path[0]) {
        snprintf(err, errlen, "%.200s...: the path of an accepted run is too long", root);
        return -1;
    }
    /* a name that is no file of the directory accepts nothing */
    if (stat(set->path[set->n], &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s:%d: '%s' names no run file in %s/%s/", txt, lineno, s, root, slug);
        return -1;
    }
    char why[2048];
    if (run_form_single(set->path[set->n], why, sizeof why)) {
        snprintf(err, errlen, "%s:%d: %s", txt, lineno, why);
        return -1;
    }
    set->n++;
    return 0;
}

int evidence_accepted_set(const char *root, const char *slug, accepted_set *set, char *err, size_t errlen)
{
    char txt[4096];
    memset(set, 0, sizeof *set);
    if (snprintf(txt, sizeof txt, "%s/%s/accepted.txt", root, slug) >= (int)sizeof txt) {
        snprintf(err, errlen, "%.200s...: the path of accepted.txt is too long", root);
        return -1;
    }
    int absent = list_absent(txt, err, errlen);
    if (absent < 0) return -1;
    if (absent) {
        snprintf(err, errlen, "%s: cannot read it: no accepted reference run for this GPU yet "
                 "(write the file name of a run into it to accept that run)", txt);
        return 0;
    }
    size_t len = 0;
    char *text = files_read_input(txt, ACCEPTED_MAX_BYTES, &len, err, errlen);
    if (!text) return -1;
    if (has_bom(text, len)) {
        snprintf(err, errlen, "%s:1: %s", txt, BOM_WHY);
        free(text);
        return -1;
    }
    int lineno = 0, rc = 1;
    for (char *line = text, *next; rc == 1 && line < text + len; line = next) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        next = nl ? nl + 1 : text + len;
        if (nl) *nl = '\0';
        else text[len] = '\0';
        lineno++;
        if (memchr(line, '\0', (size_t)((nl ? nl : text + len) - line))) {
            snprintf(err, errlen, "%s:%d: holds a NUL byte", txt, lineno);
            rc = -1;
            break;
        }
        line[strcspn(line, "\r")] = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        size_t l = strlen(s);
        while (l && (s[l - 1] == ' ' || s[l - 1] == '\t')) s[--l] = '\0';
        if (!*s || *s == '#') continue;
        if (accept_line(set, root, slug, txt, lineno, s, l, err, errlen)) {
            rc = -1;
            break;
        }
    }
    free(text);
    if (rc == 1 && set->n == 0) {
        snprintf(err, errlen, "%s: must hold the file name of at least one complete run in that directory "
                 "(yyyymmddThhmmssZ_<commit>.json, or .json.gz), got none", txt);
        rc = -1;
    }
    return rc;
}

int evidence_accepted(const char *root, const char *slug, char *name, size_t name_len,
                      char *path, size_t path_len, char *err, size_t errlen)
{
    static accepted_set set;   /* large; the harness is single-threaded */
    int rc = evidence_accepted_set(root, slug, &set, err, errlen);
    if (rc != 1) return rc;
    snprintf(name, name_len, "%s", set.name[0]);
    snprintf(path, path_len, "%s", set.path[0]);
    return 1;
}

int reference_run_of(const char *gpu_dir, char *name, size_t name_len, char *path, size_t path_len,
                     char *err, size_t errlen)
{
    char txt[4096];
    snprintf(txt, sizeof txt, "%s/reference.txt", gpu_dir);
    int absent = list_absent(txt, err, errlen);
    if (absent < 0) return -1;
    if (absent) {
        snprintf(err, errlen, "%s: cannot read it: no reference run named for this GPU "
                 "(write the file name of its complete run into it)", txt);
        return 0;
    }
    /* read by the input rule: a FIFO or a directory there is refused, not waited on */
    size_t len = 0;
    char *text = files_read_input(txt, ACCEPTED_MAX_BYTES, &len, err, errlen);
    if (!text) return -1;
    if (has_bom(text, len)) {
        snprintf(err, errlen, "%s: %s", txt, BOM_WHY);
        free(text);
        return -1;
    }
    /* one line: a run name is at most 255 characters, so a longer first line, or
     * anything but blanks after it, is not the format */
    char line[512];
    size_t first = strcspn(text, "\n");
    int got = len > 0, more = 0, rc = 1;
    int whole = got && first < sizeof line && strlen(text) == len;   /* no NUL inside */
    snprintf(line, sizeof line, "%.*s", (int)(first < sizeof line ? first : sizeof line - 1), text);
    for (const char *r = text + first; whole && *r; r++)
        if (!strchr(" \t\r\n", *r)) more = 1;
    free(text);
    char *s = line;
    if (got) {
        line[strcspn(line, "\r\n")] = '\0';
        while (*s == ' ' || *s == '\t') s++;
        size_t l = strlen(s);
        while (l && (s[l - 1] == ' ' || s[l - 1] == '\t')) s[--l] = '\0';
    }
    int partial = 0;
    if (!got || !whole || more || !name_is_safe(s) || !name_is_run_file(s, &partial) || partial ||
        strlen(s) >= name_len) {
        snprintf(err, errlen, "%s: must hold one line, the file name of one complete run in that "
                 "directory (yyyymmddThhmmssZ_<commit>.json, or .json.gz), got %s'%.200s'%s", txt,
                 got ? "" : "nothing: ", got ? s : "", more ? " and more lines" : "");
        rc = -1;
    } else {
        snprintf(name, name_len, "%s", s);
        snprintf(path, path_len, "%s/%s", gpu_dir, s);
        char why[2048];
        if (run_form_single(path, why, sizeof why)) {
            snprintf(err, errlen, "%s: %s", txt, why);
            rc = -1;
        }
    }
    return rc;
}

int evidence_accepted_open(const char *root, const char *slug, const char *exclude, run_data **runs,
                           size_t *n, char *err, size_t errlen)
{
    static accepted_set set;   /* large; the harness is single-threaded */
    *runs = NULL;
    *n = 0;
    int rc = evidence_accepted_set(root, slug, &set, err, errlen);
    if (rc != 1) return rc;
    run_data *r = calloc(set.n + 1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory reading the accepted set of %s", slug);
        return -1;
    }
    /* a run is never its own reference, in either form (run_other_form: X.json and X.json.gz) */
    char exclude_other[4096] = "";
    if (exclude && run_other_form(exclude, exclude_other, sizeof exclude_other)) exclude_other[0] = '\0';
    size_t k = 0;
    for (size_t i = 0; i < set.n; i++) {
        if (exclude && (!strcmp(set.name[i], exclude) || !strcmp(set.name[i], exclude_other))) continue;
        if (run_open(&r[k], set.path[i], err, errlen)) goto bad;
        k++;
        if (r[k - 1].partial) {
            snprintf(err, errlen, "%.1000s: a partial (interrupted) run cannot be in the accepted set", set.path[i]);
            goto bad;
        }
    }
    *runs = r;
    *n = k;
    return 1;
bad:
    for (size_t i = 0; i < k; i++) run_close(&r[i]);
    free(r);
    return -1;
}

int reference_choose(const char *root, const char *slug, const char *newest, char *name, size_t name_len,
                     char *why, size_t why_len, char *err, size_t errlen)
{
    char dir[4096], path[4096], e1[1536] = "", e2[1536] = "";
    snprintf(dir, sizeof dir, "%s/%s", root, slug);
    int ref = reference_run_of(dir, name, name_len, path, sizeof path, e1, sizeof e1);
    if (ref == 1) {
        snprintf(why, why_len, "named by `%s/reference.txt`", dir);
        return REFERENCE_FROM_FILE;
    }
    if (ref < 0) {
        snprintf(err, errlen, "%s", e1);
        return -1;
    }
    int acc = evidence_accepted(root, slug, name, name_len, path, sizeof path, e2, sizeof e2);
    if (acc < 0) {
        snprintf(err, errlen, "%s", e2);
        return -1;
    }
    if (acc == 1) {
        snprintf(why, why_len, "no `%s/reference.txt` yet: the first run of `accepted.txt` stands in "
                 "for the reference run", dir);
        return REFERENCE_FALLBACK_ACCEPTED;
    }
    if (newest && newest[0]) {
        snprintf(name, name_len, "%s", newest);
        snprintf(why, why_len, "no `%s/reference.txt` or `accepted.txt` yet: the newest complete run "
                 "stands in for the reference run", dir);
        return REFERENCE_FALLBACK_NEWEST;
    }
    snprintf(err, errlen, "%s: no reference run, no accepted run and no complete run", dir);
    return REFERENCE_NONE;
}
