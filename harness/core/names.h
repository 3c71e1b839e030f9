/* core/names.h: the names the harness turns into file names: a GPU's slug (its evidence
 * directory) and the file name of a run (<yyyymmddThhmmssZ>...json). */
#ifndef ATTNLADDER_CORE_NAMES_H
#define ATTNLADDER_CORE_NAMES_H
#include <stddef.h>

/* The slug of a GPU name: lower case, each run of other characters one '-', none
 * leading or trailing; "unknown" for an empty one. */
void name_gpu_slug(const char *gpu_name, char *slug, size_t len);

/* 1 when name is a run file name: a safe name (name_is_safe) that starts with a UTC
 * stamp yyyymmddThhmmssZ and ends in .json or .json.gz (a run committed compressed);
 * *partial (when not NULL) says name_says_partial. */
int name_is_run_file(const char *name, int *partial);

/* 1 when a file name says its run was cut short: .partial.json or .partial.json.gz. */
int name_says_partial(const char *name);

/* The longest name that becomes a path component (a file name is at most 255 bytes;
 * suffixes such as "-latency-d128.svg" and ".md" are added to it). */
#define NAME_MAX_LEN 128

/* The one rule for a name read from evidence that becomes part of a path (a GPU slug,
 * a run or phase or implementation name, a plot name): 1 when it has 1..NAME_MAX_LEN
 * characters, each a letter, a digit, '-', '_' or '.', and does not start with '.'.
 * So it is one path component, never "..", never hidden, never a separator. */
int name_is_safe(const char *name);

/* The index of the first element of an array of structs whose name (a string pointer at
 * name_offset in each stride-byte element) is `name`, or n: the one lookup by name of the
 * readers (implementations of a run, bounds of the gate's config). */
size_t name_index(const void *array, size_t n, size_t stride, size_t name_offset, const char *name);

#endif
