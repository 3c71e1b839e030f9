// 13_wide_keys: rung 12 with one idea for short prefill at D = 64: wider K/V tiles. Where
// rung 09's two-warpgroup ping-pong runs (D = 64, not causal, 128-row blocks filling the
// GPU, seq_q not a fit for 192-row blocks), each K/V tile is WK keys instead of 128: the
// same kernel (rung 09's, its templates given WK from outside), with fewer and longer steps
// a work tile, so the per-step costs (the turn hand-over, the waits on the MMAs, the row
// max's shuffles and the rescale test) are paid WK / 128 times less often. Every other
// shape runs rung 12, unchanged.
//
// The files:
//   attention.cu      (this file) rung 09's kernel files included whole, in namespace
//                     wide; the phase ABI: this rung's launch, and rung 12 for the rest
//   wide_traits.cuh   the WK-wide S product and the kernel's tile sizes, given to rung 09's
//                     templates
//   wide_choice.cuh   which shapes this rung's kernel takes
//   rung12.cu         rung 12 whole, in a translation unit of its own (rung12.h: its table)
// and rung 11's second translation unit (its rung10.cu), which rung 12 needs, linked as
// rung 11's build compiled it (the Makefile's PHASE_LINKS_13_wide_keys).
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cuda.h>   // CUtensorMap; the encoder is reached through the runtime, no -lcuda
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung12.h"

// Rung 09's kernel, not copied: its device files in the order its attention.cu includes
// them, with this rung's specialisations between its traits and its kernel.
namespace wide {
#include "09_tile_scheduling/hopper_ptx.cuh"
#include "09_tile_scheduling/kernel_traits.cuh"
#include "wide_traits.cuh"
#include "09_tile_scheduling/tile_scheduler.cuh"
#include "09_tile_scheduling/named_barriers.cuh"
#include "09_tile_scheduling/softmax_mask.cuh"
#include "09_tile_scheduling/epilogue.cuh"
#include "09_tile_scheduling/mainloop.cuh"
}  // namespace wide

#include "wide_choice.cuh"

namespace {

using wide::WK;
constexpr int BM = 128;   // query rows a work tile: two consumer warpgroups of 64
using WideCfg = wide::Cfg<64, 2, WK>;
// Ragged keys first (the first K/V tile holds seq_kv mod WK keys, masked), static tile
// order on a persistent grid: rung 09's non-causal ping-pong launch.
const void *const WIDE_FN = reinterpret_cast<const void *>(&wide::hopper_attention<64, 2, false, WK, WK, true>);

const attn_phase &lower = rung12_link::phase;

// Writes 1 from the sm_90a machine code, 2 from any other (init checks that the driver
// picked the code with wgmma).
__global__ void arch_probe(int *flag)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    *flag = 1;
#else
    *flag = 2;
#endif
}

// This rung's own codes; every other code is rung 12's (its error_string names it).
enum { ERR_W_CUDA = 1301, ERR_W_TMAP, ERR_W_ALIGN, ERR_W_STATE, ERR_W_ALLOC, ERR_W_SMEM, ERR_W_NOT_90A };

struct State {
    bool wide;     // this rung's kernel; else rung 12's state in inner
    void *inner;
    attn_shape shape;
    int n_qblocks, n_work, grid;
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    const void *mapped[3];
    CUtensorMap maps[3];
};

cudaError_t g_cuda = cudaSuccess;
CUresult g_cu = CUDA_SUCCESS;
bool g_last_wide = false;
char g_note[384] = "not initialised";

// The shapes this rung's kernel takes on the current device (compute capability 9.0: the
// kernel is sm_90a code), or false.
bool wide_shape(const attn_shape *s, int *sms_out)
{
    int dev = 0, major = 0, minor = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return false;
    if (major != 9 || minor != 0) return false;
    if (sms_out) *sms_out = sms;
    return wide_choice::takes(s, sms);
}

// Rung 12 declines what this rung declines: this rung's shapes are a subset of rung 09's,
// which rung 12 takes on compute capability 9.0.
const char *unsupported(const attn_shape *s) { return lower.unsupported(s); }

size_t workspace_bytes(const attn_shape *s) { return lower.workspace_bytes(s); }

// [batch * heads][rows][64] fp16, boxes of box_rows x 64 columns, 128-byte swizzle (rung
// 09's layout rule); rows past `rows` of a head are filled with zeros by the copy engine.
bool encode_map(State &st, CUtensorMap *map, const void *base, int rows, int box_rows)
{
    cuuint64_t dims[3] = {64, (cuuint64_t)rows, (cuuint64_t)st.shape.batch * (cuuint64_t)st.shape.heads};
    cuuint64_t strides[2] = {64 * 2, (cuuint64_t)rows * 64 * 2};
    cuuint32_t box[3] = {64, (cuuint32_t)box_rows, 1};
    cuuint32_t step[3] = {1, 1, 1};
    g_cu = st.encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, const_cast<void *>(base), dims, strides, box, step,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return g_cu == CUDA_SUCCESS;
}

int check_sm90a()
{
    int *flag = nullptr, host = 0;
    if ((g_cuda = cudaMalloc(&flag, sizeof(int))) != cudaSuccess) return ERR_W_CUDA;
    arch_probe<<<1, 1>>>(flag);
    if ((g_cuda = cudaGetLastError()) == cudaSuccess)
        g_cuda = cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost);
    const cudaError_t freed = cudaFree(flag);
    if (g_cuda == cudaSuccess) g_cuda = freed;
    if (g_cuda != cudaSuccess) return ERR_W_CUDA;
    return host == 1 ? 0 : ERR_W_NOT_90A;
}

