// 09_tile_scheduling: the wgmma + TMA ping-pong kernel of rung 08 with the work spread
// over the GPU: a persistent grid whose blocks loop over work tiles (a static round robin,
// or for causal shapes a dynamic scheduler handing out tiles from a global counter, heavy
// tiles first in groups of heads that share the L2), the ragged keys in the first K/V tile
// so that no later tile needs a mask, 176-key tiles at D = 128 where they pad the keys
// little, work tiles chained (the next tile's first S beside this one's last P V), the last
// round of tiles split into key-tile pieces over every block, warpgroups skipping the
// causal tiles none of their rows sees, programmatic dependent launch, and one consumer
// warpgroup on a 2-D grid for grids too small to fill the SMs.
//
// The files, read top-down (each included once, in this order):
//   hopper_ptx.cuh       every Hopper instruction, wrapped once, and the layout rule
//   kernel_traits.cuh    tile sizes, shared memory, registers, the launch's parameters
//   tile_scheduler.cuh   work tile -> (query block, head); the split tail's pieces
//   named_barriers.cuh   the consumer warpgroups' turns at the tensor cores
//   softmax_mask.cuh     the online softmax with the causal and key-end mask
//   epilogue.cuh         O normalised and stored; the split tail's merge
//   mainloop.cuh         the kernel: the producer loop and the consumer loop
//   host_choice.cuh      which kernel, grid and split a shape gets
//   attention.cu         (this file) the phase ABI: init, run, fini
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cuda.h>   // CUtensorMap; the encoder is reached through the runtime, no -lcuda
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "hopper_ptx.cuh"
#include "kernel_traits.cuh"
#include "tile_scheduler.cuh"
#include "named_barriers.cuh"
#include "softmax_mask.cuh"
#include "epilogue.cuh"
#include "mainloop.cuh"
#include "host_choice.cuh"

namespace {

// Writes 1 from the sm_90a machine code, 2 from any other: init() checks that the code the
// driver picked is the one with wgmma.
__global__ void arch_probe(int *flag)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    *flag = 1;
#else
    *flag = 2;
#endif
}

enum { ERR_CUDA = 1, ERR_SHAPE, ERR_ARCH, ERR_SMEM, ERR_ALLOC, ERR_TMAP, ERR_VARIANT, ERR_ALIGN, ERR_NOT_90A, ERR_GRID,
       ERR_WORKSPACE };

struct State {
    attn_shape shape;
    const Variant *var;
    const void *fn;   // var->fn or var->fn_dyn
    int bm, n_qblocks, n_work, grid, group_log2;
    int *sched;   // device {next, done} of the dynamic tile scheduler, or NULL
    Split split;       // the split tail's plan (split.units = 0: none)
    int *part_count;   // its arrival counts (device, zero between launches), or NULL
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    const void *mapped[3];
    CUtensorMap maps[3];
};

cudaError_t g_cuda = cudaSuccess;
CUresult g_cu = CUDA_SUCCESS;
char g_chosen[512] = "not initialised";

// [batch * heads][rows][D] fp16, boxes of box_rows x 64 columns, 128-byte swizzle (the
// layout rule of hopper_ptx.cuh). Rows past `rows` of a head are out of bounds of that
// head's plane, so the copy engine fills them with zeros.
bool encode_map(State &st, CUtensorMap *map, const void *base, int rows, int box_rows)
{
    const int D = st.shape.head_dim;
    cuuint64_t dims[3] = {(cuuint64_t)D, (cuuint64_t)rows,
                          (cuuint64_t)st.shape.batch * (cuuint64_t)st.shape.heads};
    cuuint64_t strides[2] = {(cuuint64_t)D * 2, (cuuint64_t)rows * D * 2};
    cuuint32_t box[3] = {64, (cuuint32_t)box_rows, 1};
    cuuint32_t step[3] = {1, 1, 1};
    g_cu = st.encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, const_cast<void *>(base), dims, strides, box,
                     step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return g_cu == CUDA_SUCCESS;
}

