// 10_latency: rung 09 with one idea for short problems, where its grids leave SMs idle:
// the fixed cost of a launch cut. A query block of 64 rows is one warpgroup that loads its
// whole key range at once (no producer warpgroup, no ring), takes the softmax in one pass
// (no online rescale) and stores from registers; shapes of 512 keys split the
// keys over a thread-block cluster of two such blocks, merged through distributed shared
// memory in the same launch. Every other shape runs rung 09's kernels, unchanged.
//
// The files:
//   09_tile_scheduling/attention.cu  rung 09 whole (frozen), in namespace rung09: its kernels,
//                        its choice and its phase ABI, called for the shapes this rung passes on
//   cluster_ptx.cuh      the cluster instructions: rank, the split barrier, remote stores
//   latency_kernel.cuh   the latency kernel: loads, S, one-pass softmax, P V, the merge, the store
//   latency_choice.cuh   which shapes it takes, and which of them split over a cluster
//   attention.cu         (this file) the phase ABI: init, run, fini
#include <algorithm>
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

// Rung 09 is included, not copied: the system headers above are already in, so its own
// includes of them are empty here; its entry point is renamed and not exported (this
// shared object exports only attn_phase_entry).
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_09
namespace rung09 {
#include "09_tile_scheduling/attention.cu"
}  // namespace rung09
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

#include "cluster_ptx.cuh"
#include "latency_kernel.cuh"
#include "latency_choice.cuh"

namespace {

// Codes of this rung's own path; below 100 they are rung 09's (its init, run and strings).
enum { ERR_L_CUDA = 101, ERR_L_TMAP, ERR_L_ALIGN, ERR_L_STATE };

struct State {
    bool latency;    // this rung's kernel, or rung 09's choice (inner)
    void *inner;     // rung 09's state
    attn_shape shape;
    LatChoice lc;
    const void *fn;
    int smem;
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    const void *mapped[3];
    CUtensorMap maps[3];
};

cudaError_t g_cuda = cudaSuccess;
bool g_last_latency = false;   // which path the last successful init took (error_string(0))
char g_chosen[384] = "not initialised";

const char *unsupported(const attn_shape *s) { return rung09::unsupported(s); }
size_t workspace_bytes(const attn_shape *s) { return rung09::workspace_bytes(s); }

// The latency kernel for head_dim d (64 or 128, which unsupported() admits), nw warpgroups
// of at most ntmax key tiles each (the instantiations lat_choose takes).
template <int D> const void *lat_fn_d(int nw, int ntmax)
{
    if (nw == 1) return reinterpret_cast<const void *>(&latency_attention<D, 1, 2>);
    return ntmax == 1 ? reinterpret_cast<const void *>(&latency_attention<D, 2, 1>)
                      : reinterpret_cast<const void *>(&latency_attention<D, 2, 2>);
}
const void *lat_fn(int d, int nw, int ntmax) { return d == 64 ? lat_fn_d<64>(nw, ntmax) : lat_fn_d<128>(nw, ntmax); }

// Sets up the latency path in st; false (g_cuda set, or not) when the device cannot run
// it, and then rung 09 takes the shape.
int init_latency(State &st, const attn_shape *s, int sms, int optin)
{
    st.lc = lat_choose(s, sms, optin);
    if (!st.lc.take) return 0;
    const void *fn = lat_fn(s->head_dim, st.lc.nw, st.lc.ntmax);
    const int smem = st.lc.lay.smem;
    if ((g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)) != cudaSuccess)
        return ERR_L_CUDA;
    if (st.lc.cs > 1) {
        // The pairs must be placeable: the occupancy calculator says how many fit at once
        // (none: rung 09 takes the shape).
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3((unsigned)(st.lc.qblocks * st.lc.cs), (unsigned)(s->batch * s->heads));
        cfg.blockDim = dim3(128u * (unsigned)st.lc.nw);
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
    const long ctas = st.lc.cs * st.lc.qblocks * s->batch * s->heads;
    char split[96];
    if (st.lc.cs == 1 && st.lc.nw == 1)
        snprintf(split, sizeof split, "all %d key tile(s) of %d in one warpgroup", n_kt, LAT_KT);
    else if (st.lc.cs == 1)
        snprintf(split, sizeof split, "the %d key tiles of %d split over %d warpgroups", n_kt, LAT_KT, st.lc.nw);
    else
        snprintf(split, sizeof split, "the %d key tiles of %d split over clusters of %d CTAs of %d warpgroup(s)", n_kt,
                 LAT_KT, st.lc.cs, st.lc.nw);
    snprintf(g_chosen, sizeof g_chosen,
             "latency: 64-row query blocks, %s, each loaded at once, one-pass softmax%s; %ld CTAs of %d threads, "
             "%d B shared memory, %d registers (sm_90a code, wgmma), programmatic dependent launch triggered %s",
             split, st.lc.cs * st.lc.nw > 1 ? ", partials merged in shared memory" : ", stored from registers", ctas,
             128 * st.lc.nw, smem, fa.numRegs, st.lc.early ? "at entry" : "after the wait");
    return 0;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return rung09::ERR_SHAPE;
    int dev = 0, sms = 0, optin = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_L_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return ERR_L_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_L_CUDA;
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return rung09::ERR_ALLOC;
    st->shape = *s;
    int rc = rung09::check_sm90a(nullptr);
    if (rc == 0) rc = init_latency(*st, s, sms, optin);
    if (rc) {
        free(st);
        return rc;   // below 100: rung 09's code and its error_string
    }
    if (st->lc.take) {
        st->latency = true;
        g_last_latency = true;
        *state = st;
        return 0;
    }
    rc = rung09::init(&st->inner, s);
    if (rc) {
        free(st);
        return rc;
    }
    g_last_latency = false;
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
    p.early = st.lc.early ? 1 : 0;
    p.scale_log2 = s.scale * rung09::LOG2E;
    p.o16 = reinterpret_cast<uintptr_t>(a->o) % 16 == 0;
    p.tb = st.lc.tb;
    p.merge_off = st.lc.lay.merge_off;
    p.bar_off = st.lc.lay.bar_off;
    void *args[] = {&st.maps[0], &st.maps[1], &st.maps[2], &p};
    const long bh = (long)s.batch * s.heads;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(st.lc.qblocks * st.lc.cs), (unsigned)bh);
    cfg.blockDim = dim3(128u * (unsigned)st.lc.nw);
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
    return st.latency ? run_latency(st, a) : rung09::run(st.inner, a);
}

