// 10_latency: rung 09 with one idea for short problems, where its grids leave SMs idle:
// the fixed cost of a launch cut. A query block of 64 rows is one warpgroup that loads its
// whole key range at once (no producer warpgroup, no ring), takes the softmax in one pass
// (no online rescale) and stores from registers; shapes of 512 keys split the
// keys over a thread-block cluster of two such blocks, merged through distributed shared
// memory in the same launch. Every other shape runs a rung below, unchanged: rung 09's
// kernels; rung 06's where rung 09's 64-row grid would fill at most a quarter of the SMs
// and rung 06's 16-row blocks, their keys split over four warps, measured faster; or rung
// 07's or 08's where rung 09's one-warpgroup blocks need more than one wave and theirs fit
// in one.
//
// The files:
//   09_tile_scheduling/attention.cu  rung 09 whole (frozen), in namespace rung09: its kernels,
//                        its choice and its phase ABI, called for the shapes this rung passes on
//   06_tiling/attention.cu, 07_wgmma_tma/attention.cu, 08_warpgroup_pingpong/attention.cu
//                        rungs 06, 07 and 08 whole (frozen), in namespaces rung06, rung07
//                        and rung08, the same way
//   cluster_ptx.cuh      the cluster instructions: rank, the split barrier, remote stores
//   latency_kernel.cuh   the latency kernel: loads, S, one-pass softmax, P V, the merge, the store
//   latency_choice.cuh   which shapes it takes, and which of them split over a cluster
//   delegate_choice.cuh  which rung below runs the shapes it does not take
//   attention.cu         (this file) the phase ABI: init, run, fini
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

// Rungs 09, 06, 07 and 08 are included, not copied, each in its own namespace: the system
// headers above are already in, so their own includes of them are empty here (each rung's
// hopper_ptx.cuh or mma_ptx.cuh is its own file, found beside its attention.cu); their entry points are
// renamed and not exported (this shared object exports only attn_phase_entry).
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_09
namespace rung09 {
#include "09_tile_scheduling/attention.cu"
}  // namespace rung09
#undef attn_phase_entry
#define attn_phase_entry attn_phase_entry_06
namespace rung06 {
#include "06_tiling/attention.cu"
}  // namespace rung06
#undef attn_phase_entry
#define attn_phase_entry attn_phase_entry_07
namespace rung07 {
#include "07_wgmma_tma/attention.cu"
}  // namespace rung07
#undef attn_phase_entry
#define attn_phase_entry attn_phase_entry_08
namespace rung08 {
#include "08_warpgroup_pingpong/attention.cu"
}  // namespace rung08
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

#include "cluster_ptx.cuh"
#include "latency_kernel.cuh"
#include "latency_choice.cuh"
#include "delegate_choice.cuh"

