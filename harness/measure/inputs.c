/* measure/inputs.c: q, k and v each from their own generator, seeded from one master stream
 * of the run's seed, so changing one tensor's size never shifts another's values. */
#include "measure/inputs.h"

#include <stdlib.h>
#include "core/half.h"
#include "core/rng.h"

size_t inputs_q_elems(const attn_shape *s)
{
    return (size_t)s->batch * (size_t)s->heads * (size_t)s->seq_q * (size_t)s->head_dim;
}

size_t inputs_kv_elems(const attn_shape *s)
{
    return (size_t)s->batch * (size_t)s->heads * (size_t)s->seq_kv * (size_t)s->head_dim;
}

/* A 24-bit uniform in [-1, 1) is exact in float, so the only rounding is the one to
 * fp16. Values that round to 0 or up to 1.0 (times the element's factor) are drawn
 * again: the elements stay inside the distribution's range and none is zero (a zero
 * hides a kernel that skips an element). */
static uint16_t draw(rng_state *r, float factor)
{
    uint16_t h;
    do {
        int32_t m = (int32_t)(rng_next(r) >> 40) - (1 << 23);
        h = half_from_float((float)m * 0x1.0p-23f * factor);
    } while ((h & 0x7fffu) == 0 || h == half_from_float(factor));
    return h;
}

static void fill(uint16_t *x, size_t n, uint64_t seed)
{
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) x[i] = draw(&r, 1.0f);
}

/* Peaked: key j of every head scaled by 0.1 + 7.9 (j / (Skv - 1))^2. Late keys score up to
 * 8x higher than early ones, so a row's running maximum keeps rising to its last key
 * tile and every rescale of the accumulator with a finite old maximum is exercised. */
static void fill_ramped_keys(uint16_t *x, const attn_shape *s, uint64_t seed)
{
    rng_state r;
    rng_seed(&r, seed);
    size_t rows = (size_t)s->batch * s->heads * s->seq_kv, d = (size_t)s->head_dim;
    for (size_t row = 0; row < rows; row++) {
        double t = s->seq_kv > 1 ? (double)(row % (size_t)s->seq_kv) / (s->seq_kv - 1) : 1.0;
        float factor = (float)(0.1 + 7.9 * t * t);
        for (size_t c = 0; c < d; c++) x[row * d + c] = draw(&r, factor);
    }
}

/* Outliers: uniform, except one element in 256 whose magnitude is drawn from [8, 32]:
 * single scores far above the rest of their row, the case where a kernel that
 * subtracts a stale maximum overflows exp. */
static void fill_outliers(uint16_t *x, size_t n, uint64_t seed)
{
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        x[i] = draw(&r, 1.0f);
        if (rng_below(&r, 256) == 0) {
            float mag = 8.0f + 24.0f * (float)rng_uniform(&r);
            x[i] = half_from_float((x[i] & 0x8000u) ? -mag : mag);
        }
    }
}

int inputs_generate(host_inputs *in, const attn_shape *s, uint64_t seed, input_dist dist)
{
    in->nq = inputs_q_elems(s);
    in->nkv = inputs_kv_elems(s);
    in->q = malloc((in->nq ? in->nq : 1) * sizeof *in->q);
    in->k = malloc((in->nkv ? in->nkv : 1) * sizeof *in->k);
    in->v = malloc((in->nkv ? in->nkv : 1) * sizeof *in->v);
    if (!in->q || !in->k || !in->v) {
        inputs_free(in);
        return -1;
    }
    rng_state master;
    rng_seed(&master, seed);
    uint64_t sq = rng_next(&master), sk = rng_next(&master), sv = rng_next(&master);
    switch (dist) {
    case DIST_PEAKED:
        fill(in->q, in->nq, sq);
        fill_ramped_keys(in->k, s, sk);
        break;
    case DIST_OUTLIERS:
        fill_outliers(in->q, in->nq, sq);
        fill_outliers(in->k, in->nkv, sk);
        break;
    default:
        fill(in->q, in->nq, sq);
        fill(in->k, in->nkv, sk);
        break;
    }
    fill(in->v, in->nkv, sv);   /* V stays in [-1, 1): O keeps the fp16 error bounds' scale */
    return 0;
}

void inputs_free(host_inputs *in)
{
    free(in->q);
    free(in->k);
    free(in->v);
    in->q = in->k = in->v = NULL;
    in->nq = in->nkv = 0;
}