int init_wide(State &st, const attn_shape *s, int sms)
{
    int dev = 0, optin = 0, per_sm = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess ||
        (g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_W_CUDA;
    if (optin < WideCfg::SMEM) return ERR_W_SMEM;
    if ((g_cuda = cudaFuncSetAttribute(WIDE_FN, cudaFuncAttributeMaxDynamicSharedMemorySize, WideCfg::SMEM)) !=
        cudaSuccess)
        return ERR_W_CUDA;
    const int rc = check_sm90a();
    if (rc) return rc;
    cudaFuncAttributes fa;
    if ((g_cuda = cudaFuncGetAttributes(&fa, WIDE_FN)) != cudaSuccess ||
        (g_cuda = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, WIDE_FN, WideCfg::THREADS, WideCfg::SMEM)) !=
            cudaSuccess)
        return ERR_W_CUDA;
    cudaDriverEntryPointQueryResult found;
    void *enc = nullptr;
    if ((g_cuda = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &enc, 12000, cudaEnableDefault, &found)) !=
        cudaSuccess)
        return ERR_W_CUDA;
    if (found != cudaDriverEntryPointSuccess || !enc) return ERR_W_TMAP;
    st.encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    st.n_qblocks = (s->seq_q + BM - 1) / BM;
    st.n_work = (int)((long)st.n_qblocks * s->batch * s->heads);   // rung 12 checked the 64-row blocks fit an int
    const long resident = (long)sms * (per_sm > 0 ? per_sm : 1);
    st.grid = st.n_work > resident ? (int)resident : st.n_work;
    snprintf(g_note, sizeof g_note,
             "wide keys: rung 09's pingpong on %d-key tiles, 2 consumer warpgroup(s), BM=%d, ragged keys first "
             "(%d keys, S %d wide), %d B shared memory, %d registers at entry (sm_90a code, wgmma), %d work tiles on "
             "%d CTAs of %d threads, programmatic dependent launch",
             WK, BM, (s->seq_kv - 1) % WK + 1, WK, WideCfg::SMEM, fa.numRegs, st.n_work, st.grid, WideCfg::THREADS);
    return 0;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return ERR_W_ALLOC;
    st->shape = *s;
    int sms = 0;
    st->wide = wide_shape(s, &sms);
    g_last_wide = st->wide;
    const int rc = st->wide ? init_wide(*st, s, sms) : lower.init(&st->inner, s);
    if (rc) {
        free(st);
        return rc;
    }
    *state = st;
    return 0;
}

int run_wide(State &st, const attn_args *a)
{
    const attn_shape &s = st.shape;
    // The tensor maps embed the addresses: encoded again (host arithmetic, nothing
    // enqueued) only when a buffer differs from the last call's.
    const void *ptr[3] = {a->q, a->k, a->v};
    const int rows[3] = {s.seq_q, s.seq_kv, s.seq_kv};
    const int box[3] = {BM, WK, WK};
    for (int i = 0; i < 3; ++i) {
        if (ptr[i] == st.mapped[i]) continue;
        if (reinterpret_cast<uintptr_t>(ptr[i]) % 16) return ERR_W_ALIGN;
        if (!encode_map(st, &st.maps[i], ptr[i], rows[i], box[i])) {
            st.mapped[i] = nullptr;
            return ERR_W_TMAP;
        }
        st.mapped[i] = ptr[i];
    }
    if (reinterpret_cast<uintptr_t>(a->o) % 4) return ERR_W_ALIGN;
    wide::Params p = {};
    p.o = static_cast<__half *>(a->o);
    p.o16 = reinterpret_cast<uintptr_t>(a->o) % 16 == 0;
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.n_qblocks = st.n_qblocks;
    p.n_work = st.n_work;
    p.group_log2 = 0;   // one head a tile group: every tile the same work (rung 09, non-causal)
    p.sched = nullptr;
    p.causal = 0;
    p.scale_log2 = s.scale * wide::LOG2E;
    p.n_dp = st.n_work;   // every tile whole: no split tail
    p.n_kt = (s.seq_kv + WK - 1) / WK;
    p.sk_units = 0;
    void *args[] = {&st.maps[0], &st.maps[1], &st.maps[2], &p};
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)st.grid);
    cfg.blockDim = dim3((unsigned)WideCfg::THREADS);
    cfg.dynamicSmemBytes = (size_t)WideCfg::SMEM;
    cfg.stream = a->stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    g_cuda = cudaLaunchKernelExC(&cfg, WIDE_FN, args);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_W_CUDA;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_W_STATE;
    State &st = *static_cast<State *>(state);
    return st.wide ? run_wide(st, a) : lower.run(st.inner, a);
}

void fini(void *state)
{
    State *st = static_cast<State *>(state);
    if (!st) return;
    if (!st->wide) lower.fini(st->inner);
    free(st);
}

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_last_wide ? g_note : lower.error_string(0);
    case ERR_W_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_W_TMAP:
        return g_cu != CUDA_SUCCESS ? "cuTensorMapEncodeTiled failed (tensor maps of Q/K/V)"
                                    : "cuTensorMapEncodeTiled not found in the driver";
    case ERR_W_ALIGN: return "q/k/v must be 16-byte aligned and o 4-byte aligned";
    case ERR_W_STATE: return "run or fini without a state from init";
    case ERR_W_ALLOC: return "out of host memory for the phase state";
    case ERR_W_SMEM: return "the device allows less dynamic shared memory per block than the kernel needs";
    case ERR_W_NOT_90A: return "the driver picked code other than sm_90a for this GPU (no wgmma path)";
    default: return lower.error_string(code);
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "13_wide_keys", "Wide keys: short D=64 prefill on rung 09's ping-pong with wider K/V tiles; rung 12 elsewhere",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
