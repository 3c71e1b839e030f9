/* core/gz_read.c: a gzip-compressed input file, inflated in memory (gz_read.h). */
#include "core/gz_read.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "core/files.h"

int gz_is_named(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* zlib counts in uInt: a chunk of a larger buffer at a time */
static uInt chunk(size_t n)
{
    return n > UINT_MAX ? UINT_MAX : (uInt)n;
}

/* Longer than a harness function should be, on purpose: the inflate loop, the buffer's
 * growth and the bomb limit share one stream, one buffer and one count, and every refusal
 * names the same file; split, the limit's arithmetic would be spread over helpers that
 * each need all of them. */
char *gz_read_input(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    size_t in_len = 0;
    unsigned char *in = (unsigned char *)files_read_input(path, max, &in_len, err, errlen);
    if (!in) return NULL;
    char shown[FILES_SHOWN];
    path = files_shown(path, shown);   /* as every message shows a path: never cut off */
    char *out = NULL;
    int ok = 0, init = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    /* the magic first: a plain file named .gz is told as such, not as zlib's
     * "incorrect header check" */
    if (in_len < 2 || in[0] != 0x1f || in[1] != 0x8b) {
        snprintf(err, errlen, "%s: not gzip-compressed (no gzip header), though its name ends in .gz", path);
        goto done;
    }
    /* 16 + MAX_WBITS: a gzip wrapper and nothing else (no zlib or raw deflate stream) */
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        snprintf(err, errlen, "%s: out of memory starting to decompress it", path);
        goto done;
    }
    init = 1;
    /* One byte past max tells a file of more than max bytes from one of exactly max. The
     * buffer starts near four times the compressed size (runs compress about nine times)
     * and doubles, never past that byte, so a bomb costs at most max + 2 bytes. */
    const size_t limit = max + 1;
    size_t cap = 1u << 16, n = 0, fed = 0;
    while (cap < limit && cap / 4 < in_len) cap *= 2;
    if (cap > limit) cap = limit;
    out = malloc(cap + 1);
    if (!out) {
        snprintf(err, errlen, "%s: out of memory decompressing it", path);
        goto done;
    }
    for (;;) {
        if (z.avail_in == 0 && fed < in_len) {
            z.next_in = in + fed;
            z.avail_in = chunk(in_len - fed);
            fed += z.avail_in;
        }
        if (n == cap) {
            if (cap == limit) {
                snprintf(err, errlen, "%s: decompresses to more than %zu bytes, the most such a file may "
                         "hold (a gzip bomb, or not a file of this kind)", path, max);
                goto done;
            }
            size_t grown = cap > limit / 2 ? limit : 2 * cap;
            char *bigger = realloc(out, grown + 1);
            if (!bigger) {
                snprintf(err, errlen, "%s: out of memory decompressing it (%zu bytes so far)", path, n);
                goto done;
            }
            out = bigger;
            cap = grown;
        }
        uInt room = chunk(cap - n);
        z.next_out = (Bytef *)out + n;
        z.avail_out = room;
        int rc = inflate(&z, Z_NO_FLUSH);
        n += room - z.avail_out;
        if (rc == Z_STREAM_END) break;
        if (rc == Z_OK || (rc == Z_BUF_ERROR && z.avail_out == 0)) continue;
        if (rc == Z_BUF_ERROR)   /* no output room wanted and no input left: cut short */
            snprintf(err, errlen, "%s: truncated gzip data: its %zu bytes end before the stream does "
                     "(%zu bytes decompressed)", path, in_len, n);
        else if (rc == Z_MEM_ERROR)
            snprintf(err, errlen, "%s: out of memory decompressing it", path);
        else
            snprintf(err, errlen, "%s: corrupt gzip data at byte %zu of %zu (%s)", path,
                     fed - (size_t)z.avail_in, in_len, z.msg ? z.msg : "no message");
        goto done;
    }
    if (n > max) {
        snprintf(err, errlen, "%s: decompresses to more than %zu bytes, the most such a file may "
                 "hold (a gzip bomb, or not a file of this kind)", path, max);
        goto done;
    }
    /* a second member or anything else after the stream: one run is one stream, and bytes
     * that no reader reads must not ride along in the store */
    size_t after = (size_t)z.avail_in + (in_len - fed);
    if (after) {
        snprintf(err, errlen, "%s: %zu bytes after the end of its gzip stream (a file holds one stream "
                 "and nothing after it)", path, after);
        goto done;
    }
    out[n] = '\0';
    *len = n;
    ok = 1;
done:
    if (init) inflateEnd(&z);
    free(in);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}
