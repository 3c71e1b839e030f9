/* core/files.c: temporary trees, the swap into place, tree comparison, the input and
 * output rules (files.h). Paths are built to their length (asprintf), never cut by a
 * fixed buffer; trees are walked by descriptor and never through a symbolic link. */
#include "core/files.h"
#include "core/text_safe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

/* asprintf or NULL. */
static char *cat(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *cat(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

int files_mkdirs(const char *dir)
{
    char *path = strdup(dir);
    if (!path) return -1;
    int rc = 0;
    for (char *p = path + 1; *p && !rc; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0755) && errno != EEXIST) rc = -1;
        *p = '/';
    }
    if (!rc && path[0] && mkdir(path, 0755) && errno != EEXIST) rc = -1;
    free(path);
    return rc;
}

/* Empties the directory open as fd (closed here): entries are unlinked by name relative
 * to it, subdirectories opened with O_NOFOLLOW, so a link is removed, never followed. */
static int empty_dir_fd(int fd)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
            rc = -1;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0 || empty_dir_fd(sub)) rc = -1;
            if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR)) rc = -1;
        } else if (unlinkat(dirfd(d), e->d_name, 0)) {
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

int files_remove_tree(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st)) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return unlink(dir);   /* a link or a file: itself only */
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = empty_dir_fd(fd);
    if (rmdir(dir)) rc = -1;
    return rc;
}

int files_temp_beside(const char *target, char *out, size_t len, char *err, size_t errlen)
{
    size_t tl = strlen(target);
    while (tl > 1 && target[tl - 1] == '/') tl--;
    int n = snprintf(out, len, "%.*s.tmp.XXXXXX", (int)tl, target);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "%.*s...: path too long (%zu bytes)", 80, target, tl);
        return -1;
    }
    char *parent = strdup(out);
    if (!parent) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char *slash = strrchr(parent, '/');
    if (slash) {
        *slash = '\0';
        if (parent[0] && files_mkdirs(parent)) {
            snprintf(err, errlen, "cannot create %s: %s", parent, strerror(errno));
            free(parent);
            return -1;
        }
    }
    free(parent);
    if (!mkdtemp(out)) {
        snprintf(err, errlen, "cannot create a temporary directory beside %s: %s", target,
                 strerror(errno));
        return -1;
    }
    return 0;
}

int files_swap_into_place(const char *fresh, const char *target, char *err, size_t errlen)
{
    struct stat st;
    int had = lstat(target, &st) == 0;   /* a link is moved aside as itself */
    char *old = had ? cat("%s.old.XXXXXX", target) : NULL;
    if (had && !old) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (had && (!mkdtemp(old) || rmdir(old) || rename(target, old))) {
        snprintf(err, errlen, "cannot move %s aside: %s", target, strerror(errno));
        free(old);
        return -1;
    }
    int rc = 0;
    if (rename(fresh, target)) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", fresh, target, strerror(errno));
        if (had) rename(old, target);
        rc = -1;
    } else if (had && files_remove_tree(old)) {
        snprintf(err, errlen, "the report is in place, but the old tree %s could not be removed", old);
        rc = -1;
    }
    free(old);
    return rc;
}

/* Reads fd to its end, at most max bytes (more is an error: *len = max + 1). */
static char *read_fd(int fd, size_t max, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    while (b) {
        if (n == cap) {
            char *nb = cap > max ? NULL : realloc(b, 2 * cap + 1);
            if (!nb) break;
            b = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, b + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (got < 0) break;
            b[n] = '\0';
            *len = n;
            return b;
        }
        n += (size_t)got;
        if (n > max) {
            *len = n;
            break;
        }
    }
    free(b);
    return NULL;
}

char *files_read(const char *path, size_t *len)
{
    char err[FILES_SHOWN + 128];
    return files_read_input(path, FILES_READ_MAX, len, err, sizeof err);
}

