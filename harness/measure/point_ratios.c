/* measure/point_ratios.c: a point's ratios to the baseline (point_ratios.h). */
#include "measure/point_ratios.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/stats.h"
#include "measure/planted_slowdown.h"

rotation_rule point_rotation_rule(const measure_ctx *ctx, uint64_t seed, int alt_sets)
{
    const time_config *tc = &ctx->tc;
    /* At least 20 rounds and twice one measurement's GPU time (every implementation
     * together), then until every ratio's CI is within 1% of it, checked every 5 rounds,
     * at most 150 rounds or 4 s. A round of the long shapes lasts about 25 ms, so 4 s is
     * about 150 of them; the headline's rounds are about 1.5 ms. */
    return (rotation_rule){ .min_rounds = 20, .max_rounds = 150, .min_gpu_s = 2 * tc->min_gpu_s,
                            .max_seconds = 4.0, .rel_ci_target = 0.01, .check_every = 5, .resamples = 1000,
                            .ci_level = tc->ci_level, .seed = seed, .alt_sets = alt_sets, .clock = tc->clock };
}

static void *copy_of(const void *x, size_t bytes)
{
    void *c = malloc(bytes ? bytes : 1);
    if (c && bytes) memcpy(c, x, bytes);
    return c;
}

/* One member's pairs and derived figures from the rotation; its progress line. 0, or -1
 * out of memory. */
static int record_member(measure_ctx *ctx, const attn_shape *s, const char *shape_text, const rotation_result *r,
                         const rotation_gpu *g, size_t i, kept_impl *ki, const clock_policy *clock)
{
    result_paired *p = &ki->res->paired;
    *p = (result_paired){ .baseline = ctx->baseline, .implementations = r->k, .inner = g->inner[i],
                          .baseline_inner = g->inner[r->base], .n = r->n, .stop = r->stop, .gpu_s = r->gpu_s,
                          .wall_s = r->wall_s,
                          .clock = { .n = r->n, .tally = r->tally, .policy = *clock } };
    if (rotation_pairs(r, i, &p->impl_us, &p->baseline_us, &p->impl_first)) return -1;
    p->clock.sm_mhz = copy_of(r->sm_mhz, r->n * sizeof *r->sm_mhz);
    if (!p->clock.sm_mhz) {
        result_paired_free(p);
        return -1;
    }
    ki->res->has_paired = 1;
    const time_result *gr = ki->graph;
    ki->res->derived = measure_derived(ctx, s, gr->samples_us, gr->n, gr->sum.median, p->impl_us, p->baseline_us, r->n);
    ki->res->has_derived = 1;
    measure_progress_ratio(ctx, ki->im->ph->name, shape_text, "rotation", &ki->res->derived, r->n, g->inner[i],
                           r->stop);
    return 0;
}

static void derive_alone(measure_ctx *ctx, const attn_shape *s, kept_impl *ki)
{
    const time_result *gr = ki->graph;
    ki->res->derived = measure_derived(ctx, s, gr->samples_us, gr->n, gr->sum.median, NULL, NULL, 0);
    ki->res->has_derived = 1;
}

/* The rotation of the baseline (kept[base]) and the members. 0, or -1 with err. */
static int rotate(measure_ctx *ctx, const attn_shape *s, const char *shape_text, const point_buffers *pb,
                  cudaStream_t stream, kept_impl *kept, const size_t *members, size_t k, size_t base_at,
                  char *err, size_t errlen)
{
    int alt_sets = pb->o2 != NULL;
    timed_impl *ti = calloc(k, sizeof *ti);
    if (!ti) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    for (size_t j = 0; j < k; j++) {
        kept_impl *ki = &kept[members[j]];
        /* a planted slowdown (test-only) applies to whichever implementation it names */
        ti[j].ph = plant_wrap(ki->im->ph);
        ti[j].state = ki->state;
        ti[j].args = (attn_args){ pb->q, pb->k, pb->v, pb->o, ki->ws ? pb->ws : NULL, stream };
        ti[j].args_alt = alt_sets ? (attn_args){ pb->q, pb->k, pb->v, pb->o2, ki->ws ? pb->ws2 : NULL, stream }
                                  : ti[j].args;
    }
    rotation_gpu g;
    rotation_result r;
    rotation_rule rule = point_rotation_rule(ctx, ctx->seed ^ 0x726f746174696f6eull, alt_sets);
    int rc = -1;
    /* on the point's input copies, as each one's own timing was (l2_copies.h) */
    if (rotation_gpu_prepare(&g, ti, k, alt_sets, &pb->copies, ctx->tc.inner_max, ctx->tc.graph_target_us, 3, err,
                             errlen))
        goto out;
    rc = rotation_run(k, base_at, rotation_gpu_replay, &g, &rule, &r, err, errlen);
    if (rc == 0) {
        ctx->gpu_timed_s += r.gpu_s;
        ctx->measurements++;
        for (size_t j = 0; j < k && rc == 0; j++) {
            kept_impl *ki = &kept[members[j]];
            if (j == base_at) continue;
            if (r.n == 0) {
                /* every round fell under a clock event: recorded as such, the ratio from
                 * the separate measurements */
                ki->res->paired_throttled = ctx->baseline;
                ki->res->discarded_pairs = r.tally.discarded;
                derive_alone(ctx, s, ki);
                continue;
            }
            if (record_member(ctx, s, shape_text, &r, &g, j, ki, &rule.clock)) {
                snprintf(err, errlen, "out of host memory");
                rc = -1;
            }
        }
        rotation_result_free(&r);
    }
    rotation_gpu_release(&g);
out:
    free(ti);
    return rc;
}

int point_ratios(measure_ctx *ctx, const attn_shape *s, const char *shape_text, const point_buffers *b,
                 cudaStream_t stream, kept_impl *kept, size_t n_kept, step_times *st, char *err, size_t errlen)
{
    double t = time_now_s();
    size_t base = n_kept;
    for (size_t i = 0; i < n_kept; i++)
        if (ctx->baseline && !strcmp(kept[i].im->ph->name, ctx->baseline)) base = i;
    if (base == n_kept) {   /* no baseline here: no ratio to take */
        for (size_t i = 0; i < n_kept; i++) derive_alone(ctx, s, &kept[i]);
        return 0;
    }
    derive_alone(ctx, s, &kept[base]);
    size_t *members = malloc(n_kept * sizeof *members), k = 0, base_at = 0;
    if (!members) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    double limit = POINT_SLOW_FACTOR * kept[base].graph->sum.median;
    for (size_t i = 0; i < n_kept && k < 255; i++) {
        if (i == base) base_at = k;
        if (i == base || kept[i].graph->sum.median <= limit) members[k++] = i;
    }
    int rc = 0;
    if (k >= 2) rc = rotate(ctx, s, shape_text, b, stream, kept, members, k, base_at, err, errlen);
    free(members);
    /* a slower one, and a point cut short by a signal: each keeps the quotient of its own
     * and the baseline's separate medians (point_ratios.h says why not pairs) */
    for (size_t i = 0; i < n_kept && rc == 0; i++)
        if (!kept[i].res->has_derived) derive_alone(ctx, s, &kept[i]);
    step_add(st, STEP_PAIRED, t);
    return rc;
}
