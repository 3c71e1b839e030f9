/* measure/inputs.h: seeded random fp16 inputs of a named distribution (core/shapes.h:
 * uniform in [-1, 1), peaked, outliers), never zeros by design. */
#ifndef ATTNLADDER_INPUTS_H
#define ATTNLADDER_INPUTS_H
#include <stddef.h>
#include <stdint.h>
#include "attn_phase.h"
#include "core/shapes.h"
#include "measure/l2_copies.h"

typedef struct {
    uint16_t *q, *k, *v;      /* host fp16 bits, BHSD */
    size_t nq, nkv;           /* elements of q (and o), of k (== of v) */
} host_inputs;

size_t inputs_q_elems(const attn_shape *s);    /* B*H*Sq*D */
size_t inputs_kv_elems(const attn_shape *s);   /* B*H*Skv*D */
/* Elements drawn from one generator: a tensor is drawn in chunks of this many elements,
 * chunk 0 from the tensor's own stream (so every tensor up to this size gets the values
 * it always had) and chunk c from a stream seeded from that stream's seed and c, so the
 * chunks of the sweep's large tensors are drawn on several threads and the bits do not
 * depend on how many. */
#define INPUTS_CHUNK_ELEMS ((size_t)1 << 22)

/* 0, or -1 on allocation failure; q, k, v use independent streams of one seed, so the
 * uniform distribution gives the same values as it always has (up to one chunk). Uses
 * one thread per online CPU. */
int inputs_generate(host_inputs *in, const attn_shape *s, uint64_t seed, input_dist dist);
/* The same bits on nthreads threads (<= 0: one per online CPU). */
int inputs_generate_threads(host_inputs *in, const attn_shape *s, uint64_t seed, input_dist dist,
                            int nthreads);
void inputs_free(host_inputs *in);

/* The inputs copied to the device buffers q, k and v (nq, nkv and nkv fp16 elements): the
 * one upload of every point and A/B comparison. 0, or -1 with err naming the failing call. */
int inputs_upload(const host_inputs *in, void *q, void *k, void *v, char *err, size_t errlen);
/* Copies 1 to lay->copies - 1 of the uploaded inputs (copy 0, at q, k and v) written
 * after it, identical bits (measure/l2_copies.h: the point's cold inputs). NULL or one
 * copy: nothing to do. 0, or -1 with err. */
int inputs_replicate(void *q, void *k, void *v, const l2_layout *lay, char *err, size_t errlen);

#endif
