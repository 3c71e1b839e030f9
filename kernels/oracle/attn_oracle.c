/* attn_oracle.c: the fp64 oracle, one query row at a time.
 *
 * Every row is computed by the same sequence of operations whatever the thread count
 * (threads only pick which rows they do), so the result is identical bit for bit for
 * any nthreads. Per row: scores of the visible keys in double, softmax in two passes
 * (max, then exp and sum), then P·V accumulated key by key and divided by the sum.
 * Each thread keeps its current (batch, head)'s K (transposed, so the score loop runs
 * over contiguous keys and vectorizes without reassociation) and V in double, and computes
 * the rows of one head it took together, so that they share each pass over K and V. */
#include "attn_oracle.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/half.h"
#include "core/rng.h"

#define ROWS_PER_GRAB 16   /* rows a thread takes at a time: balances causal work, and
                              the rows of one head among them share each pass over K, V */

size_t oracle_total_rows(const attn_shape *s)
{
    return (size_t)s->batch * (size_t)s->heads * (size_t)s->seq_q;
}

/* Keys query row i sees. */
static size_t visible_keys(const attn_shape *s, size_t i)
{
    if (!s->causal) return (size_t)s->seq_kv;
    long long last = (long long)i + ((long long)s->seq_kv - s->seq_q);   /* last key seen */
    if (last < 0) return 0;
    return last + 1 >= s->seq_kv ? (size_t)s->seq_kv : (size_t)(last + 1);
}

double oracle_row_flops(const attn_shape *s, size_t nrows)
{
    double keys = 0;   /* average visible keys per row */
    for (int i = 0; i < s->seq_q; i++) keys += (double)visible_keys(s, (size_t)i);
    keys /= s->seq_q > 0 ? s->seq_q : 1;
    return 4.0 * (double)s->head_dim * keys * (double)nrows;
}

static double g_half[65536];
static pthread_once_t g_half_once = PTHREAD_ONCE_INIT;
static void init_half_table(void)
{
    for (uint32_t h = 0; h < 65536; h++) g_half[h] = half_to_float((uint16_t)h);
}

typedef struct {
    const attn_shape *s;
    const uint16_t *q, *k, *v;
    const size_t *rows;
    size_t nrows;
    double *out;
    atomic_size_t next;
} ref_job;

typedef struct {
    double *kt, *vd, *p, *qd;   /* p: ROWS_PER_GRAB rows of scores, qd: as many rows of q */
    size_t bh;          /* (batch, head) whose K and V are cached; SIZE_MAX: none */
} ref_scratch;

static void load_head(const ref_job *j, ref_scratch *w, size_t bh)
{
    size_t skv = (size_t)j->s->seq_kv, dim = (size_t)j->s->head_dim;
    const uint16_t *k = j->k + bh * skv * dim, *v = j->v + bh * skv * dim;
    for (size_t n = 0; n < skv; n++)
        for (size_t d = 0; d < dim; d++) {
            w->kt[d * skv + n] = g_half[k[n * dim + d]];
            w->vd[n * dim + d] = g_half[v[n * dim + d]];
        }
    w->bh = bh;
}

/* Keys per block of the score loop: a block of K^T (dim x KEY_BLOCK doubles) and the
 * group's scores over it stay in cache while every row of the group takes it. */
#define KEY_BLOCK 512

/* Rows ids[0, g) of one (batch, head), each into outs[i]. Every row gets exactly the
 * operations, in the order, it gets alone (its scores summed over d in order, P·V summed
 * over its keys in order): grouping rows only lets them share each pass over K and V,
 * which the long sequences' rows were bound by. */
