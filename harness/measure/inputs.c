/* measure/inputs.c: q, k and v each from their own generator, seeded from one master stream
 * of the run's seed, so changing one tensor's size never shifts another's values. A
 * tensor past INPUTS_CHUNK_ELEMS is drawn in chunks on several threads (inputs.h). */
#include "measure/inputs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/half.h"
#include "core/rng.h"
#include "measure/cuda_check.h"

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
 * hides a kernel that skips an element). `top` is half_from_float(factor). */
static uint16_t draw(rng_state *r, float factor, uint16_t top)
{
    uint16_t h;
    do {
        int32_t m = (int32_t)(rng_next(r) >> 40) - (1 << 23);
        h = half_from_float((float)m * 0x1.0p-23f * factor);
    } while ((h & 0x7fffu) == 0 || h == top);
    return h;
}

typedef enum { FILL_UNIFORM, FILL_RAMPED_KEYS, FILL_OUTLIERS } fill_kind;

/* One tensor's draw: x[0, n) from the stream of `seed`, chunk by chunk. */
typedef struct {
    uint16_t *x;
    size_t n;
    uint64_t seed;
    fill_kind kind;
    size_t row_elems, rows_per_head;   /* FILL_RAMPED_KEYS: head_dim and seq_kv */
} fill_job;

/* Chunk 0 is the tensor's own stream; chunk c > 0 a stream seeded by mixing c into it. */
static uint64_t chunk_seed(uint64_t seed, size_t c)
{
    if (c == 0) return seed;
    rng_state r;
    rng_seed(&r, seed ^ (0xd1b54a32d192ed03ull * (uint64_t)c));
    return rng_next(&r);
}

/* Peaked: key j of every head scaled by 0.1 + 7.9 (j / (Skv - 1))^2. Late keys score up to
 * 8x higher than early ones, so a row's running maximum keeps rising to its last key
 * tile and every rescale of the accumulator with a finite old maximum is exercised.
 * Outliers: uniform, except one element in 256 whose magnitude is drawn from [8, 32]:
 * single scores far above the rest of their row, the case where a kernel that
 * subtracts a stale maximum overflows exp. */
static void fill_chunk(const fill_job *j, size_t c)
{
    size_t lo = c * INPUTS_CHUNK_ELEMS, hi = lo + INPUTS_CHUNK_ELEMS < j->n ? lo + INPUTS_CHUNK_ELEMS : j->n;
    rng_state r;
    rng_seed(&r, chunk_seed(j->seed, c));
    const uint16_t one = half_from_float(1.0f);
    float factor = 1.0f;
    uint16_t top = one;
    size_t row = SIZE_MAX;
    for (size_t i = lo; i < hi; i++) {
        if (j->kind == FILL_RAMPED_KEYS && i / j->row_elems != row) {
            row = i / j->row_elems;
            size_t skv = j->rows_per_head;
            double t = skv > 1 ? (double)(row % skv) / (double)(skv - 1) : 1.0;
            factor = (float)(0.1 + 7.9 * t * t);
            top = half_from_float(factor);
        }
        j->x[i] = draw(&r, factor, top);
        if (j->kind == FILL_OUTLIERS && rng_below(&r, 256) == 0) {
            float mag = 8.0f + 24.0f * (float)rng_uniform(&r);
            j->x[i] = half_from_float((j->x[i] & 0x8000u) ? -mag : mag);
        }
    }
}

typedef struct {
    const fill_job *jobs;
    size_t n_jobs;
    atomic_size_t next;   /* flat (job, chunk) index handed out */
} fill_pool;

static void *fill_worker(void *arg)
{
    fill_pool *p = arg;
    for (;;) {
        size_t t = atomic_fetch_add(&p->next, 1), j = 0;
        while (j < p->n_jobs) {
            size_t chunks = (p->jobs[j].n + INPUTS_CHUNK_ELEMS - 1) / INPUTS_CHUNK_ELEMS;
            if (t < chunks) break;
            t -= chunks;
            j++;
        }
        if (j == p->n_jobs) return NULL;
        fill_chunk(&p->jobs[j], t);
    }
}

/* Every chunk of every job, on up to nthreads threads (the bits do not depend on it). */
static void fill_all(const fill_job *jobs, size_t n_jobs, int nthreads)
{
    size_t chunks = 0;
    for (size_t j = 0; j < n_jobs; j++) chunks += (jobs[j].n + INPUTS_CHUNK_ELEMS - 1) / INPUTS_CHUNK_ELEMS;
    if (nthreads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = c > 0 ? (int)c : 1;
    }
    if ((size_t)nthreads > chunks) nthreads = (int)chunks;
    fill_pool pool = { .jobs = jobs, .n_jobs = n_jobs };
    atomic_init(&pool.next, 0);
    pthread_t tid[64];
    int started = 0;
    for (; started < nthreads - 1 && started < 64; started++)
        if (pthread_create(&tid[started], NULL, fill_worker, &pool)) break;
    fill_worker(&pool);   /* this thread too; alone when no thread could start */
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

int inputs_generate(host_inputs *in, const attn_shape *s, uint64_t seed, input_dist dist)
{
    return inputs_generate_threads(in, s, seed, dist, 0);
}

int inputs_generate_threads(host_inputs *in, const attn_shape *s, uint64_t seed, input_dist dist,
                            int nthreads)
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
    fill_kind qk = dist == DIST_OUTLIERS ? FILL_OUTLIERS : FILL_UNIFORM;
    fill_job jobs[3] = {
        { in->q, in->nq, sq, qk, 0, 0 },
        { in->k, in->nkv, sk, dist == DIST_PEAKED ? FILL_RAMPED_KEYS : qk, (size_t)s->head_dim,
          (size_t)s->seq_kv },
        /* V stays in [-1, 1): O keeps the fp16 error bounds' scale */
        { in->v, in->nkv, sv, FILL_UNIFORM, 0, 0 },
    };
    fill_all(jobs, 3, nthreads);
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

int inputs_upload(const host_inputs *in, void *q, void *k, void *v, char *err, size_t errlen)
{
    CUDA_OR_GOTO(cudaMemcpy(q, in->q, in->nq * 2, cudaMemcpyHostToDevice), fail);
    CUDA_OR_GOTO(cudaMemcpy(k, in->k, in->nkv * 2, cudaMemcpyHostToDevice), fail);
    CUDA_OR_GOTO(cudaMemcpy(v, in->v, in->nkv * 2, cudaMemcpyHostToDevice), fail);
    return 0;
fail:
    return -1;
}

int inputs_replicate(void *q, void *k, void *v, const l2_layout *lay, char *err, size_t errlen)
{
    /* device to device, from copy 0: the bits of every copy are the upload's */
    for (int c = 1; lay && c < lay->copies; c++) {
        size_t oq = (size_t)c * lay->q_bytes, okv = (size_t)c * lay->kv_bytes;
        CUDA_OR_GOTO(cudaMemcpy((char *)q + oq, q, lay->q_bytes, cudaMemcpyDeviceToDevice), fail);
        CUDA_OR_GOTO(cudaMemcpy((char *)k + okv, k, lay->kv_bytes, cudaMemcpyDeviceToDevice), fail);
        CUDA_OR_GOTO(cudaMemcpy((char *)v + okv, v, lay->kv_bytes, cudaMemcpyDeviceToDevice), fail);
    }
    return 0;
fail:
    return -1;
}
