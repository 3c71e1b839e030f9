/* core/shapes.c: shape parsing, validation and the standard shape sets. */
#include "core/shapes.h"
#include "core/text_safe.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SHAPE_FORMS[] =
    "accepted: B,H,S,D or B,H,S,D,causal or B,H,Sq,Skv,D,causal "
    "(positive integers, causal 0 or 1)";

const char *shape_quoted(const char *text, char buf[SHAPE_SHOWN])
{
    char safe[100];
    size_t len = strlen(text);
    if (len <= 64) {
        text_escape(safe, sizeof safe, text, TEXT_TERMINAL);
        snprintf(buf, SHAPE_SHOWN, "'%s'", safe);
    } else {
        char head[41], tail[21], h[SHAPE_SHOWN / 2], t[SHAPE_SHOWN / 2];
        snprintf(head, sizeof head, "%.40s", text);
        snprintf(tail, sizeof tail, "%s", text + len - 20);
        text_escape(h, sizeof h, head, TEXT_TERMINAL);
        text_escape(t, sizeof t, tail, TEXT_TERMINAL);
        snprintf(buf, SHAPE_SHOWN, "'%.50s...%.30s' (%zu characters)", h, t, len);
    }
    return buf;
}

int shape_parse(const char *text, attn_shape *out, char *err, size_t errlen)
{
    long v[6];
    int n = 0;
    const char *p = text;
    while (n < 6) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p) break;
        v[n++] = x;
        p = end;
        if (*p == ',') p++;
        else break;
    }
    size_t len = strlen(text);
    char shown[SHAPE_SHOWN];
    if (*p != '\0' || (n != 4 && n != 5 && n != 6) || (len && text[len - 1] == ',')) {
        snprintf(err, errlen, "shape %s is malformed; %s", shape_quoted(text, shown), SHAPE_FORMS);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (v[i] > INT_MAX || v[i] < INT_MIN) {
            snprintf(err, errlen, "shape %s: value %ld out of range; %s", shape_quoted(text, shown), v[i],
                     SHAPE_FORMS);
            return -1;
        }
    }
    memset(out, 0, sizeof *out);
    out->batch = (int)v[0];
    out->heads = (int)v[1];
    out->seq_q = (int)v[2];
    out->seq_kv = n == 6 ? (int)v[3] : (int)v[2];
    out->head_dim = n == 6 ? (int)v[4] : (int)v[3];
    out->causal = n == 6 ? (int)v[5] : n == 5 ? (int)v[4] : 0;
    out->scale = out->head_dim > 0 ? (float)(1.0 / sqrt((double)out->head_dim)) : 0.0f;
    return shape_validate(out, err, errlen);
}

int shape_validate(const attn_shape *s, char *err, size_t errlen)
{
    char buf[96];
    shape_format(s, buf, sizeof buf);
    if (s->batch < 1 || s->heads < 1) {
        snprintf(err, errlen, "shape %s: batch and heads must be >= 1", buf);
        return -1;
    }
    if (s->seq_q < 1 || s->seq_kv < 1) {
        snprintf(err, errlen, "shape %s: sequence lengths must be >= 1", buf);
        return -1;
    }
    if (s->head_dim < 1) {
        snprintf(err, errlen, "shape %s: head_dim must be >= 1 (the phases serve 64 and 128)", buf);
        return -1;
    }
    if (s->causal != 0 && s->causal != 1) {
        snprintf(err, errlen, "shape %s: causal must be 0 or 1", buf);
        return -1;
    }
    double rows = (double)s->batch * s->heads * (s->seq_q > s->seq_kv ? s->seq_q : s->seq_kv);
    if (rows * s->head_dim > (double)INT_MAX) {
        snprintf(err, errlen, "shape %s: %.0f elements per tensor overflow 32-bit indexing "
                 "(at most %d)", buf, rows * s->head_dim, INT_MAX);
        return -1;
    }
    return 0;
}

