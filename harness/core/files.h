/* core/files.h: the file system for every writer of a tree (the report): a fresh directory next to
 * the target, the swap that puts a finished report in place (never a half-written one),
 * and the comparison of two trees for `report --check`. */
#ifndef ATTNLADDER_CORE_FILES_H
#define ATTNLADDER_CORE_FILES_H
#include <stddef.h>
#include <stdio.h>

/* mkdir -p; 0 or -1 (errno set). */
int files_mkdirs(const char *dir);
/* rm -r of a tree this program made; 0 or -1. */
int files_remove_tree(const char *dir);
/* A new empty directory "<target>.tmp.XXXXXX" beside target (same file system, so
 * rename works). 0 or -1 with err. */
int files_temp_beside(const char *target, char *out, size_t len, char *err, size_t errlen);
/* Replaces target by the finished directory `fresh`: target is renamed aside, fresh
 * renamed into place, the old tree removed; on failure target is restored. */
int files_swap_into_place(const char *fresh, const char *target, char *err, size_t errlen);
/* Compares two trees byte for byte; prints each difference (missing, extra, differing
 * file) to f with paths relative to the trees. Returns the number of differences, -1
 * when a tree cannot be read. */
long files_diff_trees(const char *want, const char *have, FILE *f);
/* The whole of a file; NULL on failure. *len gets its size. */
char *files_read(const char *path, size_t *len);

/* Writes text to path through a hidden temporary file in its directory, fsync and
 * rename(2), then syncs the directory: a reader never sees a half-written file and a
 * failure leaves any old file whole. The one atomic writer (evidence, compare's table).
 * 0, or -1 with err naming the step and the file. */
int files_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen);
/* Writes text to path, creating or truncating it; -1 after printing why. */
int files_write(const char *path, const char *text, size_t len);

#endif
