// 12_decode_rows: rung 11 with one idea for decode: the query count, not idle SMs, picks
// the kernel. Every decode step (seq_q <= 16, the rows of one mma.sync block) runs a 16-row
// kernel, whatever the grid; where batch x heads already fill the GPU, rung 11 hands
// such a step to rung 10, whose wgmma kernel computes a 128-row query tile for one query
// row and is bound by that padded tensor work, not by the bytes of K and V. The keys are
// cut into pieces only as far as one wave of blocks needs; one piece (no split) runs this
// rung's whole-head kernel, several rung 11's split. Every other shape runs rung 11,
// unchanged.
//
// The files:
//   attention.cu      (this file) rung 11 whole (frozen), in namespace rung11, and the
//                     phase ABI: the decode paths, and rung 11 for the rest
//   decode_choice.cuh which shapes the 16-row kernels take, and into how many pieces
//   decode_kernel.cuh a whole head a block: rung 11's piece kernel with an epilogue that
//                     stores O
// and rung 11's second translation unit (its rung10.cu: rung 10 and the wgmma split path),
// linked as rung 11's build compiled it (the Makefile's PHASE_LINKS_12_decode_rows).
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

// Rung 11's tables of the rungs below (rung10_link::) are declared here, at global scope:
// its include of rung10.h below is then empty (#pragma once), and its names resolve to
// ::rung10_link, which rung 11's rung10.cu object defines, linked into this shared object as
// it is into rung 11's, not compiled again (until issue 53 this rung compiled rung10.cu again
// in namespace rung11: 92 of its 110 CPU s).
#include "11_split_keys/rung10.h"

// Rung 11 is included, not copied: the system headers above are already in, so its own
// includes of them are empty here; its entry point is renamed and not exported (this shared
// object exports only attn_phase_entry). Its split kernel, device helpers, choice record,
// state, run and fini are used as they are.
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_11
namespace rung11 {
#include "11_split_keys/attention.cu"
}  // namespace rung11
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

#include "decode_choice.cuh"
#include "decode_kernel.cuh"