static void rows_of_head(const ref_job *j, ref_scratch *w, const size_t *ids, size_t g, double *const *outs)
{
    const attn_shape *s = j->s;
    size_t skv = (size_t)s->seq_kv, dim = (size_t)s->head_dim, sq = (size_t)s->seq_q;
    size_t bh = ids[0] / sq, nk[ROWS_PER_GRAB], most = 0;
    double scale = (double)s->scale;
    for (size_t r = 0; r < g; r++) {
        nk[r] = visible_keys(s, ids[r] % sq);
        if (nk[r] > most) most = nk[r];
    }
    if (most == 0) {
        for (size_t r = 0; r < g; r++) memset(outs[r], 0, dim * sizeof *outs[r]);
        return;
    }
    if (w->bh != bh) load_head(j, w, bh);
    for (size_t r = 0; r < g; r++) {
        const uint16_t *q = j->q + ids[r] * dim;
        for (size_t d = 0; d < dim; d++) w->qd[r * dim + d] = g_half[q[d]];
        memset(w->p + r * skv, 0, nk[r] * sizeof *w->p);
    }
    for (size_t n0 = 0; n0 < most; n0 += KEY_BLOCK)
        for (size_t d = 0; d < dim; d++) {
            const double *kr = w->kt + d * skv;
            for (size_t r = 0; r < g; r++) {
                double qv = w->qd[r * dim + d], *p = w->p + r * skv;
                size_t end = n0 + KEY_BLOCK < nk[r] ? n0 + KEY_BLOCK : nk[r];
                for (size_t n = n0; n < end; n++) p[n] += qv * kr[n];
            }
        }
    double sum[ROWS_PER_GRAB];
    for (size_t r = 0; r < g; r++) {
        double *p = w->p + r * skv, mx = -INFINITY;
        sum[r] = 0;
        for (size_t n = 0; n < nk[r]; n++) {
            p[n] *= scale;
            if (p[n] > mx) mx = p[n];
        }
        for (size_t n = 0; n < nk[r]; n++) {
            p[n] = exp(p[n] - mx);
            sum[r] += p[n];
        }
        memset(outs[r], 0, dim * sizeof *outs[r]);
    }
    for (size_t n = 0; n < most; n++) {
        const double *vr = w->vd + n * dim;
        for (size_t r = 0; r < g; r++) {
            if (n >= nk[r]) continue;
            double pn = w->p[r * skv + n], *o = outs[r];
            for (size_t d = 0; d < dim; d++) o[d] += pn * vr[d];
        }
    }
    for (size_t r = 0; r < g; r++)
        if (nk[r] > 0)
            for (size_t d = 0; d < dim; d++) outs[r][d] /= sum[r];
}

static void *worker(void *arg)
{
    ref_job *j = arg;
    size_t skv = (size_t)j->s->seq_kv, dim = (size_t)j->s->head_dim, sq = (size_t)j->s->seq_q;
    ref_scratch w = { .bh = SIZE_MAX };
    w.kt = malloc(skv * dim * sizeof *w.kt);
    w.vd = malloc(skv * dim * sizeof *w.vd);
    w.p = malloc(ROWS_PER_GRAB * skv * sizeof *w.p);
    w.qd = malloc(ROWS_PER_GRAB * dim * sizeof *w.qd);
    void *rc = NULL;
    if (!w.kt || !w.vd || !w.p || !w.qd) {
        rc = (void *)1;
        goto out;
    }
    for (;;) {
        size_t first = atomic_fetch_add(&j->next, ROWS_PER_GRAB);
        if (first >= j->nrows) break;
        size_t last = first + ROWS_PER_GRAB < j->nrows ? first + ROWS_PER_GRAB : j->nrows;
        /* the grab's rows in runs of one (batch, head) each */
        for (size_t r = first; r < last;) {
            size_t ids[ROWS_PER_GRAB], g = 0;
            double *outs[ROWS_PER_GRAB];
            size_t bh = (j->rows ? j->rows[r] : r) / sq;
            for (; r < last && (j->rows ? j->rows[r] : r) / sq == bh; r++, g++) {
                ids[g] = j->rows ? j->rows[r] : r;
                outs[g] = j->out + r * dim;
            }
            rows_of_head(j, &w, ids, g, outs);
        }
    }
out:
    free(w.kt);
    free(w.vd);
    free(w.p);
    free(w.qd);
    return rc;
}