#ifdef LAT_TRACE
// The last launch's stamps: per stamp, the median over blocks of its time after the
// earliest block's stamp 1 (the previous launch done), and after the stamp before it (ns).
void trace_report(const State &st)
{
    static unsigned long long h[8192][11];
    if (cudaDeviceSynchronize() != cudaSuccess || cudaMemcpyFromSymbol(h, g_lat_trace, sizeof h) != cudaSuccess) return;
    const long n = std::min(8192L, st.lc.qblocks * st.lc.cs * st.shape.batch * st.shape.heads);
    unsigned long long t0 = ~0ull;
    for (long b = 0; b < n; ++b) if (h[b][1]) t0 = std::min(t0, h[b][1]);
    fprintf(stderr, "trace %s %dx%dx%d:%dx%d c%d cs=%d nw=%d blocks=%ld\n", DEV_NAME, st.shape.batch, st.shape.heads, st.shape.seq_q,
            st.shape.seq_kv, st.shape.head_dim, st.shape.causal, st.lc.cs, st.lc.nw, n);
    static long long a[8192], d[8192];
    for (int k = 0; k < 10; ++k) {
        long m = 0, md = 0;
        for (long b = 0; b < n; ++b) {
            if (!h[b][k]) continue;
            a[m++] = (long long)h[b][k] - (long long)t0;
            int j = k - 1;
            while (j >= 0 && !h[b][j]) --j;
            if (j >= 0) d[md++] = (long long)(h[b][k] - h[b][j]);
        }
        if (!m) continue;
        std::sort(a, a + m);
        std::sort(d, d + md);
        fprintf(stderr, "  stamp %d (%ld blocks): after first start median %lld min %lld max %lld; after previous stamp median %lld max %lld\n", k,
                m, a[m / 2], a[0], a[m - 1], md ? d[md / 2] : 0, md ? d[md - 1] : 0);
    }
    static int per_sm[1024];
    memset(per_sm, 0, sizeof per_sm);
    for (long b = 0; b < n; ++b) if (h[b][10] && h[b][10] <= 1024) per_sm[h[b][10] - 1]++;
    long shared = 0, ns = 0, nd = 0;
    long long es = 0, ed = 0;
    for (long b = 0; b < n; ++b) {
        if (!h[b][10] || h[b][10] > 1024 || !h[b][9]) continue;
        const long long e = (long long)h[b][9] - (long long)t0;
        if (per_sm[h[b][10] - 1] > 1) ++shared, ++nd, ed += e;
        else ++ns, es += e;
    }
    fprintf(stderr, "  blocks on a shared SM: %ld of %ld; mean end: alone %lld ns, shared %lld ns\n", shared, n,
            ns ? es / ns : 0, nd ? ed / nd : 0);
    static unsigned long long z[8192][11];
    cudaMemcpyToSymbol(g_lat_trace, z, sizeof z);
}
#endif

void fini(void *state)
{
    State *st = static_cast<State *>(state);
    if (!st) return;
#ifdef LAT_TRACE
    if (st->latency) trace_report(*st);
#endif
    if (!st->latency) rung09::fini(st->inner);
    free(st);
}

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_last_latency ? g_chosen : rung09::error_string(0);
    case ERR_L_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_L_TMAP: return "cuTensorMapEncodeTiled failed or not found in the driver (tensor maps of Q/K/V)";
    case ERR_L_ALIGN: return "q/k/v must be 16-byte aligned and o 4-byte aligned";
    case ERR_L_STATE: return "run called without a state (init failed or not called)";
    default: return rung09::error_string(code);
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, DEV_NAME, "Hopper latency: one-pass blocks for short key ranges, causal keys split over a cluster pair",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
