/* report/complete.c: the gaps of a written report (complete.h). */
#include "report/complete.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "core/files.h"

/* One markdown table row split into cells (the line without its outer pipes); n cells.
 * Cells hold no raw '|': text from evidence is escaped (core/text_safe.h) and the
 * report's own text has none. */
static size_t split_row(char *line, char **cells, size_t cap)
{
    size_t n = 0;
    char *p = line;
    while (*p == ' ') p++;
    if (*p == '|') p++;
    while (*p && n < cap) {
        char *bar = strchr(p, '|');
        if (!bar) break;
        *bar = '\0';
        char *a = p, *b = bar;
        while (*a == ' ') a++;
        while (b > a && b[-1] == ' ') *--b = '\0';
        cells[n++] = a;
        p = bar + 1;
    }
    return n;
}

static int is_dash(const char *cell)
{
    return !cell[0] || !strcmp(cell, "-");
}

/* The tables of one markdown page: a table is a run of lines starting with '|', its
 * second line the separator; its name is the last heading above it. */
static long check_page(const char *path, const char *rel, FILE *f)
{
    size_t len;
    char *text = files_read(path, &len);
    if (!text) return 0;   /* a page the report does not write */
    long gaps = 0;
    char heading[512] = "(top)", section[256] = "";
    char *next = text;
    enum { MAXC = 32 };
    char *head[MAXC];
    char head_buf[4096];
    size_t nh = 0, rows = 0;
    int all_dash[MAXC];
    int in_table = 0, line_in_table = 0;
    for (;;) {
        /* line by line, blank lines kept: a blank line ends a table */
        char *line = next;
        if (line) {
            char *nl = strchr(line, '\n');
            if (nl) *nl = '\0';
            next = nl ? nl + 1 : NULL;
            if (!nl && !*line) line = NULL;
        }
        int is_row = line && line[0] == '|';
        if (in_table && !is_row) {
            for (size_t k = 0; rows && k < nh; k++)
                if (all_dash[k]) {
                    fprintf(f, "  %s, table under \"%s\": column \"%s\" is \"-\" in all %zu rows\n", rel, heading,
                            head[k], rows);
                    gaps++;
                }
            in_table = 0;
        }
        if (!line) break;
        if (line[0] == '#') {
            /* a table is named by its section (## ...) and the heading right above it */
            const char *h = line;
            int level = 0;
            while (*h == '#') h++, level++;
            while (*h == ' ') h++;
            if (level <= 2) {
                snprintf(section, sizeof section, "%.200s", h);
                snprintf(heading, sizeof heading, "%.200s", h);
            } else {
                snprintf(heading, sizeof heading, "%.200s%s%.200s", section, section[0] ? " > " : "", h);
            }
            continue;
        }
        if (!is_row) continue;
        if (!in_table) {
            in_table = 1;
            line_in_table = 0;
            rows = 0;
            snprintf(head_buf, sizeof head_buf, "%s", line);
            nh = split_row(head_buf, head, MAXC);
            for (size_t k = 0; k < nh; k++) all_dash[k] = 1;
            continue;
        }
        if (++line_in_table == 1) continue;   /* the separator */
        char *cells[MAXC];
        size_t nc = split_row(line, cells, MAXC);
        rows++;
        for (size_t k = 0; k < nh; k++)
            if (k < nc && !is_dash(cells[k])) all_dash[k] = 0;
    }
    free(text);
    return gaps;
}

/* A plot's <desc>: its data points, empty panels and missing series, from plots.c. */
static long check_plot(const char *path, const char *rel, FILE *f)
{
    size_t len;
    char *text = files_read(path, &len);
    if (!text) return 0;
    const char *tag = "<desc>attnladder report: ";
    char *d = strstr(text, tag);
    char *end = d ? strstr(d, "</desc>") : NULL;
    long gaps = 0;
    if (!d || !end) {
        fprintf(f, "  %s: no count of its data points (a plot of an older report: regenerate it)\n", rel);
        gaps = 1;
    } else {
        *end = '\0';
        d += strlen(tag);
        long points = strtol(d, NULL, 10);
        if (points <= 0) {
            fprintf(f, "  %s: no data\n", rel);
            gaps++;
        }
        const char *keys[] = { "; empty: ", "; missing: " };
        for (size_t k = points <= 0; k < 2; k++) {   /* no data at all: said once */
            const char *p = strstr(d, keys[k]);
            if (!p) continue;
            const char *q = strchr(p + 2, ';');
            fprintf(f, "  %s: %s %.*s\n", rel, k ? "missing" : "no data in the panel(s)",
                    (int)(q ? q - (p + strlen(keys[k])) : (long)strlen(p + strlen(keys[k]))), p + strlen(keys[k]));
            gaps++;
        }
    }
    free(text);
    return gaps;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of dir ending in suffix, sorted (the report is listed in a fixed order). */
static char **list(const char *dir, const char *suffix, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    size_t cap = 16;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while (names && (e = readdir(d))) {
        size_t l = strlen(e->d_name), s = strlen(suffix);
        if (e->d_name[0] == '.' || l <= s || strcmp(e->d_name + l - s, suffix)) continue;
        if (*n == cap) {
            char **m = realloc(names, 2 * cap * sizeof *m);
            if (!m) break;
            names = m;
            cap *= 2;
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (names) qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

long report_check_complete(const char *dir, FILE *f)
{
    char *path = NULL;
    if (asprintf(&path, "%s/README.md", dir) < 0) return -1;
    size_t len;
    char *probe = files_read(path, &len);
    if (!probe) {
        free(path);
        return -1;
    }
    free(probe);
    long gaps = check_page(path, "README.md", f);
    free(path);
    static const struct { const char *sub, *suffix; int plot; } parts[] = {
        { "phases", ".md", 0 }, { "plots", ".svg", 1 },
    };
    for (size_t p = 0; p < 2; p++) {
        char *sub = NULL;
        if (asprintf(&sub, "%s/%s", dir, parts[p].sub) < 0) return -1;
        size_t n;
        char **names = list(sub, parts[p].suffix, &n);
        for (size_t i = 0; names && i < n; i++) {
            char *full = NULL, *rel = NULL;
            if (names[i] && asprintf(&full, "%s/%s", sub, names[i]) >= 0 &&
                asprintf(&rel, "%s/%s", parts[p].sub, names[i]) >= 0)
                gaps += parts[p].plot ? check_plot(full, rel, f) : check_page(full, rel, f);
            free(full);
            free(rel);
            free(names[i]);
        }
        free(names);
        free(sub);
    }
    return gaps;
}
