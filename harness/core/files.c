/* core/files.c: temporary trees, the swap into place, tree comparison. */
#include "core/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int files_mkdirs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0755) && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(path, 0755) && errno != EEXIST) return -1;
    return 0;
}

int files_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT ? 0 : -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st)) {
            rc = -1;
            continue;
        }
        if (S_ISDIR(st.st_mode)) rc |= files_remove_tree(path);
        else if (unlink(path)) rc = -1;
    }
    closedir(d);
    if (rmdir(dir)) rc = -1;
    return rc;
}

int files_temp_beside(const char *target, char *out, size_t len, char *err, size_t errlen)
{
    size_t tl = strlen(target);
    while (tl > 1 && target[tl - 1] == '/') tl--;
    snprintf(out, len, "%.*s.tmp.XXXXXX", (int)tl, target);
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", out);
    char *slash = strrchr(parent, '/');
    if (slash) {
        *slash = '\0';
        if (parent[0] && files_mkdirs(parent)) {
            snprintf(err, errlen, "cannot create %s: %s", parent, strerror(errno));
            return -1;
        }
    }
    if (!mkdtemp(out)) {
        snprintf(err, errlen, "cannot create a temporary directory beside %s: %s", target,
                 strerror(errno));
        return -1;
    }
    return 0;
}

int files_swap_into_place(const char *fresh, const char *target, char *err, size_t errlen)
{
    char old[4096];
    struct stat st;
    int had = stat(target, &st) == 0;
    if (had) {
        snprintf(old, sizeof old, "%s.old.XXXXXX", target);
        if (!mkdtemp(old) || rmdir(old) || rename(target, old)) {
            snprintf(err, errlen, "cannot move %s aside: %s", target, strerror(errno));
            return -1;
        }
    }
    if (rename(fresh, target)) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", fresh, target, strerror(errno));
        if (had) rename(old, target);
        return -1;
    }
    if (had && files_remove_tree(old)) {
        snprintf(err, errlen, "the report is in place, but the old tree %s could not be removed", old);
        return -1;
    }
    return 0;
}

char *files_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    if (b && ferror(f)) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = '\0';
        *len = n;
    }
    return b;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under root (relative paths), sorted. */
static int list_tree(const char *root, const char *rel, char ***out, size_t *n, size_t *cap)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT && !rel[0] ? 0 : -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) && rc == 0) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char r[4096], full[8192];
        snprintf(r, sizeof r, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, r);
        struct stat st;
        if (lstat(full, &st)) {
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            rc = list_tree(root, r, out, n, cap);
        } else {
            if (*n == *cap) {
                *cap = *cap ? 2 * *cap : 64;
                char **p = realloc(*out, *cap * sizeof *p);
                if (!p) {
                    rc = -1;
                    break;
                }
                *out = p;
            }
            if (!((*out)[(*n)++] = strdup(r))) rc = -1;
        }
    }
    closedir(d);
    return rc;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++) free(l[i]);
    free(l);
}

long files_diff_trees(const char *want, const char *have, FILE *f)
{
    char **a = NULL, **b = NULL;
    size_t na = 0, nb = 0, ca = 0, cb = 0;
    if (list_tree(want, "", &a, &na, &ca) || list_tree(have, "", &b, &nb, &cb)) {
        free_list(a, na);
        free_list(b, nb);
        return -1;
    }
    qsort(a, na, sizeof *a, cmp_str);
    qsort(b, nb, sizeof *b, cmp_str);
    long diffs = 0;
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i], b[j]);
        if (c < 0) {
            fprintf(f, "  missing: %s/%s\n", have, a[i++]);
            diffs++;
        } else if (c > 0) {
            fprintf(f, "  not generated (stale or hand-written): %s/%s\n", have, b[j++]);
            diffs++;
        } else {
            char pa[8192], pb[8192];
            snprintf(pa, sizeof pa, "%s/%s", want, a[i]);
            snprintf(pb, sizeof pb, "%s/%s", have, b[j]);
            size_t la = 0, lb = 0;
            char *xa = files_read(pa, &la), *xb = files_read(pb, &lb);
            if (!xa || !xb || la != lb || memcmp(xa, xb, la) != 0) {
                size_t k = 0, line = 1;
                while (xa && xb && k < la && k < lb && xa[k] == xb[k]) line += xa[k++] == '\n';
                fprintf(f, "  differs: %s (first difference at line %zu)\n", pb, line);
                diffs++;
            }
            free(xa);
            free(xb);
            i++;
            j++;
        }
    }
    free_list(a, na);
    free_list(b, nb);
    return diffs;
}

int files_write(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
        fprintf(stderr, "attnladder: cannot write %s\n", path);
        if (f) fclose(f);
        return -1;
    }
    return 0;
}

int files_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    char dir[4096], tmp[4200];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base) {
        snprintf(err, errlen, "%s: no file name", path);
        return -1;
    }
    if (slash == path) snprintf(dir, sizeof dir, "/");
    else if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else snprintf(dir, sizeof dir, ".");
    /* hidden, in the target's directory: the rename stays on one file system and a
     * reader listing the directory never sees the half-written file */
    snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, base);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a temporary file in %s: %s", dir, strerror(errno));
        return -1;
    }
    fchmod(fd, 0644);   /* mkstemp's 0600 would hide committed files from others */
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    const char *what = done != len ? "cannot write" : fsync(fd) != 0 ? "cannot sync" : NULL;
    if (close(fd) != 0 && !what) what = "cannot close";
    const char *where = tmp;
    if (!what && rename(tmp, path) != 0) what = "cannot rename into", where = path;
    if (what) {
        snprintf(err, errlen, "%s %s: %s", what, where, strerror(errno));
        unlink(tmp);
        return -1;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);   /* make the rename itself durable */
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}
