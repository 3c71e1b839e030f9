/* core/memo.h: results of a deterministic computation kept for the rest of the process,
 * keyed by every byte of its inputs and compared exactly, so an answer from the memo is
 * the one the computation gives. For costly results asked for again in one process: a
 * report reads the same ratio's bootstrap CI in several tables and plots, a gate in the
 * ladder and the drift check. Thread-safe. */
#ifndef ATTNLADDER_MEMO_H
#define ATTNLADDER_MEMO_H
#include <stddef.h>

/* One piece of the inputs: the key is the pieces in order, their lengths included. */
typedef struct {
    const void *p;
    size_t n;
} memo_part;

/* 1 and out (out_len bytes) filled when the same key was put with a result of that
 * length, else 0. */
int memo_get(const memo_part *key, size_t parts, void *out, size_t out_len);

/* Keeps out for the key, unless the memo is full (a bounded number of keys and bytes:
 * a miss then costs the computation, never a wrong answer). */
void memo_put(const memo_part *key, size_t parts, const void *out, size_t out_len);

#endif
