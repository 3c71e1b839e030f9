/* core/json_file.c: reading a JSON file (json_file.h). */
#include "core/json_file.h"

#include <stdarg.h>
#include <stdio.h>

json_t *json_file_load(const char *path, char *err, size_t errlen)
{
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (doc) return doc;
    if (json_error_code(&je) == json_error_cannot_open_file)
        snprintf(err, errlen, "%s: cannot read (%s)", path, je.text);
    else
        snprintf(err, errlen, "%s: not valid JSON (truncated or corrupt?) at line %d, column %d: %s",
                 path, je.line, je.column, je.text);
    return NULL;
}

int json_file_fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}