int oracle_attention_rows(const attn_shape *s, const uint16_t *q, const uint16_t *k,
                       const uint16_t *v, const size_t *rows, size_t nrows,
                       double *out, int nthreads)
{
    if (!s || !q || !k || !v || !out || s->batch < 1 || s->heads < 1 || s->seq_q < 1 ||
        s->seq_kv < 1 || s->head_dim < 1)
        return -1;
    size_t total = oracle_total_rows(s);
    for (size_t r = 0; rows && r < nrows; r++)
        if (rows[r] >= total) return -1;
    if (nrows == 0) return 0;
    pthread_once(&g_half_once, init_half_table);

    if (nthreads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = c > 0 ? (int)c : 1;
    }
    size_t grabs = (nrows + ROWS_PER_GRAB - 1) / ROWS_PER_GRAB;
    if ((size_t)nthreads > grabs) nthreads = (int)grabs;

    ref_job job = { .s = s, .q = q, .k = k, .v = v, .rows = rows, .nrows = nrows, .out = out };
    atomic_init(&job.next, 0);
    if (nthreads == 1) return worker(&job) ? -1 : 0;

    pthread_t *tid = malloc((size_t)nthreads * sizeof *tid);
    if (!tid) return -1;
    int started = 0, failed = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&tid[started], NULL, worker, &job)) break;
    if (started == 0) failed = worker(&job) != NULL;   /* no thread: do it here */
    for (int t = 0; t < started; t++) {
        void *rc = NULL;
        pthread_join(tid[t], &rc);
        failed |= rc != NULL;
    }
    free(tid);
    return failed ? -1 : 0;
}

/* Sampling: heads first (all of them when nwant allows two rows each, else a
 * stratified random subset), each sampled head's first and last query row, then the
 * remaining rows split evenly over the sampled heads and drawn stratified from each
 * head's interior rows. Heads ascend and rows within a head ascend, so the output is
 * sorted without a sort. */
static size_t stratum_pick(rng_state *r, size_t t, size_t parts, size_t pool)
{
    size_t lo = t * pool / parts, hi = (t + 1) * pool / parts;
    return lo + (size_t)rng_below(r, hi - lo);
}

/* One head's rows, ascending: its first, one drawn from the interior of every
 * REF_SAMPLE_TILE-row tile (rows other than the first and last), its last. A kernel that
 * skips or mishandles a whole query tile shows in every sampled head. Writes at most cap
 * rows at base + row; returns the count (the head's full count when cap allows). */
static size_t head_rows(rng_state *rng, size_t base, size_t sq, size_t cap, size_t *rows)
{
    size_t n = 0;
    if (n < cap) rows[n++] = base;
    for (size_t t = 0; t * REF_SAMPLE_TILE < sq; t++) {
        size_t lo = t * REF_SAMPLE_TILE, hi = lo + REF_SAMPLE_TILE;
        if (lo < 1) lo = 1;
        if (hi > sq - 1) hi = sq - 1;
        if (lo >= hi) continue;
        size_t r = lo + (size_t)rng_below(rng, hi - lo);
        if (n < cap) rows[n++] = base + r;
    }
    if (sq > 1 && n < cap) rows[n++] = base + sq - 1;
    return n;
}

size_t ref_sample_head_rows(size_t seq_q)
{
    size_t n = seq_q > 1 ? 2 : 1;
    for (size_t t = 0; t * REF_SAMPLE_TILE < seq_q; t++) {
        size_t lo = t * REF_SAMPLE_TILE, hi = lo + REF_SAMPLE_TILE;
        if (lo < 1) lo = 1;
        if (hi > seq_q - 1) hi = seq_q - 1;
        n += lo < hi;
    }
    return n;
}

size_t oracle_sample_rows(const attn_shape *s, size_t nwant, uint64_t seed, size_t *rows)
{
    size_t total = oracle_total_rows(s), sq = (size_t)s->seq_q;
    size_t nbh = (size_t)s->batch * (size_t)s->heads;
    if (total == 0 || nwant == 0) return 0;
    if (nwant >= total) {
        for (size_t r = 0; r < total; r++) rows[r] = r;
        return total;
    }
    rng_state rng;
    rng_seed(&rng, seed);
    size_t per = ref_sample_head_rows(sq);
    /* as many whole heads as the budget holds, spread over the (batch, head) range */
    size_t nheads = nwant / per;
    if (nheads > nbh) nheads = nbh;
    if (nheads == 0) {   /* a budget below one head: the first nwant rows of one head's set */
        size_t base = (size_t)rng_below(&rng, nbh) * sq;
        return head_rows(&rng, base, sq, nwant, rows);
    }
    size_t count = 0;
    for (size_t t = 0; t < nheads; t++)
        count += head_rows(&rng, stratum_pick(&rng, t, nheads, nbh) * sq, sq, per, rows + count);
    return count;
}