int check_sm90a(const void *)
{
    int *flag = nullptr, host = 0;
    if ((g_cuda = cudaMalloc(&flag, sizeof(int))) != cudaSuccess) return ERR_CUDA;
    arch_probe<<<1, 1>>>(flag);
    if ((g_cuda = cudaGetLastError()) == cudaSuccess)
        g_cuda = cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost);
    const cudaError_t freed = cudaFree(flag);
    if (g_cuda == cudaSuccess) g_cuda = freed;
    if (g_cuda != cudaSuccess) return ERR_CUDA;
    return host == 1 ? 0 : ERR_NOT_90A;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return ERR_SHAPE;
    int dev = 0, optin = 0, sms = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return ERR_CUDA;
    Choice c;
    if (!choose(s, sms, c)) return ERR_VARIANT;
    const Variant *v = c.v;
    const bool dynamic = c.dynamic;
    const void *fn = dynamic ? v->fn_dyn : v->fn;
    const int width = c.width;
    if (c.first) fn = v->fn_first[width == v->keys ? 3 : width == 48 ? 0 : width == 96 ? 1 : 2];
    if (!fn) return ERR_VARIANT;
    char first_note[64] = "";
    if (c.first)
        snprintf(first_note, sizeof first_note, ", ragged keys first (%d keys, S %d wide)", c.ragged, width);
    if ((g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
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

    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    st->var = v;
    st->fn = fn;
    st->bm = 64 * v->ncons;
    st->n_qblocks = (s->seq_q + st->bm - 1) / st->bm;
    st->n_work = (int)c.n_work;
    // The tile order's head groups (tile_coords): one head for non-causal shapes (every
    // tile the same work; head-major keeps each head's K and V in L2 while its blocks run);
    // causal shapes up to 8 heads a group (a power of two dividing batch * heads), as many
    // as have K and V in half the L2, so each group runs its heaviest query blocks first
    // and the last tiles of the launch are light.
    int l2 = 0;
    if ((g_cuda = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev)) != cudaSuccess) {
        free(st);
        return ERR_CUDA;
    }
    const long kv_head = 4L * s->seq_kv * s->head_dim;   // K and V bytes of one head
    const long want = s->causal ? (l2 / 2) / (kv_head > 0 ? kv_head : 1) : 1;
    const long n_bh = (long)s->batch * s->heads;
    st->group_log2 = 0;
    while (st->group_log2 < 3 && (2L << st->group_log2) <= want && n_bh % (2L << st->group_log2) == 0)
        ++st->group_log2;
    int per_sm = 0;
    if ((g_cuda = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, v->threads, v->smem)) != cudaSuccess) {
        free(st);
        return ERR_CUDA;
    }
    const long resident = (long)sms * (per_sm > 0 ? per_sm : 1);
    st->grid = c.persistent && v->ncons >= 2 && st->n_work > resident ? (int)resident : st->n_work;
    st->split = split_plan(s, c, st->grid);
    // The workspace the harness allocates comes from workspace_bytes(), which assumes one
    // block per SM for the split kernels: a plan that needs more is refused here.
    if (st->split.part_bytes > workspace_bytes(s)) {
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
    if (dynamic) {
        if ((g_cuda = cudaMalloc(&st->sched, 2 * sizeof(int))) != cudaSuccess ||
            (g_cuda = cudaMemset(st->sched, 0, 2 * sizeof(int))) != cudaSuccess ||
            (g_cuda = cudaDeviceSynchronize()) != cudaSuccess) {
            cudaFree(st->sched);
            cudaFree(st->part_count);
            free(st);
            return ERR_CUDA;
        }
    }
    if (v->ncons == 1 && (long)s->batch * s->heads > 65535) {   // its grid is (query blocks, batch * heads)
        cudaFree(st->sched);
        cudaFree(st->part_count);
        free(st);
        return ERR_GRID;
    }
    st->encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    char split_note[96] = "";
    if (st->split.units > 0)
        snprintf(split_note, sizeof split_note, ", split tail: %d tiles as %d key tiles over %d CTAs",
                 st->n_work - st->split.n_dp, st->split.units, st->grid);
    snprintf(g_chosen, sizeof g_chosen,
             "%s: %d consumer warpgroup(s), BM=%d BN=%d%s, %d B shared memory, %d registers at entry "
             "(sm_90a code, wgmma), %d work tiles on %d CTAs of %d threads, %d head(s) per tile group%s%s%s",
             v->name, v->ncons, st->bm, v->keys, first_note, v->smem, fa.numRegs, st->n_work, st->grid, v->threads, 1 << st->group_log2,
             st->sched ? ", dynamic tile scheduler" : "", split_note, ", programmatic dependent launch");
    *state = st;
    return 0;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_SHAPE;
    State &st = *static_cast<State *>(state);
    const attn_shape &s = st.shape;
    // The tensor maps embed the addresses: re-encoded (host arithmetic, nothing enqueued)
    // only when a buffer differs from the last call's.
    const void *ptr[3] = {a->q, a->k, a->v};
    const int rows[3] = {s.seq_q, s.seq_kv, s.seq_kv};
    const int box[3] = {st.bm, st.var->keys, st.var->keys};
    for (int i = 0; i < 3; ++i) {
        if (ptr[i] == st.mapped[i]) continue;
        if (reinterpret_cast<uintptr_t>(ptr[i]) % 16) return ERR_ALIGN;
        if (!encode_map(st, &st.maps[i], ptr[i], rows[i], box[i])) {
            st.mapped[i] = nullptr;
            return ERR_TMAP;
        }
        st.mapped[i] = ptr[i];
    }
    if (reinterpret_cast<uintptr_t>(a->o) % 4) return ERR_ALIGN;
    Params p;
    p.o = static_cast<__half *>(a->o);
    p.o16 = reinterpret_cast<uintptr_t>(a->o) % 16 == 0;
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.n_qblocks = st.n_qblocks;
    p.n_work = st.n_work;
    p.group_log2 = st.group_log2;
    p.sched = st.sched;
    p.causal = s.causal != 0;
    p.scale_log2 = s.scale * LOG2E;
    p.n_dp = st.split.n_dp;
    p.n_kt = st.split.n_kt;
    p.sk_units = st.split.units;
    p.part = static_cast<float4 *>(a->workspace);
    p.part_count = st.part_count;
    if (st.split.units > 0 && !a->workspace) return ERR_WORKSPACE;
    void *args[] = {&st.maps[0], &st.maps[1], &st.maps[2], &p};
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = st.var->ncons == 1 ? dim3((unsigned)st.n_qblocks, (unsigned)(s.batch * s.heads))
                                     : dim3((unsigned)st.grid);
    cfg.blockDim = dim3((unsigned)st.var->threads);
    cfg.dynamicSmemBytes = (size_t)st.var->smem;
    cfg.stream = a->stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    g_cuda = cudaLaunchKernelExC(&cfg, st.fn, args);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_CUDA;
}

