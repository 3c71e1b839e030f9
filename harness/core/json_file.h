/* core/json_file.h: a JSON file read with jansson, its failure named the one way every
 * reader names it (the file, and the line and column of a truncated or corrupt one). */
#ifndef ATTNLADDER_CORE_JSON_FILE_H
#define ATTNLADDER_CORE_JSON_FILE_H
#include <stddef.h>
#include <jansson.h>

/* The file read by the input rule (files_read_input: a regular file of at most max_bytes;
 * a directory or FIFO is named as one, not read) and parsed; duplicate keys make it
 * corrupt. A name ending in .gz is decompressed first (gz_read_input), max_bytes then
 * holding its decompressed text too. NULL with err on failure. */
json_t *json_file_load(const char *path, size_t max_bytes, char *err, size_t errlen);

/* Formats "<path>: <what>" into err and returns -1: how a reader of a JSON file names the
 * file and the field it refuses. */
int json_file_fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