const char *files_shown(const char *path, char buf[FILES_SHOWN])
{
    size_t n = strlen(path);
    if (n < FILES_SHOWN) return path;
    /* 100 + "..." + 130 + NUL; the cut may split a UTF-8 character, which is only shown */
    snprintf(buf, FILES_SHOWN, "%.100s...%s", path, path + n - 130);
    return buf;
}

/* Opens path for reading by the input rule, reading nothing: a regular file of at most
 * max bytes. The descriptor (blocking), or -1 with err naming opt (may be "") and path. */
static int open_input(const char *path_in, size_t max, const char *opt, char *err, size_t errlen)
{
    char shown[FILES_SHOWN];
    const char *path = files_shown(path_in, shown), *sep = opt[0] ? " " : "";
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below */
    int fd = open(path_in, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        snprintf(err, errlen, "%s%s%s: cannot read (%s)", opt, sep, path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    const char *not_file = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                         : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                         : S_ISSOCK(st.st_mode) ? "a socket" : !S_ISREG(st.st_mode) ? "not a file" : NULL;
    if (not_file) {
        snprintf(err, errlen, "%s%s%s: %s, not a regular file", opt, sep, path, not_file);
        close(fd);
        return -1;
    }
    if ((unsigned long long)st.st_size > max) {
        snprintf(err, errlen, "%s%s%s: %lld bytes, more than the %zu bytes such a file may have", opt, sep, path,
                 (long long)st.st_size, max);
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int files_input_ok(const char *opt, const char *path, size_t max, char *err, size_t errlen)
{
    if (!path[0]) {
        snprintf(err, errlen, "%s%s'': give a file", opt, opt[0] ? " " : "");
        return -1;
    }
    int fd = open_input(path, max, opt, err, errlen);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

char *files_read_input(const char *path_in, size_t max, size_t *len, char *err, size_t errlen)
{
    char shown[FILES_SHOWN];
    const char *path = files_shown(path_in, shown);
    if (!path[0]) {
        snprintf(err, errlen, "'': give a file");
        return NULL;
    }
    int fd = open_input(path_in, max, "", err, errlen);
    if (fd < 0) return NULL;
    size_t n = 0;
    char *b = read_fd(fd, max, &n);
    int e = errno;
    close(fd);
    if (!b) {
        if (n > max) snprintf(err, errlen, "%s: more than the %zu bytes such a file may have", path, max);
        else snprintf(err, errlen, "%s: cannot read (%s)", path, strerror(e));
        return NULL;
    }
    *len = n;
    return b;
}

/* ---- where a path leads ----------------------------------------------------------------- */

char *files_resolve(const char *path)
{
    if (!path[0]) return NULL;
    char *r = realpath(path, NULL);
    if (r) return r;
    /* the part that exists, resolved; the rest folded as written */
    char *p = strdup(path);
    if (!p) return NULL;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') p[--n] = '\0';
    char *slash = strrchr(p, '/');
    const char *last = slash ? slash + 1 : p;
    char *parent = slash ? (slash == p ? strdup("/") : strndup(p, (size_t)(slash - p))) : strdup(".");
    char *base = parent && strcmp(parent, p) ? files_resolve(parent) : NULL;
    char *out = NULL;
    if (base) {
        if (!strcmp(last, ".") || !last[0]) {
            out = strdup(base);
        } else if (!strcmp(last, "..")) {
            char *s = strrchr(base, '/');
            out = s == base || !s ? strdup("/") : strndup(base, (size_t)(s - base));
        } else {
            out = cat("%s%s%s", base, strcmp(base, "/") ? "/" : "", last);
        }
    }
    free(base);
    free(parent);
    free(p);
    return out;
}

/* a is b or lies under it (both resolved). */
static int under(const char *a, const char *b)
{
    size_t n = strlen(b);
    if (strncmp(a, b, n)) return 0;
    return a[n] == '\0' || a[n] == '/' || (n == 1 && b[0] == '/');
}

int files_overlap(const char *a, const char *b)
{
    char *ra = files_resolve(a), *rb = files_resolve(b);
    int o = ra && rb && (under(ra, rb) || under(rb, ra));
    free(ra);
    free(rb);
    return o;
}

int files_dir_replaceable(const char *dir, const char *marker)
{
    struct stat st;
    if (lstat(dir, &st)) return errno == ENOENT ? 1 : -1;
    if (!S_ISDIR(st.st_mode)) return 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    int entries = 0, marked = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        entries++;
        if (!strcmp(e->d_name, marker)) {
            struct stat ms;
            marked = fstatat(dirfd(d), marker, &ms, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(ms.st_mode);
        }
    }
    closedir(d);
    return entries == 0 || marked;
}

/* ---- comparing trees --------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file under root (relative paths), links not followed. */
static int list_tree(const char *root, const char *rel, char ***out, size_t *n, size_t *cap)
{
    char *dir = rel[0] ? cat("%s/%s", root, rel) : strdup(root);
    if (!dir) return -1;
    DIR *d = opendir(dir);
    free(dir);
    if (!d) return errno == ENOENT && !rel[0] ? 0 : -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) && rc == 0) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *r = rel[0] ? cat("%s/%s", rel, e->d_name) : strdup(e->d_name);
        struct stat st;
        if (!r || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            rc = list_tree(root, r, out, n, cap);
        } else {
            if (*n == *cap) {
                size_t nc = *cap ? 2 * *cap : 64;
                char **p = realloc(*out, nc * sizeof *p);
                if (!p) {
                    free(r);
                    rc = -1;
                    break;
                }
                *out = p;
                *cap = nc;
            }
            (*out)[(*n)++] = r;
            r = NULL;
        }
        free(r);
    }
    closedir(d);
    return rc;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++) free(l[i]);
    free(l);
}

/* prefix, dir/name as text (text_check's refusals as '?'), suffix */
static void put_path(FILE *f, const char *prefix, const char *dir, const char *name, const char *suffix)
{
    fputs(prefix, f);
    text_put(f, dir, TEXT_TERMINAL);
    fputc('/', f);
    text_put(f, name, TEXT_TERMINAL);
    fputs(suffix, f);
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
    if (na) qsort(a, na, sizeof *a, cmp_str);
    if (nb) qsort(b, nb, sizeof *b, cmp_str);
    long diffs = 0;
    size_t i = 0, j = 0;
    /* every name as text: a stray file's name is anyone's (no terminal escape, no line
     * break that would start a line of its own in a CI log) */
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i], b[j]);
        if (c < 0) {
            put_path(f, "  missing: ", have, a[i++], "\n");
            diffs++;
        } else if (c > 0) {
            put_path(f, "  not generated (stale or hand-written): ", have, b[j++], "\n");
            diffs++;
        } else {
            char *pa = cat("%s/%s", want, a[i]), *pb = cat("%s/%s", have, b[j]);
            size_t la = 0, lb = 0;
            char why[FILES_SHOWN + 128] = "";
            char *xa = pa ? files_read(pa, &la) : NULL;
            char *xb = pb ? files_read_input(pb, FILES_READ_MAX, &lb, why, sizeof why) : NULL;
            if (!xb && why[0]) {
                /* the input rule's reason, after its path: a FIFO, a device, too large */
                const char *r = strstr(why, ": ");
                put_path(f, "  differs: ", have, b[j], " (");
                text_put(f, r ? r + 2 : why, TEXT_TERMINAL);
                fputs(")\n", f);
                diffs++;
            } else if (!xa || !xb || la != lb || memcmp(xa, xb, la) != 0) {
                size_t k = 0, line = 1;
                while (xa && xb && k < la && k < lb && xa[k] == xb[k]) line += xa[k++] == '\n';
                put_path(f, "  differs: ", have, b[j], "");
                fprintf(f, " (first difference at line %zu)\n", line);
                diffs++;
            }
            free(xa);
            free(xb);
            free(pa);
            free(pb);
            i++;
            j++;
        }
    }
    free_list(a, na);
    free_list(b, nb);
    return diffs;
}