void fini(void *state)
{
    State *st = static_cast<State *>(state);
    if (!st) return;
    cudaFree(st->sched);
    cudaFree(st->part_count);
    free(st);
}

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_chosen;
    case ERR_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_SHAPE: return "shape or device not supported (see unsupported()) or init not called";
    case ERR_ARCH: return "needs compute capability 9.0";
    case ERR_SMEM: return "the device allows less dynamic shared memory per block than the kernel needs";
    case ERR_ALLOC: return "out of host memory for the phase state";
    case ERR_TMAP:
        return g_cu != CUDA_SUCCESS ? "cuTensorMapEncodeTiled failed (tensor maps of Q/K/V)"
                                    : "cuTensorMapEncodeTiled not found in the driver";
    case ERR_VARIANT: return "no kernel for this shape in the variant table (a bug in host_choice.cuh)";
    case ERR_ALIGN: return "q/k/v must be 16-byte aligned and o 4-byte aligned";
    case ERR_GRID: return "the one-warpgroup variants take batch * heads <= 65535 (grid y)";
    case ERR_WORKSPACE:
        return "the split tail needs the workspace of workspace_bytes() (one block per SM), and none or a "
               "smaller one was planned or given";
    case ERR_NOT_90A: return "the driver picked code other than sm_90a for this GPU (no wgmma path)";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "09_tile_scheduling", "Hopper tile scheduling: persistent and dynamic tiles, 176-key tiles, split tail, PDL",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