const char *input_dist_name(input_dist d)
{
    static const char *const names[DIST_COUNT] = { "uniform", "peaked", "outliers" };
    return d < DIST_COUNT ? names[d] : "unknown";
}

/* The distributions the small points are also checked on. */
#define EXTRA_INPUTS ((1u << DIST_PEAKED) | (1u << DIST_OUTLIERS))

static size_t put_checked(shape_point *out, size_t cap, size_t n, int b, int h, int sq, int skv,
                          int d, int causal, const char *tag, unsigned extra)
{
    if (n < cap) {
        attn_shape s = { b, h, sq, skv, d, causal, (float)(1.0 / sqrt((double)d)) };
        out[n].s = s;
        out[n].tag = tag;
        out[n].extra_inputs = extra;
    }
    return n + 1;
}

static size_t put(shape_point *out, size_t cap, size_t n, int b, int h, int sq, int skv,
                  int d, int causal, const char *tag)
{
    return put_checked(out, cap, n, b, h, sq, skv, d, causal, tag, 0);
}

size_t shapes_headline(shape_point *out, size_t cap)
{
    size_t n = 0;
    n = put_checked(out, cap, n, 1, 8, 512, 512, 64, 0, "headline", EXTRA_INPUTS);
    n = put_checked(out, cap, n, 1, 8, 512, 512, 64, 1, "headline", EXTRA_INPUTS);
    return n;
}

/* Batched decode: a serving engine's step, many requests each adding one token (or
 * verifying a few draft tokens) against its own KV cache. Unlike the points above, batch x
 * heads fills the GPU (32 to 1024 sequence-heads), so no kernel needs to split the keys,
 * and the time is K and V streamed once: what they show is GB/s against the copy ceiling
 * (issue 52: cuDNN reached about 95% of it at 8x32x1x4096x128, rung 11 about 89%). Eight
 * points span the regime: batch 4 to 32, 8 (GQA) and 32 heads, one query and 4 or 16,
 * 1k to 16k keys, D = 64 and 128. K and V are 67 MB to 537 MB: the smaller are timed on
 * copies past the L2, the larger are cold by size (measure/l2_copies.h). Each costs about
 * what a decode point above does (2-7 s of make run's session on an H100); none is
 * checked on the other inputs (the single-request points are, and the kernels' code paths
 * are the same), nor does any grow past 2^31 elements a tensor. */
static size_t shapes_batched_decode(shape_point *out, size_t cap, size_t n)
{
    n = put(out, cap, n, 4, 32, 1, 1024, 128, 0, "decode");     /* few requests, short contexts */
    n = put(out, cap, n, 8, 32, 1, 4096, 128, 0, "decode");     /* issue 52's shape: 256 heads */
    n = put(out, cap, n, 32, 32, 1, 1024, 64, 0, "decode");     /* many short requests, D = 64 */
    n = put(out, cap, n, 32, 8, 1, 2048, 128, 0, "decode");     /* many requests, GQA's 8 KV heads */
    n = put(out, cap, n, 16, 8, 1, 8192, 64, 0, "decode");
    n = put(out, cap, n, 4, 8, 1, 16384, 128, 0, "decode");     /* few requests, long contexts */
    /* speculative decoding, batched: 4 and 16 draft tokens, causal among themselves */
    n = put(out, cap, n, 8, 32, 4, 2048, 128, 1, "decode");
    n = put(out, cap, n, 16, 8, 16, 4096, 64, 1, "decode");
    return n;
}

/* Inference: too few (batch, head, query tile) tiles to fill the GPU, each reading a long
 * key range. The sweep's other points have at least 16 sequence-heads, or at most 1000
 * keys; these have 1 to 32 and up to 64k keys. Few, because each costs make run's GPU session
 * several seconds (rung 01 runs every point; a rung's timing stops at a quarter second
 * of GPU time), and that session is held to 8 minutes. Left out, though measured for
 * issue 41: batches of few heads (4x8x1x16384x128, 8x8x1x8192x64: enough tiles that the
 * rungs are within 1.5x), 1x64x1x2048x128 (between the 32 heads here and the sweep) and
 * 1x1x4096x128 (the rungs already ahead); `run --shape` measures any of them. The small
 * ones (K and V of at most 16M elements) are also checked on the peaked and outlier
 * inputs: the peaked inputs move each row's running maximum to its last keys, where a
 * kernel that splits the keys merges its pieces. */