/* ---- writing --------------------------------------------------------------------------- */

int files_disk_full(const char *path)
{
    struct statvfs v;
    return statvfs(path, &v) == 0 && v.f_bavail == 0;
}

int files_close_errno(FILE *f, const char *path)
{
    int e = 0;
    if (fflush(f) != 0) e = errno;
    else if (ferror(f)) e = files_disk_full(path) ? ENOSPC : EIO;   /* an earlier write's */
    if (fclose(f) != 0 && !e) e = errno;
    return e;
}

int files_write(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "attnladder: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    /* write(2) rather than stdio: a full disk is seen at the write or at close, each with
     * its errno, and the descriptor is closed exactly once */
    size_t done = 0;
    int e = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            e = w < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    if (close(fd) != 0 && !e) e = errno;
    if (e) {
        fprintf(stderr, "attnladder: cannot write %s: %s\n", path, strerror(e));
        return -1;
    }
    return 0;
}

int files_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base) {
        snprintf(err, errlen, "%s: no file name", path);
        return -1;
    }
    char *dir = slash == path ? strdup("/") : slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    /* hidden, in the target's directory: the rename stays on one file system and a
     * reader listing the directory never sees the half-written file */
    char *tmp = dir ? cat("%s/.%s.XXXXXX", dir, base) : NULL;
    int fd = tmp ? mkstemp(tmp) : -1;
    char shown[FILES_SHOWN];
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a temporary file in %s: %s", files_shown(dir ? dir : path, shown),
                 tmp ? strerror(errno) : "out of memory");
        free(dir);
        free(tmp);
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
        snprintf(err, errlen, "%s %s: %s", what, files_shown(where, shown), strerror(errno));
        unlink(tmp);
        free(dir);
        free(tmp);
        return -1;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);   /* make the rename itself durable */
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(dir);
    free(tmp);
    return 0;
}