namespace {

// Codes of this rung's own path. Below 100 they are rung 09's (its init, run and strings);
// 201-299 rung 07's codes plus 200, 301-399 rung 08's plus 300, 401-499 rung 06's plus 400
// (Lower::offset).
enum { ERR_L_CUDA = 101, ERR_L_TMAP, ERR_L_ALIGN, ERR_L_STATE };

// A rung below, through its own phase ABI: its entry point (renamed, not exported), the
// offset its error codes carry here, and the codes of its init that say it declines the
// shape or the device (then rung 09 runs the shape, as it would have without the rule).
struct Lower {
    const attn_phase *ph;
    int offset;
    int decline[3];
};
const Lower LOWER_09 = {&rung09::attn_phase_entry_09, 0, {0, 0, 0}};
const Lower LOWER_07 = {&rung07::attn_phase_entry_07, 200, {rung07::ERR_SHAPE, rung07::ERR_SMEM, rung07::ERR_NOT_90A}};
const Lower LOWER_08 = {&rung08::attn_phase_entry_08, 300, {rung08::ERR_SHAPE, rung08::ERR_SMEM, rung08::ERR_NOT_90A}};
const Lower LOWER_06 = {&rung06::attn_phase_entry_06, 400, {rung06::ERR_SHAPE, rung06::ERR_ARCH, rung06::ERR_SHAPE}};

int lower_code(const Lower *in, int rc) { return rc ? rc + in->offset : 0; }

struct State {
    const Lower *lower;   // the rung below that runs the shape, or NULL: this rung's kernel
    void *inner;          // its state
    attn_shape shape;
    LatChoice lc;
    const void *fn;
    int smem;
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    const void *mapped[3];
    CUtensorMap maps[3];
};

cudaError_t g_cuda = cudaSuccess;
// Which path the last successful init took, for error_string(0): this rung's kernel
// (g_chosen), rung 09 (its own note), or rung 07 or 08 (g_passed: which, why, its note).
enum { LAST_LATENCY, LAST_09, LAST_PASSED } g_last = LAST_09;
char g_chosen[384] = "not initialised";
char g_passed[768];
char g_lower_error[320];

const char *unsupported(const attn_shape *s) { return rung09::unsupported(s); }
// Rung 09's workspace, or rung 06's where that is larger: rung 06's table never splits keys
// across blocks (no workspace), but its tuning override (ATTN06_CONFIG) may.
size_t workspace_bytes(const attn_shape *s)
{
    const size_t w09 = rung09::workspace_bytes(s), w06 = rung06::workspace_bytes(s);
    return w06 > w09 ? w06 : w09;
}

// The latency kernel for head_dim d (64 or 128, which unsupported() admits) and its shared memory.
const void *lat_fn(int d)
{
    return d == 64 ? reinterpret_cast<const void *>(&latency_attention<64>)
                   : reinterpret_cast<const void *>(&latency_attention<128>);
}
int lat_smem(int d) { return d == 64 ? LatCfg<64>::SMEM : LatCfg<128>::SMEM; }

// Sets up the latency path in st; false (g_cuda set, or not) when the device cannot run
// it, and then rung 09 takes the shape.
int init_latency(State &st, const attn_shape *s, int sms)
{
    st.lc = lat_choose(s, sms);
    if (!st.lc.take) return 0;
    // The sm_90a code must be what the device runs (rung 09's probe; below 100: its code).
    // Only here: a shape passed on is probed by the rung that takes it.
    const int arch = rung09::check_sm90a(nullptr);
    if (arch) return arch;
    const void *fn = lat_fn(s->head_dim);
    const int smem = lat_smem(s->head_dim);
    if ((g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)) != cudaSuccess)
        return ERR_L_CUDA;
    if (st.lc.cs > 1) {
        // The pairs must be placeable: the occupancy calculator says how many fit at once
        // (none: rung 09 takes the shape).
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3((unsigned)(st.lc.qblocks * st.lc.cs), (unsigned)(s->batch * s->heads));
        cfg.blockDim = dim3(128);
        cfg.dynamicSmemBytes = (size_t)smem;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = (unsigned)st.lc.cs;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int clusters = 0;
        if ((g_cuda = cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg)) != cudaSuccess) return ERR_L_CUDA;
        if (clusters < 1) {
            st.lc.take = false;
            return 0;
        }
    }
    cudaDriverEntryPointQueryResult found;
    void *enc = nullptr;
    if ((g_cuda = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &enc, 12000, cudaEnableDefault, &found)) !=
        cudaSuccess)
        return ERR_L_CUDA;
    if (found != cudaDriverEntryPointSuccess || !enc) return ERR_L_TMAP;
    st.encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    st.fn = fn;
    st.smem = smem;
    cudaFuncAttributes fa;
    if ((g_cuda = cudaFuncGetAttributes(&fa, fn)) != cudaSuccess) return ERR_L_CUDA;
    const int n_kt = (s->seq_kv + LAT_KT - 1) / LAT_KT;
    if (st.lc.cs == 1)
        snprintf(g_chosen, sizeof g_chosen,
                 "latency: 64-row query blocks, all %d key tile(s) of %d loaded at once, one-pass softmax, "
                 "stored from registers; %ld CTAs of 128 threads, %d B shared memory, %d registers "
                 "(sm_90a code, wgmma), programmatic dependent launch triggered after the wait",
                 n_kt, LAT_KT, st.lc.qblocks * s->batch * s->heads, smem, fa.numRegs);
    else
        snprintf(g_chosen, sizeof g_chosen,
                 "latency-cluster: 64-row query blocks, the %d key tiles of %d split over clusters of 2 CTAs, "
                 "each loaded at once, one-pass softmax, partials merged by asynchronous stores into distributed shared memory; "
                 "%ld CTAs of 128 threads, %d B shared memory, %d registers (sm_90a code, wgmma), "
                 "programmatic dependent launch triggered after the wait",
                 n_kt, LAT_KT, 2 * st.lc.qblocks * s->batch * s->heads, smem, fa.numRegs);
    return 0;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return rung09::ERR_SHAPE;
    int dev = 0, sms = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_L_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return ERR_L_CUDA;
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return rung09::ERR_ALLOC;
    st->shape = *s;
    int rc = init_latency(*st, s, sms);
    if (rc) {
        free(st);
        return rc;   // below 100: rung 09's code and its error_string
    }
    if (st->lc.take) {
        g_last = LAST_LATENCY;
        *state = st;
        return 0;
    }
    DelegateChoice d;
    if ((g_cuda = delegate_choose(s, sms, d)) != cudaSuccess) {
        free(st);
        return ERR_L_CUDA;
    }
    if (d.rung != DELEGATE_09) {
        const Lower *in = d.rung == DELEGATE_06 ? &LOWER_06 : d.rung == DELEGATE_07 ? &LOWER_07 : &LOWER_08;
        rc = in->ph->init(&st->inner, s);
        if (rc == 0) {
            st->lower = in;
            delegate_note(g_passed, sizeof g_passed, d, sms, in->ph->name, in->ph->error_string(0));
            g_last = LAST_PASSED;
            *state = st;
            return 0;
        }
        const bool declined = rc == in->decline[0] || rc == in->decline[1] || rc == in->decline[2];
        if (!declined) {
            free(st);
            return lower_code(in, rc);
        }
        st->inner = nullptr;   // declined: rung 09 runs the shape
    }
    rc = rung09::init(&st->inner, s);
    if (rc) {
        free(st);
        return rc;
    }
    st->lower = &LOWER_09;
    g_last = LAST_09;
    *state = st;
    return 0;
}

