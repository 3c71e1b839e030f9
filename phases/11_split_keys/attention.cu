// 11_split_keys: rung 10 with one idea for shapes whose grid cannot fill the GPU however
// fast each block is: decode (every query of a step in one block of 16 rows) against long
// keys with few heads. Rung 10 runs one block a (batch, head) there, each reading its
// whole K and V alone; this rung cuts each head's keys into pieces, one block a piece, as
// many pieces as fill one wave of blocks, and merges the pieces' partial softmax (O
// unnormalised, row max, row sum, fp32 in the workspace): the last block of a head to
// finish (an arrival count a head) merges its pieces. The same idea for the wgmma kernel
// where a single head's long sequence leaves SMs idle: rung 09's kernel on one block a SM,
// every tile's keys dealt over all of them (wgmma_split.cuh). Every other shape runs rung
// 10, unchanged.
//
// The files:
//   rung10.cu         rung 10 whole (frozen), in namespace rung10, and the tables that call
//                     it and the wgmma path
//   wgmma_split.cuh   the wgmma path: which shapes, the split over every SM, its init
//   rung10.h          those tables' declarations
//   split_ptx.cuh     mma.sync, ldmatrix, cp.async, exp2, the dependent-launch pair
//   split_kernel.cuh  the piece kernel: K/V ring, S, online softmax, P V, the block's partial
//   split_merge.cuh   the merge of a head's pieces (by its last block)
//   split_choice.cuh  which shapes it takes, and into how many pieces
//   attention.cu      (this file) the phase ABI: init, run, fini
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung10.h"
#include "split_ptx.cuh"
#include "split_kernel.cuh"
#include "split_choice.cuh"