int files_output_file(const char *opt, const char *path_in, const char *const *inputs, size_t n,
                      char *err, size_t errlen)
{
    char shown[FILES_SHOWN], shown_input[FILES_SHOWN];
    const char *path = files_shown(path_in, shown);
    if (!path[0]) {
        snprintf(err, errlen, "%s '': give a file name", opt);
        return -1;
    }
    struct stat st;
    if (lstat(path_in, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s '%s': %s; it is replaced whole, so give a new file or a regular one",
                 opt, path, S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory"
                 : "not a regular file (a device, FIFO or socket)");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (inputs[i] && inputs[i][0] && files_overlap(path_in, inputs[i])) {
            snprintf(err, errlen, "%s '%s' is the input '%s' or lies inside it: writing it would "
                     "replace or add to what is read", opt, path, files_shown(inputs[i], shown_input));
            return -1;
        }
    return 0;
}

int files_output_folder(const char *opt, const char *path_in, char *err, size_t errlen)
{
    char shown[FILES_SHOWN], shown_dir[FILES_SHOWN];
    const char *slash = strrchr(path_in, '/');
    char *dir = slash ? strndup(path_in, slash == path_in ? 1 : (size_t)(slash - path_in)) : strdup(".");
    if (!dir) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct stat st;
    const char *why = stat(dir, &st) ? strerror(errno) : !S_ISDIR(st.st_mode) ? "not a directory"
                    : access(dir, W_OK | X_OK) ? strerror(errno) : NULL;
    if (why)
        snprintf(err, errlen, "%s '%s': cannot write it: its folder '%s': %s", opt, files_shown(path_in, shown),
                 files_shown(dir, shown_dir), why);
    free(dir);
    return why ? -1 : 0;
}
