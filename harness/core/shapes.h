/* core/shapes.h: the shapes a run measures: parsing, validation, the standard sets, and
 * the work each shape implies (FLOPs, compulsory bytes). */
#ifndef ATTNLADDER_SHAPES_H
#define ATTNLADDER_SHAPES_H
#include <stddef.h>
#include "attn_phase.h"

typedef struct {
    attn_shape s;
    const char *tag;        /* "headline", "sweep", "ragged", "custom" */
} shape_point;

/* "B,H,S,D[,causal]" or "B,H,Sq,Skv,D,causal"; scale = 1/sqrt(D).
 * 0, or -1 with err naming the problem and the accepted form/values. */
int shape_parse(const char *text, attn_shape *out, char *err, size_t errlen);

/* Sanity of one shape: every dimension >= 1, causal 0/1, and each tensor's element
 * count within 32-bit indexing (kernels may index with int). */
int shape_validate(const attn_shape *s, char *err, size_t errlen);

/* The headline shapes (1x8x512x64, non-causal and causal): returns the count. */
size_t shapes_headline(shape_point *out, size_t cap);
/* The standard sweep: S in {128..16384} x D {64,128} x causal {0,1}, B = 16384/S,
 * H = 2048/D, then the ragged and seq_q != seq_kv points. Returns the count. */
size_t shapes_sweep(shape_point *out, size_t cap);

double shape_flops(const attn_shape *s);   /* 4*B*H*Sq*Skv*D, halved for causal */
double shape_bytes(const attn_shape *s);   /* Q, K, V read once, O written once (fp16) */
void shape_format(const attn_shape *s, char *buf, size_t len);   /* "1x8x512x64 causal" */

#endif
