/* evidence/run_forms.c: a run's plain and compressed forms (run_forms.h). */
#include "evidence/run_forms.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "core/files.h"

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int run_other_form(const char *path, char *other, size_t len)
{
    size_t n = strlen(path);
    int w;
    if (ends_with(path, n, ".json.gz")) w = snprintf(other, len, "%.*s", (int)(n - 3), path);
    else if (ends_with(path, n, ".json")) w = snprintf(other, len, "%s.gz", path);
    else return -1;
    return w >= 0 && (size_t)w < len ? 0 : -1;
}

int run_form_single(const char *path, char *err, size_t errlen)
{
    char other[4096];
    struct stat st;
    /* lstat: a link in either place is a file there, for this question */
    if (run_other_form(path, other, sizeof other) || lstat(path, &st) != 0 || lstat(other, &st) != 0)
        return 0;
    char a[FILES_SHOWN], b[FILES_SHOWN];
    int path_plain = strlen(path) < strlen(other);
    snprintf(err, errlen, "%s and %s: one run in two forms, plain and compressed; a run is stored "
             "in one (remove the plain file once the compressed one is committed: "
             "ci/tools/compress_run.sh does both)",
             files_shown(path_plain ? path : other, a), files_shown(path_plain ? other : path, b));
    return -1;
}
