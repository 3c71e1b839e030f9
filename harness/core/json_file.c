/* core/json_file.c: reading a JSON file (json_file.h). */
#include "core/json_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/files.h"
#include "core/gz_read.h"

json_t *json_file_load(const char *path, size_t max_bytes, char *err, size_t errlen)
{
    size_t len = 0;
    /* a run committed compressed is read as its decompressed text, held to the same limit */
    char *text = gz_is_named(path) ? gz_read_input(path, max_bytes, &len, err, errlen)
                                   : files_read_input(path, max_bytes, &len, err, errlen);
    if (!text) return NULL;
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    char shown[FILES_SHOWN];
    if (!doc)
        snprintf(err, errlen, "%s: not valid JSON (truncated or corrupt?) at line %d, column %d: %s",
                 files_shown(path, shown), je.line, je.column, je.text);
    return doc;
}

int json_file_fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    char what[1024], shown[FILES_SHOWN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: %s", files_shown(path, shown), what);
    return -1;
}