// [batch * heads][rows][D] fp16, boxes of box_rows x 64 columns, 128-byte swizzle (rung
// 09's layout rule); rows past a head's plane come in as zeros.
bool encode_map(State &st, CUtensorMap *map, const void *base, int rows, int box_rows)
{
    const int D = st.shape.head_dim;
    cuuint64_t dims[3] = {(cuuint64_t)D, (cuuint64_t)rows, (cuuint64_t)st.shape.batch * (cuuint64_t)st.shape.heads};
    cuuint64_t strides[2] = {(cuuint64_t)D * 2, (cuuint64_t)rows * D * 2};
    cuuint32_t box[3] = {64, (cuuint32_t)box_rows, 1};
    cuuint32_t step[3] = {1, 1, 1};
    return st.encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, const_cast<void *>(base), dims, strides, box, step,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

int run_latency(State &st, const attn_args *a)
{
    const attn_shape &s = st.shape;
    const void *ptr[3] = {a->q, a->k, a->v};
    const int rows[3] = {s.seq_q, s.seq_kv, s.seq_kv};
    const int box[3] = {64, LAT_KT, LAT_KT};
    for (int i = 0; i < 3; ++i) {
        if (ptr[i] == st.mapped[i]) continue;
        if (reinterpret_cast<uintptr_t>(ptr[i]) % 16) return ERR_L_ALIGN;
        if (!encode_map(st, &st.maps[i], ptr[i], rows[i], box[i])) {
            st.mapped[i] = nullptr;
            return ERR_L_TMAP;
        }
        st.mapped[i] = ptr[i];
    }
    if (reinterpret_cast<uintptr_t>(a->o) % 4) return ERR_L_ALIGN;
    LatParams p;
    p.o = static_cast<__half *>(a->o);
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.causal = s.causal != 0;
    p.cs = st.lc.cs;
    p.scale_log2 = s.scale * rung09::LOG2E;
    p.o16 = reinterpret_cast<uintptr_t>(a->o) % 16 == 0;
    void *args[] = {&st.maps[0], &st.maps[1], &st.maps[2], &p};
    const long bh = (long)s.batch * s.heads;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(st.lc.qblocks * st.lc.cs), (unsigned)bh);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = (size_t)st.smem;
    cfg.stream = a->stream;
    cudaLaunchAttribute attr[2];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    attr[1].id = cudaLaunchAttributeClusterDimension;   // the pairs; one block per query block: no cluster
    attr[1].val.clusterDim.x = (unsigned)st.lc.cs;
    attr[1].val.clusterDim.y = 1;
    attr[1].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = st.lc.cs > 1 ? 2 : 1;
    g_cuda = cudaLaunchKernelExC(&cfg, st.fn, args);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_L_CUDA;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_L_STATE;
    State &st = *static_cast<State *>(state);
    return st.lower ? lower_code(st.lower, st.lower->ph->run(st.inner, a)) : run_latency(st, a);
}

void fini(void *state)
{
    State *st = static_cast<State *>(state);
    if (!st) return;
    if (st->lower) st->lower->ph->fini(st->inner);
    free(st);
}

// A code of rung 07 or 08 (offset on), named with the rung it came from.
const char *lower_error(const Lower *in, int code)
{
    snprintf(g_lower_error, sizeof g_lower_error, "%s: %s", in->ph->name, in->ph->error_string(code - in->offset));
    return g_lower_error;
}

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_last == LAST_LATENCY ? g_chosen : g_last == LAST_PASSED ? g_passed : rung09::error_string(0);
    case ERR_L_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_L_TMAP: return "cuTensorMapEncodeTiled failed or not found in the driver (tensor maps of Q/K/V)";
    case ERR_L_ALIGN: return "q/k/v must be 16-byte aligned and o 4-byte aligned";
    case ERR_L_STATE: return "run called without a state (init failed or not called)";
    default:
        if (code > LOWER_06.offset && code < LOWER_06.offset + 100) return lower_error(&LOWER_06, code);
        if (code > LOWER_08.offset && code < LOWER_08.offset + 100) return lower_error(&LOWER_08, code);
        if (code > LOWER_07.offset && code < LOWER_07.offset + 100) return lower_error(&LOWER_07, code);
        return rung09::error_string(code);
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "10_latency", "Hopper latency: one-pass blocks for short key ranges, keys of 512 split over a cluster pair",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
