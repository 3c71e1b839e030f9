/* measure/ncu_csv.c: the CSV splitter and the raw-page parser. */
#include "measure/ncu_csv.h"

#include <stdlib.h>
#include <string.h>

size_t csv_split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') break;
                if (*p == '"' && p[1] == '"') { *out++ = '"'; p += 2; continue; }
                if (*p == '"') { p++; break; }
                *out++ = *p++;
            }
            while (*p && *p != ',') p++;
        } else {
            while (*p && *p != ',' && *p != '\r' && *p != '\n') *out++ = *p++;
        }
        char sep = *p;
        *out = '\0';
        fields[n++] = start;
        if (sep != ',') break;
        p++;
    }
    return n;
}

/* exact name, or a prefix when the pattern ends in '*' */
static int matches(const char *name, const char *pattern)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '*') return strncmp(name, pattern, n - 1) == 0;
    return strcmp(name, pattern) == 0;
}

static int column_of(char **cols, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(cols[i], name) == 0) return (int)i;
    return -1;
}

#define MAX_COLS 512

json_t *ncu_parse_raw_csv(const char *text, const char *const *wanted)
{
    char *copy = strdup(text);
    if (!copy) return NULL;
    char *header[MAX_COLS];
    size_t ncols = 0;
    int kernel_col = -1, row = 0;
    json_t *out = NULL;
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        if (!out) {
            /* ncu prints its own "==PROF==" lines before the table */
            if (line[0] != '"') continue;
            ncols = csv_split(line, header, MAX_COLS);
            kernel_col = column_of(header, ncols, "Kernel Name");
            if (kernel_col < 0) continue;
            out = json_array();
            row = 0;
            continue;
        }
        if (row++ == 0) continue;   /* units */
        char *f[MAX_COLS];
        size_t nf = csv_split(line, f, MAX_COLS);
        if (nf != ncols) continue;
        json_t *metrics = json_object();
        for (size_t c = 0; c < ncols; c++) {
            int keep = 0;
            for (size_t w = 0; wanted[w] && !keep; w++) keep = matches(header[c], wanted[w]);
            if (!keep) continue;
            char *end;
            const char *v = f[c];
            char clean[64];
            size_t k = 0;
            for (const char *s = v; *s && k + 1 < sizeof clean; s++)
                if (*s != ',') clean[k++] = *s;   /* ncu may group thousands */
            clean[k] = '\0';
            double d = strtod(clean, &end);
            json_object_set_new(metrics, header[c],
                                end != clean && *end == '\0' ? json_real(d) : json_string(v));
        }
        json_array_append_new(out, json_pack("{s:s, s:o}", "kernel", f[kernel_col], "metrics", metrics));
    }
    free(copy);
    return out;
}

/* The marker by name and by launch: a phase's kernel may share the name, not the launch of
 * one block of 32 threads. */
static int is_marker(const json_t *row)
{
    const char *name = json_string_value(json_object_get(row, "kernel"));
    const json_t *m = json_object_get(row, "metrics");
    const json_t *grid = json_object_get(m, "launch__grid_size");
    const json_t *block = json_object_get(m, "launch__block_size");
    return name && strstr(name, NCU_MARKER_KERNEL) && json_is_number(grid) && json_is_number(block) &&
           json_number_value(grid) == 1 && json_number_value(block) == 32;
}

json_t *ncu_split_by_marker(const json_t *kernels, size_t n)
{
    size_t rows = json_array_size(kernels);
    if (!json_is_array(kernels) || n == 0 || rows == 0 || !is_marker(json_array_get(kernels, 0)))
        return NULL;
    json_t *groups = json_array();
    json_t *cur = NULL;
    for (size_t i = 0; i < rows; i++) {
        json_t *row = json_array_get(kernels, i);
        if (is_marker(row)) {
            if (cur && json_array_size(cur) == 0) break;   /* an implementation with no kernel */
            cur = json_array();
            json_array_append_new(groups, cur);
            continue;
        }
        json_array_append_new(cur, json_deep_copy(row));
    }
    int ok = json_array_size(groups) == n;
    for (size_t g = 0; ok && g < n; g++) ok = json_array_size(json_array_get(groups, g)) > 0;
    if (!ok) {
        json_decref(groups);
        return NULL;
    }
    return groups;
}
