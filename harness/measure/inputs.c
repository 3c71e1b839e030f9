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
 * fp16. Values that round to 0 or up to 1.0 are drawn again: the elements stay inside
 * [-1, 1) and none is zero (a zero hides a kernel that skips an element). */
static void fill(uint16_t *x, size_t n, uint64_t seed)
{
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        do {
            int32_t m = (int32_t)(rng_next(&r) >> 40) - (1 << 23);
            h = half_from_float((float)m * 0x1.0p-23f);
        } while ((h & 0x7fffu) == 0 || h == 0x3c00u);
        x[i] = h;
    }
}

int inputs_generate(host_inputs *in, const attn_shape *s, uint64_t seed)
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
    fill(in->q, in->nq, sq);
    fill(in->k, in->nkv, sk);
    fill(in->v, in->nkv, sv);
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
