/* core/gz_read.h: a gzip-compressed input file (a large run is committed as
 * <stamp>_<commit>.json.gz, evidence/README.md), read whole and inflated in memory. The
 * decompressed text is held to the same limit as a plain file of its kind, so that a small
 * file that inflates without end (a gzip bomb) is refused before it takes the memory. */
#ifndef ATTNLADDER_CORE_GZ_READ_H
#define ATTNLADDER_CORE_GZ_READ_H
#include <stddef.h>

/* 1 when path ends in ".gz": the one way the harness tells a compressed file from a
 * plain one (by name, as the tools that write them do). */
int gz_is_named(const char *path);

/* The file read by the input rule (files_read_input: a regular file of at most max bytes)
 * and inflated: exactly one gzip stream, its CRC and length checked, nothing after it, at
 * most max bytes once decompressed. Its text, NUL-terminated, and *len; or NULL with err
 * naming the file and what is wrong (not gzip, truncated, corrupt, bytes after the stream,
 * more than max bytes decompressed). */
char *gz_read_input(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