namespace {

const attn_phase &lower = rung11::attn_phase_entry_11;

// A step of one piece a head runs this rung's kernel (direct); one of several pieces rung
// 11's split path, its state filled here with this rung's choice (inner); every other
// shape rung 11 (inner, from its init). Codes are rung 11's, which its error_string names.
struct State {
    bool direct;
    void *inner;
    attn_shape shape;
    bool pdl;   // programmatic dependent launch (compute capability 9.0)
};

bool g_last_decode = false;
char g_note[512] = "not initialised";

// Decode shapes on any GPU the kernels run on (sm_80 and up); the rest as rung 11 says
// (which declines every GPU but compute capability 9.0).
const char *unsupported(const attn_shape *s) { return dr::decode_shape(s) ? dr::device_reason() : lower.unsupported(s); }

size_t workspace_bytes(const attn_shape *s)
{
    const size_t w11 = lower.workspace_bytes(s);
    dr::DecodeChoice d;
    if (unsupported(s) || dr::decode_choose(s, d) != cudaSuccess || !d.take) return w11;
    const size_t w = d.c.splits > 1 ? rung11::sk::split_workspace(s, d.c) : 0;
    return w > w11 ? w : w11;
}

// Rung 11's state for its split path with this rung's choice: its run launches it, its
// fini frees it.
int init_split(State &st, const attn_shape *s, const dr::DecodeChoice &d)
{
    using rung11::g_cuda;
    rung11::State *in = static_cast<rung11::State *>(calloc(1, sizeof(rung11::State)));
    if (!in) return rung11::ERR_S_ALLOC;
    in->split = true;
    in->shape = *s;
    in->c = d.c;
    in->pdl = st.pdl;
    const long bh = (long)s->batch * s->heads;
    if ((g_cuda = cudaMalloc(&in->arrivals, bh * sizeof(unsigned))) != cudaSuccess ||
        (g_cuda = cudaMemset(in->arrivals, 0, bh * sizeof(unsigned))) != cudaSuccess ||
        (g_cuda = cudaDeviceSynchronize()) != cudaSuccess) {
        if (in->arrivals) cudaFree(in->arrivals);
        free(in);
        return rung11::ERR_S_CUDA;
    }
    st.inner = in;
    return 0;
}

// The decode paths: this rung's kernel (one piece) or rung 11's split (several).
int init_decode(State &st, const attn_shape *s, const dr::DecodeChoice &d)
{
    using rung11::g_cuda;
    int dev = 0, major = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess ||
        (g_cuda = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess)
        return rung11::ERR_S_CUDA;
    st.pdl = major >= 9;
    st.direct = d.c.splits == 1;
    const void *fn = st.direct ? dr::decode_fn(s->head_dim) : rung11::sk::split_fn(s->head_dim);
    const int smem = rung11::sk::split_smem(s->head_dim);   // the same ring and merge area
    cudaFuncAttributes fa;
    if ((g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)) != cudaSuccess ||
        (g_cuda = cudaFuncGetAttributes(&fa, fn)) != cudaSuccess)
        return rung11::ERR_S_CUDA;
    if (!st.direct) {
        const int rc = init_split(st, s, d);
        if (rc) return rc;
    }
    const rung11::sk::SplitChoice &c = d.c;
    const long bh = (long)s->batch * s->heads;
    snprintf(g_note, sizeof g_note,
             "decode rows: %ld heads x %d piece%s of %d key tiles of %d, %ld blocks of %d threads "
             "(%d per SM on %d SMs), %d B shared memory, %d registers%s",
             bh, c.splits, c.splits == 1 ? "" : "s", c.chunk, rung11::sk::SPLIT_KT, bh * c.splits,
             rung11::sk::SPLIT_THREADS, c.per_sm, c.sms, smem, fa.numRegs,
             st.direct ? "; a whole head a block, O stored by it" : "; rung 11's split, the last block of a head merges");
    return 0;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return lower.init(state, s);   // rung 11's refusal and code
    dr::DecodeChoice d;
    if ((rung11::g_cuda = dr::decode_choose(s, d)) != cudaSuccess) return rung11::ERR_S_CUDA;
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return rung11::ERR_S_ALLOC;
    st->shape = *s;
    const int rc = d.take ? init_decode(*st, s, d) : lower.init(&st->inner, s);
    if (rc) {
        free(st);
        return rc;
    }
    g_last_decode = d.take;
    *state = st;
    return 0;
}

int run_direct(const State &st, const attn_args *a)
{
    using rung11::g_cuda;
    const attn_shape &s = st.shape;
    const auto misaligned = [](const void *p, uintptr_t n) { return reinterpret_cast<uintptr_t>(p) % n != 0; };
    if (misaligned(a->q, 16) || misaligned(a->k, 16) || misaligned(a->v, 16) || misaligned(a->o, 4))
        return rung11::ERR_S_ALIGN;
    dr::DecodeParams p;
    p.q = static_cast<const __half *>(a->q);
    p.k = static_cast<const __half *>(a->k);
    p.v = static_cast<const __half *>(a->v);
    p.o = static_cast<__half *>(a->o);
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.causal = s.causal != 0;
    p.scale_log2 = s.scale * 1.4426950408889634f;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)((long)s.batch * s.heads));
    cfg.blockDim = dim3(rung11::sk::SPLIT_THREADS);
    cfg.dynamicSmemBytes = (size_t)rung11::sk::split_smem(s.head_dim);
    cfg.stream = a->stream;
    cfg.attrs = attr;
    cfg.numAttrs = st.pdl ? 1 : 0;
    void *args[] = {&p};
    g_cuda = cudaLaunchKernelExC(&cfg, dr::decode_fn(s.head_dim), args);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : rung11::ERR_S_CUDA;
}

int run(void *state, const attn_args *a)
{
    if (!state) return rung11::ERR_S_STATE;
    const State &st = *static_cast<const State *>(state);
    return st.direct ? run_direct(st, a) : lower.run(st.inner, a);
}

void fini(void *state)
{
    State *st = static_cast<State *>(state);
    if (!st) return;
    if (!st->direct) lower.fini(st->inner);
    free(st);
}

const char *error_string(int code)
{
    return code == 0 && g_last_decode ? g_note : lower.error_string(code);
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "12_decode_rows", "Decode rows: every decode step on the 16-row kernel, whatever the grid; keys split only as a wave needs",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
