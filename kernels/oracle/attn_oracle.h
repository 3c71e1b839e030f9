/* attn_oracle.h: the CPU fp64 oracle every implementation is checked against.
 *
 * O = softmax(scale * Q K^T [+ causal mask]) V computed in double from the same fp16
 * inputs the GPU sees (BHSD, contiguous). Causal is bottom-right aligned: query row i
 * sees key j when j <= i + (seq_kv - seq_q); a row that sees no key is all zeros. */
#ifndef ATTNLADDER_REFERENCE_H
#define ATTNLADDER_REFERENCE_H
#include <stddef.h>
#include <stdint.h>
#include "attn_phase.h"

/* A row is a flat query index: ((b * heads) + h) * seq_q + i. */
size_t oracle_total_rows(const attn_shape *s);

/* Floating-point operations of the reference for nrows rows (used to decide between
 * the full reference and a sample of rows). */
double oracle_row_flops(const attn_shape *s, size_t nrows);

/* Computes the given rows into out[r * head_dim + d] (double). rows == NULL means all
 * rows in order. Splits the rows over nthreads POSIX threads (nthreads <= 0: one per
 * online CPU). Returns 0, or -1 on bad arguments or allocation failure. */
int oracle_attention_rows(const attn_shape *s, const uint16_t *q, const uint16_t *k,
                       const uint16_t *v, const size_t *rows, size_t nrows,
                       double *out, int nthreads);

/* The rows checked on a shape too large for the full reference: a deterministic sample
 * of at most nwant distinct rows, sorted ascending. Whole heads, as many as the budget
 * holds (ref_sample_head_rows each), spread over the (batch, head) range in equal strata;
 * in each, the first and last query row and one row drawn in every REF_SAMPLE_TILE-row
 * tile, so every query tile of every sampled head is checked. All rows when nwant >= the
 * total; with a budget below one head, the first nwant rows of one head's set.
 * Returns the count written. */
#define REF_SAMPLE_TILE 64
size_t oracle_sample_rows(const attn_shape *s, size_t nwant, uint64_t seed, size_t *rows);
/* The rows one sampled head brings for a given seq_q. */
size_t ref_sample_head_rows(size_t seq_q);

#endif
