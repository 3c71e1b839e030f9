/* core/shapes.h: the shapes a run measures: parsing, validation, the standard sets, and
 * the work each shape implies (FLOPs, compulsory bytes). */
#ifndef ATTNLADDER_SHAPES_H
#define ATTNLADDER_SHAPES_H
#include <stddef.h>
#include "attn_phase.h"

/* The input distributions a run draws (measure/inputs.c says how). Every point is timed
 * on uniform inputs; the others are correctness checks at chosen points. */
typedef enum {
    DIST_UNIFORM = 0,    /* uniform in [-1, 1): scores with sd ~1/3 */
    DIST_PEAKED,         /* K rows scaled by a ramp along the keys: the running maximum of
                            every row keeps rising until its last keys */
    DIST_OUTLIERS,       /* uniform, with rare large elements in Q and K */
    DIST_COUNT
} input_dist;

const char *input_dist_name(input_dist d);   /* "uniform", "peaked", "outliers" */

typedef struct {
    attn_shape s;
    const char *tag;        /* "headline", "sweep", "ragged", "decode", "single_head",
                               "custom" */
    unsigned extra_inputs;  /* bit d: also check correctness on input_dist d */
} shape_point;

/* "B,H,S,D[,causal]" or "B,H,Sq,Skv,D,causal"; scale = 1/sqrt(D).
 * 0, or -1 with err naming the problem and the accepted form/values. */
/* TEXT as a message quotes it: whole in quotes when short; else its first and last
 * characters around "..." and its length, so that the reason after it is never cut off;
 * characters that act on a terminal as '?'. */
#define SHAPE_SHOWN 160
const char *shape_quoted(const char *text, char buf[SHAPE_SHOWN]);

int shape_parse(const char *text, attn_shape *out, char *err, size_t errlen);

/* Sanity of one shape: every dimension >= 1, causal 0/1, and each tensor's element
 * count within 32-bit indexing (kernels may index with int). */
int shape_validate(const attn_shape *s, char *err, size_t errlen);

/* The headline shapes (1x8x512x64, non-causal and causal), each also checked on the
 * peaked and outlier inputs: returns the count. */
size_t shapes_headline(shape_point *out, size_t cap);
/* The standard sweep: S in {128..16384} x D {64,128} x causal {0,1}, B = 16384/S,
 * H = 2048/D, then the ragged and seq_q != seq_kv points (among them 1x8x300x129 causal,
 * whose first rows see no key), then the inference regimes: "decode" (1, 4 or 16 queries
 * against 1k-64k keys at 8 and 32 heads) and "single_head" (1x1x16384x128), then batched
 * decode, also "decode" (batch 4-32, 8 and 32 heads, 1 to 16 queries, 1k-16k keys); the small
 * ones also checked on the peaked and outlier inputs. Returns the count. */
size_t shapes_sweep(shape_point *out, size_t cap);

/* Whether a and b are one shape: dimensions and causality (not the scale). */
int shape_same(const attn_shape *a, const attn_shape *b);

/* The neighbours of base[0..nb): each shape with its query rows, its keys or its batch
 * doubled or halved, in that order, base by base; each once, none a base shape, each valid
 * (shape_validate) and of no more work (shape_flops) than the largest base shape; tagged
 * "probe". Returns the count, writing at most cap. */
size_t shapes_neighbours(const shape_point *base, size_t nb, shape_point *out, size_t cap);

/* The rule probes, for the A/B gate only (never timed by `run`): the neighbours of the
 * standard sweep, where a rung's shape rule can move between the sweep's points (a rule
 * widened from one query block of 128 keys to several changes no sweep point's choice). */
size_t shapes_rule_probes(shape_point *out, size_t cap);

/* 4*B*H*D per visible (query, key) pair: Sq*Skv pairs, or for causal (bottom-right
 * aligned: row i sees key j when j <= i + Skv - Sq) the pairs that mask leaves. */
double shape_flops(const attn_shape *s);
double shape_visible_pairs(const attn_shape *s);   /* per (batch, head) */
double shape_bytes(const attn_shape *s);   /* Q, K, V read once, O written once (fp16) */
void shape_format(const attn_shape *s, char *buf, size_t len);   /* "1x8x512x64 causal" */

#endif