static size_t shapes_inference(shape_point *out, size_t cap, size_t n)
{
    /* decode, one query: a token generated against its KV cache */
    n = put(out, cap, n, 1, 8, 1, 32768, 128, 0, "decode");    /* 8 KV heads (GQA), 32k context */
    n = put(out, cap, n, 1, 8, 1, 65536, 64, 0, "decode");     /* the longest context, D = 64 */
    n = put_checked(out, cap, n, 1, 32, 1, 4096, 128, 0, "decode", EXTRA_INPUTS);   /* 32 heads (MHA) */
    n = put_checked(out, cap, n, 1, 32, 1, 4096, 64, 0, "decode", EXTRA_INPUTS);    /* the same, D = 64 */
    /* a short context: launch-bound, where splitting the keys must cost nothing */
    n = put_checked(out, cap, n, 1, 8, 1, 1024, 128, 0, "decode", EXTRA_INPUTS);
    /* speculative decoding: a few draft tokens verified at once, causal among themselves */
    n = put(out, cap, n, 1, 8, 16, 32768, 128, 1, "decode");
    n = put_checked(out, cap, n, 1, 8, 4, 8192, 128, 1, "decode", EXTRA_INPUTS);
    /* one head, a long sequence: 128 query tiles, fewer than an H100's 132 SMs */
    n = put(out, cap, n, 1, 1, 16384, 16384, 128, 0, "single_head");
    return shapes_batched_decode(out, cap, n);
}

size_t shapes_sweep(shape_point *out, size_t cap)
{
    /* FlashAttention's benchmark convention: 16k tokens per batch and a model width of
     * 2048, so every point carries the same number of query rows times head_dim. */
    static const int seqs[] = { 128, 256, 512, 1024, 2048, 4096, 8192, 16384 };
    static const int dims[] = { 64, 128 };
    size_t n = 0;
    for (size_t di = 0; di < 2; di++)
        for (int causal = 0; causal <= 1; causal++)
            for (size_t si = 0; si < sizeof seqs / sizeof seqs[0]; si++)
                n = put(out, cap, n, 16384 / seqs[si], 2048 / dims[di], seqs[si], seqs[si],
                        dims[di], causal, "sweep");
    /* Ragged lengths (tails inside a tile) and seq_q != seq_kv (decode-like and odd). */
    for (size_t di = 0; di < 2; di++)
        for (int causal = 0; causal <= 1; causal++) {
            n = put_checked(out, cap, n, 2, 8, 77, 77, dims[di], causal, "ragged", EXTRA_INPUTS);
            n = put_checked(out, cap, n, 2, 8, 1000, 1000, dims[di], causal, "ragged", EXTRA_INPUTS);
            n = put(out, cap, n, 1, 8, 1, 300, dims[di], causal, "ragged");
            n = put_checked(out, cap, n, 1, 8, 129, 257, dims[di], causal, "ragged", EXTRA_INPUTS);
        }
    /* More queries than keys, causal: the first seq_q - seq_kv rows see no key and must
     * be zeros (the ABI's rule). */
    for (size_t di = 0; di < 2; di++)
        n = put_checked(out, cap, n, 1, 8, 300, 129, dims[di], 1, "ragged", EXTRA_INPUTS);
    return shapes_inference(out, cap, n);
}

int shape_same(const attn_shape *a, const attn_shape *b)
{
    return a->batch == b->batch && a->heads == b->heads && a->seq_q == b->seq_q && a->seq_kv == b->seq_kv &&
           a->head_dim == b->head_dim && a->causal == b->causal;
}

