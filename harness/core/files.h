/* core/files.h: the file system for every writer of a tree (the report): a fresh directory next to
 * the target, the swap that puts a finished report in place (never a half-written one),
 * and the comparison of two trees for `report --check` (names printed as text); and the two rules every command
 * follows for paths given to it: what may be read as an input file (files_read_input;
 * files_input_ok checks it without reading) and what may be written or replaced as an
 * output (files_output_file, files_output_folder, files_dir_replaceable, files_overlap). */
#ifndef ATTNLADDER_CORE_FILES_H
#define ATTNLADDER_CORE_FILES_H
#include <stddef.h>
#include <stdio.h>

/* mkdir -p; 0 or -1 (errno set). */
int files_mkdirs(const char *dir);
/* rm -r of a tree this program made; 0 or -1. Never follows a symbolic link: a link
 * (dir itself or inside it) is removed as a link. */
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
/* The whole of a file this program wrote, or that report --check compares; NULL on
 * failure. *len gets its size. It follows the input rule (files_read_input, at most
 * FILES_READ_MAX bytes): a FIFO, device, directory or socket in its place is refused
 * without waiting on it, and a link to /dev/zero is not read until memory runs out. */
#define FILES_READ_MAX ((size_t)256 << 20)
char *files_read(const char *path, size_t *len);

/* path as a message shows it: whole when short, else its first and last characters
 * around "...", so that the reason after it is never cut off (FILES_SHOWN bytes). */
#define FILES_SHOWN 240
const char *files_shown(const char *path, char buf[FILES_SHOWN]);

/* The one rule for a file given to a command to read (evidence, a config, accepted.txt,
 * a README): a regular file (a directory, FIFO, device or socket is refused without
 * waiting on it) of at most max bytes. Its whole text, NUL-terminated, and *len; or NULL
 * and err naming the path and why ("PATH: a directory, not a regular file"). */
char *files_read_input(const char *path, size_t max, size_t *len, char *err, size_t errlen);
/* The same rule checked without reading (opened and closed): for a command to refuse a bad
 * argument before it reads anything large. 0, or -1 with err naming opt ("" for none) and
 * the path as files_read_input does. */
int files_input_ok(const char *opt, const char *path, size_t max, char *err, size_t errlen);

/* Where path leads: absolute, symbolic links followed for the part that exists, "." and
 * ".." folded for the rest. malloc'd; NULL for "" or when out of memory. */
char *files_resolve(const char *path);
/* 1 when a and b (resolved) are the same path or one lies inside the other: writing one
 * would write into, or replace, the other. */
int files_overlap(const char *a, const char *b);
/* Whether a command may replace the directory dir whole: 1 when it does not exist, is an
 * empty directory, or holds the regular file `marker` (the command's own output); 0 for
 * anything else (someone's files, a link, a file); -1 when it cannot be read. */
int files_dir_replaceable(const char *dir, const char *marker);
/* The rule for an output file (compare --out, gate --json): not "", nothing but a regular
 * file where it exists (not a link, device, FIFO or directory), and none of the n inputs
 * (NULL or "" entries skipped) nor inside one of them. 0, or -1 with err naming opt. */
int files_output_file(const char *opt, const char *path, const char *const *inputs, size_t n,
                      char *err, size_t errlen);

/* Whether a file at path can be made: its folder is there, a directory, and writable (a
 * command checks it before its work, not after). 0, or -1 with err naming opt, the path,
 * its folder and why ("cannot write it"). */
int files_output_folder(const char *opt, const char *path, char *err, size_t errlen);

/* Writes text to path through a hidden temporary file in its directory, fsync and
 * rename(2), then syncs the directory: a reader never sees a half-written file and a
 * failure leaves any old file whole. The one atomic writer (evidence, compare's table).
 * 0, or -1 with err naming the step and the file. */
int files_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen);
/* Writes text to path, creating or truncating it; -1 after printing why. */
int files_write(const char *path, const char *text, size_t len);

/* Whether the file system holding path has no block left for an unprivileged writer
 * (statvfs): a child that wrote nothing, or a stream whose error lost its errno, is then
 * said to have met a full disk. */
int files_disk_full(const char *path);

/* Closes f (opened for writing): 0, or the errno of the first failure (the flush, an
 * earlier write, the close), ENOSPC when the disk is full and the errno was lost. */
int files_close_errno(FILE *f, const char *path);

#endif
