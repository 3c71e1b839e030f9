/* core/names.c: the names the harness turns into file names. */
#include "core/names.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Lower case, each run of other characters one '-', none leading or trailing; a
 * buffer too short ends the slug early rather than glue two words. */
void name_gpu_slug(const char *gpu_name, char *slug, size_t len)
{
    if (len == 0) return;
    size_t n = 0;
    int dash = 0;
    for (const char *c = gpu_name ? gpu_name : ""; *c && n + 1 < len; c++) {
        if (!isalnum((unsigned char)*c)) {
            dash = 1;
            continue;
        }
        if (dash && n > 0) {
            if (n + 2 >= len) break;
            slug[n++] = '-';
        }
        dash = 0;
        slug[n++] = (char)tolower((unsigned char)*c);
    }
    slug[n] = '\0';
    if (n == 0) snprintf(slug, len, "unknown");
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* yyyymmddThhmmssZ */
static int starts_with_stamp(const char *name)
{
    static const char pattern[] = "ddddddddTddddddZ";
    for (size_t i = 0; i < sizeof pattern - 1; i++) {
        char c = name[i];
        if (pattern[i] == 'd' ? (c < '0' || c > '9') : c != pattern[i]) return 0;
    }
    return 1;
}

int name_says_partial(const char *name)
{
    return ends_with(name, ".partial.json") || ends_with(name, ".partial.json.gz");
}

int name_is_run_file(const char *name, int *partial)
{
    if (partial) *partial = 0;
    if (!name || !name_is_safe(name) || !starts_with_stamp(name) ||
        !(ends_with(name, ".json") || ends_with(name, ".json.gz")))
        return 0;
    if (partial) *partial = name_says_partial(name);
    return 1;
}

/* An allow-list, not a deny-list: what a name may hold is small and known, what a file
 * system or a shell may read into other characters is not. */
int name_is_safe(const char *name)
{
    if (!name || !name[0] || name[0] == '.') return 0;
    size_t n = 0;
    for (const char *c = name; *c; c++, n++) {
        if (n >= NAME_MAX_LEN) return 0;
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                 *c == '-' || *c == '_' || *c == '.';   /* ASCII whatever the locale */
        if (!ok) return 0;
    }
    return 1;
}

size_t name_index(const void *array, size_t n, size_t stride, size_t name_offset, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        const char *have = *(const char *const *)((const char *)array + i * stride + name_offset);
        if (have && strcmp(have, name) == 0) return i;
    }
    return n;
}

