// 13_row_blocks: rung 12 with one idea for short prefill at D = 64: the row count picks the
// kernel. Rung 09 runs a non-causal D = 64 shape that fills the GPU on its three-warpgroup
// kernel (192-row blocks, three consumers in a round robin, work tiles chained, the split
// tail) only where 192-row blocks pad seq_q by at most 4%, else on two warpgroups in
// ping-pong (128-row blocks); rungs 10-12 keep that choice. Measured per padded row, the
// 192-row kernel costs 0.82-0.85 of the ping-pong's, so this rung gives it every such shape
// whose 192-row blocks hold at most 1.15x the ping-pong's rows (16x32x1024x64: 1152 rows
// for 1024). The kernels are rung 09's, unchanged; every other shape runs rung 12.
//
// The files:
//   attention.cu    (this file) rung 09 whole (frozen), in namespace rung09, and the phase
//                   ABI: rung 09's three-warpgroup launch for the shapes taken, rung 12 for
//                   the rest
//   row_choice.cuh  which shapes are taken, and rung 09's choice turned to that kernel
//   rung12.cu       rung 12 whole, in a translation unit of its own (rung12.h: its table)
// and rung 11's second translation unit (its rung10.cu), which rung 12 needs, linked as
// rung 11's build compiled it (the Makefile's PHASE_LINKS_13_row_blocks).
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung12.h"

// Rung 09 is included, not copied (as rung 10 includes it): its entry point renamed and
// not exported; its kernels, choice, split plan, run and fini used as they are.
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_09_13   // rung 10 (linked, in rung10.o) names its copy _09
namespace rung09 {
#include "09_tile_scheduling/attention.cu"
}  // namespace rung09
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

#include "row_choice.cuh"

namespace {

const attn_phase &lower = rung12_link::phase;

struct RowState {
    bool rows;     // rung 09's three-warpgroup kernel (inner: a rung09::State); else rung 12's
    void *inner;
};

bool g_last_rows = false;   // the last init took the shape: error_string is rung 09's

int device_sms(int *sms)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return -1;
    return 0;
}

// Rung 12 declines what this rung declines: the shapes taken are rung 09's, which rung 12
// takes on compute capability 9.0.
const char *unsupported(const attn_shape *s) { return lower.unsupported(s); }

// The taken shapes' split tail needs rung 09's workspace for its three-warpgroup plan (one
// block per SM, as rung 09's workspace_bytes assumes); the rest rung 12's.
size_t workspace_bytes(const attn_shape *s)
{
    int sms = 0;
    rung09::Choice c;
    bool taken = false;
    if (unsupported(s) || device_sms(&sms) || !rows::choose(s, sms, c, taken) || !taken) return lower.workspace_bytes(s);
    const size_t w = rung09::split_plan(s, c, sms).part_bytes, w12 = lower.workspace_bytes(s);
    return w > w12 ? w : w12;
}

// Rung 09's init (its attention.cu) from the choice on: the same steps, in the same order,
// with the workspace this rung plans. The one copy in this rung: rung 09's init calls its
// own choose(), which this rung replaces.
int init_rows(void **state, const attn_shape *s, int sms, const rung09::Choice &c)
{
    using namespace rung09;
    const Variant *v = c.v;
    const void *fn = v->fn_first[3];
    if (!fn) return ERR_VARIANT;
    int dev = 0, optin = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess ||
        (g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_CUDA;
    if (optin < v->smem) return ERR_SMEM;
    if ((g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, v->smem)) != cudaSuccess)
        return ERR_CUDA;
    int rc = check_sm90a(fn);
    if (rc) return rc;
    cudaFuncAttributes fa;
    if ((g_cuda = cudaFuncGetAttributes(&fa, fn)) != cudaSuccess) return ERR_CUDA;
    cudaDriverEntryPointQueryResult found;
    void *enc = nullptr;
    g_cuda = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &enc, 12000, cudaEnableDefault, &found);
    if (g_cuda != cudaSuccess) return ERR_CUDA;
    if (found != cudaDriverEntryPointSuccess || !enc) return ERR_TMAP;
    int per_sm = 0;
    if ((g_cuda = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, v->threads, v->smem)) != cudaSuccess)
        return ERR_CUDA;
    rung09::State *st = static_cast<rung09::State *>(calloc(1, sizeof(rung09::State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    st->var = v;
    st->fn = fn;
    st->bm = 64 * v->ncons;
    st->n_qblocks = (s->seq_q + st->bm - 1) / st->bm;
    st->n_work = (int)c.n_work;
    st->group_log2 = 0;   // non-causal: one head a tile group (rung 09's rule)
    const long resident = (long)sms * (per_sm > 0 ? per_sm : 1);
    st->grid = st->n_work > resident ? (int)resident : st->n_work;
    st->split = split_plan(s, c, st->grid);
    if (st->split.part_bytes > ::workspace_bytes(s)) {
        free(st);
        return ERR_WORKSPACE;
    }
    if (st->split.units > 0) {
        if ((g_cuda = cudaMalloc(&st->part_count, st->split.count_bytes)) != cudaSuccess ||
            (g_cuda = cudaMemset(st->part_count, 0, st->split.count_bytes)) != cudaSuccess ||
            (g_cuda = cudaDeviceSynchronize()) != cudaSuccess) {
            cudaFree(st->part_count);
            free(st);
            return ERR_CUDA;
        }
    }
    st->encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    char split_note[96] = "";
    if (st->split.units > 0)
        snprintf(split_note, sizeof split_note, ", split tail: %d tiles as %d key tiles over %d CTAs",
                 st->n_work - st->split.n_dp, st->split.units, st->grid);
    snprintf(g_chosen, sizeof g_chosen,
             "row blocks: %s: %d consumer warpgroup(s), BM=%d BN=%d, ragged keys first (%d keys, S %d wide), %d B "
             "shared memory, %d registers at entry (sm_90a code, wgmma), %d work tiles on %d CTAs of %d threads%s, "
             "programmatic dependent launch",
             v->name, v->ncons, st->bm, v->keys, c.ragged, c.width, v->smem, fa.numRegs, st->n_work, st->grid,
             v->threads, split_note);
    *state = st;
    return 0;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    RowState *st = static_cast<RowState *>(calloc(1, sizeof(RowState)));
    if (!st) return rung09::ERR_ALLOC;
    int sms = 0;
    rung09::Choice c;
    bool taken = false;
    st->rows = !unsupported(s) && !device_sms(&sms) && rows::choose(s, sms, c, taken) && taken;
    g_last_rows = st->rows;
    const int rc = st->rows ? init_rows(&st->inner, s, sms, c) : lower.init(&st->inner, s);
    if (rc) {
        free(st);
        return rc;
    }
    *state = st;
    return 0;
}

int run(void *state, const attn_args *a)
{
    if (!state) return rung09::ERR_SHAPE;
    const RowState &st = *static_cast<const RowState *>(state);
    return st.rows ? rung09::run(st.inner, a) : lower.run(st.inner, a);
}

void fini(void *state)
{
    RowState *st = static_cast<RowState *>(state);
    if (!st) return;
    if (st->rows) rung09::fini(st->inner);
    else lower.fini(st->inner);
    free(st);
}

const char *error_string(int code) { return g_last_rows ? rung09::error_string(code) : lower.error_string(code); }

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "13_row_blocks", "Row blocks: the row count picks the D=64 kernel (192-row blocks up to 1.15x the rows); rung 12 elsewhere",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
