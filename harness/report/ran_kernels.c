/* report/ran_kernels.c: what ran at a shape, from the profile there and the build's
 * entries of those kernels (ran_kernels.h). */
#include "report/ran_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/kernel_names.h"

/* A count the evidence gives: within [0, max], else unknown (-1). */
static long count(long v, long max)
{
    return v >= 0 && v <= max ? v : -1;
}

/* A launch figure of the profile: a whole number within [0, max], else unknown (-1): ncu
 * writes "n/a" for a figure it could not take, and evidence may hold anything. */
static long figure(const run_kernel_profile *k, const char *metric, long max)
{
    const run_metric *m = run_metric_find(k, metric);
    if (!m || !m->is_number || !isfinite(m->number) || m->number < 0 || m->number > (double)max ||
        m->number != floor(m->number))
        return -1;
    return (long)m->number;
}

static long spill_bytes(const run_kernel_resources *k)
{
    long st = count(k->spill_stores, RAN_MAX_BYTES), ld = count(k->spill_loads, RAN_MAX_BYTES);
    return st < 0 || ld < 0 ? -1 : st + ld;
}

/* The largest of values seen so far: -1 once one was unknown (the largest of the rest
 * could be short of it); *vary set when two differ. */
typedef struct {
    long max;
    int any, unknown, vary;
} largest;

static void take(largest *l, long v)
{
    if (v < 0) l->unknown = 1;
    else if (l->any && v != l->max) l->vary = 1;
    if (v >= 0 && (!l->any || v > l->max)) l->max = v;
    l->any = 1;
}

static long result(const largest *l)
{
    return l->any && !l->unknown ? l->max : -1;
}

/* Without a profile at the shape: the largest over the object's kernels (its totals
 * when it does not list them; their spills are a sum). */
static void from_build(const run_impl *im, ran_resources *out)
{
    if (!im->has_resources) return;
    if (im->n_kernels == 0) {
        out->registers = count(im->registers, RAN_MAX_REGISTERS);
        out->smem_static = count(im->smem_static, RAN_MAX_BYTES);
        long st = count(im->spill_stores, RAN_MAX_BYTES), ld = count(im->spill_loads, RAN_MAX_BYTES);
        out->spills = st < 0 || ld < 0 ? -1 : st + ld;
        out->spills_summed = 1;
        return;
    }
    largest regs = { 0 }, smem = { 0 }, spills = { 0 };
    for (size_t k = 0; k < im->n_kernels; k++) {
        take(&regs, count(im->kernels[k].registers, RAN_MAX_REGISTERS));
        take(&smem, count(im->kernels[k].smem_static, RAN_MAX_BYTES));
        take(&spills, spill_bytes(&im->kernels[k]));
    }
    out->n = im->n_kernels;
    out->registers = result(&regs);
    out->smem_static = result(&smem);
    out->spills = result(&spills);
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const run_kernel_profile *const *)a)->kernel, (*(const run_kernel_profile *const *)b)->kernel);
}

void ran_resources_at(const run_data *r, const run_impl *im, const attn_shape *s, ran_resources *out)
{
    memset(out, 0, sizeof *out);
    out->registers = out->smem_static = out->smem_dynamic = out->spills = -1;
    if (!im) return;
    /* every kernel the profile's rows of impl at s hold (a kernel launched twice is
     * there twice) */
    size_t n_ran = 0;
    for (size_t i = 0; i < r->n_profiles; i++)
        if (!strcmp(r->profiles[i].impl, im->name) && shape_same(&r->profiles[i].shape, s))
            n_ran += r->profiles[i].n_kernels;
    if (n_ran == 0) {
        from_build(im, out);
        return;
    }
    out->profiled = 1;
    const run_kernel_profile **ran = malloc(n_ran * sizeof *ran);
    if (!ran) return;   /* out of memory: nothing is claimed */
    n_ran = 0;
    for (size_t i = 0; i < r->n_profiles; i++)
        if (!strcmp(r->profiles[i].impl, im->name) && shape_same(&r->profiles[i].shape, s))
            for (size_t k = 0; k < r->profiles[i].n_kernels; k++) ran[n_ran++] = &r->profiles[i].kernels[k];
    qsort(ran, n_ran, sizeof *ran, by_name);
    for (size_t k = 0; k < n_ran; k++) out->n += k == 0 || strcmp(ran[k - 1]->kernel, ran[k]->kernel) != 0;
    /* each name is looked up once among the build's; more kernels than a profile row may
     * hold is no real run's, and is not matched */
    kernel_name *built = out->n <= RAN_MAX_KERNELS ? calloc(im->n_kernels + 1, sizeof *built) : NULL;
    if (!built) {
        free(ran);
        return;
    }
    for (size_t k = 0; k < im->n_kernels; k++) kernel_name_from_build(im->kernels[k].name, &built[k]);
    largest regs = { 0 }, smem = { 0 }, dyn = { 0 }, spills = { 0 };
    const run_kernel_resources *entry = NULL;
    for (size_t k = 0; k < n_ran; k++) {
        if (k == 0 || strcmp(ran[k - 1]->kernel, ran[k]->kernel) != 0) {
            kernel_name name;
            long at = kernel_name_from_profile(ran[k]->kernel, &name) == 0
                    ? kernel_name_find(&name, built, im->n_kernels) : -1;
            entry = at >= 0 ? &im->kernels[at] : NULL;
        }
        /* the launch's figures; the build's of the same kernel where the profile lacks one */
        long v = figure(ran[k], "launch__registers_per_thread", RAN_MAX_REGISTERS);
        take(&regs, v >= 0 || !entry ? v : count(entry->registers, RAN_MAX_REGISTERS));
        v = figure(ran[k], "launch__shared_mem_per_block_static", RAN_MAX_BYTES);
        take(&smem, v >= 0 || !entry ? v : count(entry->smem_static, RAN_MAX_BYTES));
        take(&dyn, figure(ran[k], "launch__shared_mem_per_block_dynamic", RAN_MAX_BYTES));
        take(&spills, entry ? spill_bytes(entry) : -1);
    }
    out->registers = result(&regs);
    out->smem_static = result(&smem);
    out->smem_dynamic = result(&dyn);
    out->spills = result(&spills);
    if (out->n > 1) {
        out->registers_vary = regs.vary;
        out->smem_vary = smem.vary || dyn.vary;
        out->spills_vary = spills.vary;
    }
    free(ran);
    free(built);
}