/* Whether s is one of pts[0..n). */
static int listed(const shape_point *pts, size_t n, const attn_shape *s)
{
    for (size_t i = 0; i < n; i++)
        if (shape_same(&pts[i].s, s)) return 1;
    return 0;
}

/* The k-th neighbour of b, k = 0..5: its rows, its keys, its batch, each doubled, then
 * halved (a dimension that would overflow is 0: no shape). */
static attn_shape neighbour(const attn_shape *b, int k)
{
    attn_shape p = *b;
    int *x = k < 2 ? &p.seq_q : k < 4 ? &p.seq_kv : &p.batch;
    *x = k % 2 ? *x / 2 : *x <= INT_MAX / 2 ? *x * 2 : 0;
    return p;
}

/* Whether an earlier neighbour (of base[0..i), or base[i]'s before the k-th) is p: the
 * same shape, so taken or refused already. */
static int seen_before(const shape_point *base, size_t i, int k, const attn_shape *p)
{
    for (size_t j = 0; j <= i; j++)
        for (int m = 0; m < (j < i ? 6 : k); m++) {
            attn_shape q = neighbour(&base[j].s, m);
            if (shape_same(&q, p)) return 1;
        }
    return 0;
}

size_t shapes_neighbours(const shape_point *base, size_t nb, shape_point *out, size_t cap)
{
    double most = 0;
    for (size_t i = 0; i < nb; i++)
        if (shape_flops(&base[i].s) > most) most = shape_flops(&base[i].s);
    size_t n = 0;
    for (size_t i = 0; i < nb; i++)
        for (int k = 0; k < 6; k++) {
            attn_shape p = neighbour(&base[i].s, k);
            char err[160];
            if (shape_validate(&p, err, sizeof err) || shape_flops(&p) > most || listed(base, nb, &p) ||
                seen_before(base, i, k, &p))
                continue;
            if (n < cap) {
                out[n].s = p;
                out[n].tag = "probe";
                out[n].extra_inputs = 0;
            }
            n++;
        }
    return n;
}

#define SWEEP_MAX 128

size_t shapes_rule_probes(shape_point *out, size_t cap)
{
    shape_point sweep[SWEEP_MAX];
    size_t ns = shapes_sweep(sweep, SWEEP_MAX);
    return shapes_neighbours(sweep, ns < SWEEP_MAX ? ns : SWEEP_MAX, out, cap);
}

double shape_visible_pairs(const attn_shape *s)
{
    double sq = s->seq_q, skv = s->seq_kv;
    if (!s->causal) return sq * skv;
    /* row i sees min(Skv, max(0, i + Skv - Sq + 1)) keys. With Sq <= Skv every row sees
     * Skv - Sq + 1 + i keys, an arithmetic series; with Sq > Skv the first Sq - Skv rows
     * see none and the rest 1, 2, ..., Skv. */
    if (sq <= skv) return sq * (2.0 * skv - sq + 1.0) / 2.0;
    return skv * (skv + 1.0) / 2.0;
}

double shape_flops(const attn_shape *s)
{
    return 4.0 * s->batch * s->heads * s->head_dim * shape_visible_pairs(s);
}

double shape_bytes(const attn_shape *s)
{
    double bh = (double)s->batch * s->heads * s->head_dim * 2.0;
    return bh * (2.0 * s->seq_q + 2.0 * s->seq_kv);
}

void shape_format(const attn_shape *s, char *buf, size_t len)
{
    if (s->seq_q == s->seq_kv)
        snprintf(buf, len, "%dx%dx%dx%d%s", s->batch, s->heads, s->seq_q, s->head_dim,
                 s->causal ? " causal" : "");
    else
        snprintf(buf, len, "%dx%dx%d:%dx%d%s", s->batch, s->heads, s->seq_q, s->seq_kv,
                 s->head_dim, s->causal ? " causal" : "");
}