namespace {

// This rung's codes; every other code is rung 10's (below 500), passed through (the wgmma
// path's are rung 09's own, below 100, which rung 10 passes through as well).
enum { ERR_S_CUDA = 601, ERR_S_ALIGN, ERR_S_STATE, ERR_S_ALLOC, ERR_S_WORKSPACE };

const attn_phase &lower = rung10_link::phase;
const attn_phase &split09 = rung10_link::split09;

struct State {
    bool split;        // this rung's decode kernels, or a phase below (below, inner)
    const attn_phase *below;   // rung 10, or rung 09's kernel with its keys split (split09)
    void *inner;
    attn_shape shape;
    sk::SplitChoice c;
    bool pdl;          // programmatic dependent launch (compute capability 9.0)
    unsigned *arrivals;   // device: pieces done a head, zero between launches (init zeroes it)
};

cudaError_t g_cuda = cudaSuccess;
bool g_last_split = false;
const attn_phase *g_last_below = &lower;   // the phase below of the last init that took one
char g_note[512] = "not initialised";

const char *unsupported(const attn_shape *s) { return lower.unsupported(s); }

size_t workspace_bytes(const attn_shape *s)
{
    size_t w10 = lower.workspace_bytes(s);
    const size_t w09 = split09.workspace_bytes(s);
    if (w09 > w10) w10 = w09;
    sk::SplitChoice c;
    if (unsupported(s) || sk::split_choose(s, c) != cudaSuccess) return w10;
    const size_t w = sk::split_workspace(s, c);
    return w > w10 ? w : w10;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return lower.init(state, s);   // rung 10's refusal and code
    sk::SplitChoice c;
    if ((g_cuda = sk::split_choose(s, c)) != cudaSuccess) return ERR_S_CUDA;
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return ERR_S_ALLOC;
    st->shape = *s;
    st->c = c;
    if (!c.take) {
        st->below = rung10_link::split09_takes(s) ? &split09 : &lower;
        const int rc = st->below->init(&st->inner, s);
        if (rc) {
            free(st);
            return rc;
        }
        g_last_split = false;
        g_last_below = st->below;
        *state = st;
        return 0;
    }
    st->split = true;
    int dev = 0, major = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess ||
        (g_cuda = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess) {
        free(st);
        return ERR_S_CUDA;
    }
    st->pdl = major >= 9;
    const long bh = (long)s->batch * s->heads;
    if ((g_cuda = cudaMalloc(&st->arrivals, bh * sizeof(unsigned))) != cudaSuccess ||
        (g_cuda = cudaMemset(st->arrivals, 0, bh * sizeof(unsigned))) != cudaSuccess ||
        (g_cuda = cudaDeviceSynchronize()) != cudaSuccess) {
        if (st->arrivals) cudaFree(st->arrivals);
        free(st);
        return ERR_S_CUDA;
    }
    cudaFuncAttributes fa;
    if ((g_cuda = cudaFuncGetAttributes(&fa, sk::split_fn(s->head_dim))) != cudaSuccess) {
        if (st->arrivals) cudaFree(st->arrivals);
        free(st);
        return ERR_S_CUDA;
    }
    snprintf(g_note, sizeof g_note,
             "split keys: %ld heads x %d pieces of %d key tiles of %d (%d keys), %ld blocks of %d threads "
             "(%d per SM on %d SMs), %d B shared memory, %d registers; the last block of a head merges",
             bh, c.splits, c.chunk, sk::SPLIT_KT, c.chunk * sk::SPLIT_KT, bh * c.splits, sk::SPLIT_THREADS, c.per_sm,
             c.sms, sk::split_smem(s->head_dim), fa.numRegs);
    g_last_split = true;
    *state = st;
    return 0;
}

int run_split(State &st, const attn_args *a)
{
    const attn_shape &s = st.shape;
    const auto misaligned = [](const void *p, uintptr_t n) { return reinterpret_cast<uintptr_t>(p) % n != 0; };
    if (misaligned(a->q, 16) || misaligned(a->k, 16) || misaligned(a->v, 16) || misaligned(a->o, 4))
        return ERR_S_ALIGN;
    if (!a->workspace || misaligned(a->workspace, 16)) return ERR_S_WORKSPACE;
    const long bh = (long)s.batch * s.heads, rows = bh * s.seq_q;
    sk::SplitParams p;
    p.q = static_cast<const __half *>(a->q);
    p.k = static_cast<const __half *>(a->k);
    p.v = static_cast<const __half *>(a->v);
    p.o = static_cast<__half *>(a->o);
    p.part_o = static_cast<float *>(a->workspace);
    p.part_ml = reinterpret_cast<float2 *>(p.part_o + rows * st.c.splits * s.head_dim);
    p.arrivals = st.arrivals;
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.splits = st.c.splits;
    p.chunk = st.c.chunk;
    p.causal = s.causal != 0;
    p.scale_log2 = s.scale * 1.4426950408889634f;

    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)st.c.splits, (unsigned)bh);
    cfg.blockDim = dim3(sk::SPLIT_THREADS);
    cfg.dynamicSmemBytes = (size_t)sk::split_smem(s.head_dim);
    cfg.stream = a->stream;
    cfg.attrs = attr;
    cfg.numAttrs = st.pdl ? 1 : 0;
    void *args[] = {&p};
    g_cuda = cudaLaunchKernelExC(&cfg, sk::split_fn(s.head_dim), args);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_S_CUDA;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_S_STATE;
    State &st = *static_cast<State *>(state);
    return st.split ? run_split(st, a) : st.below->run(st.inner, a);
}

void fini(void *state)
{
    State *st = static_cast<State *>(state);
    if (!st) return;
    if (st->split) {
        cudaFree(st->arrivals);
    } else {
        st->below->fini(st->inner);
    }
    free(st);
}

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_last_split ? g_note : g_last_below->error_string(0);
    case ERR_S_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_S_ALIGN: return "q/k/v must be 16-byte aligned and o 4-byte aligned";
    case ERR_S_STATE: return "run called without a state (init failed or not called)";
    case ERR_S_ALLOC: return "out of host memory for the phase state";
    case ERR_S_WORKSPACE: return "the split keys need the workspace of workspace_bytes(), 16-byte aligned";
    default: return lower.error_string(code);
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "11_split_keys", "Split keys: keys cut into pieces that fill the GPU (decode; one head's long sequence), merged by max and sum",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
