// dyn_choice.cuh: which shapes this rung gives rung 09's dynamic tile scheduler, and its
// state for them. Rung 14 runs a non-causal D = 128 shape of at most 128 keys whose 128-row
// blocks fill the GPU (its short keys, key_choice.cuh) on rung 09's 128-key ping-pong in a
// static round robin: block b takes work tiles b, b + G, b + 2G, ... At 128x16x128x128
// (2048 tiles on 132 blocks) its busiest SM ran 9.4% over the average under Nsight Compute,
// cuDNN's 3.8%: 68 blocks take 16 tiles and 64 take 15 (3.1%), and the rest is SMs running
// equal tiles at different speeds while DRAM is three quarters busy. The dynamic scheduler
// (a global counter; the producer claims each next tile) gives the next tile to whichever
// block is free. Its kernel keeps one P buffer (232 registers), not two, and runs ragged
// keys as a masked last step, not a ragged first tile: with 100 keys that cost more than
// the balance saved; and where a head has more than one query block (300, 257 or 1000 rows
// of 128 keys) it ran 5.7-7.9% slower than the static order (README). So only heads of
// exactly one full work tile are taken: 128 query rows and 128 keys.
// This file is compiled inside short_dynamic.cu, where rung 09 is rung13::rung09 and rung
// 13's helpers (device_sms) are rung13::.
#pragma once

#include "14_short_keys/key_choice.cuh"

namespace short_dynamic {

namespace r9 = rung13::rung09;

// Taken: rung 14's short keys (key_choice.cuh: D = 128, not causal, more than 16 query
// rows, at most 128 keys, 128-row blocks that fill the GPU) with exactly 128 query rows and
// 128 keys, one full work tile a head. c: rung
// 09's choice turned to the 128-key ping-pong on the dynamic scheduler: persistent, no
// ragged first tile (no key is ragged), the same 128-row work tiles.
inline bool choose_dynamic(const attn_shape *s, int sms, r9::Choice &c)
{
    if (s->seq_q != r9::BN || s->seq_kv != r9::BN || !short_keys::choose_short(s, sms, c) || !c.v->fn_dyn)
        return false;
    c.dynamic = true;
    c.first = false;
    c.persistent = true;
    return true;
}

inline bool takes(const attn_shape *s)
{
    int sms = 0;
    r9::Choice c;
    return !rung13::device_sms(&sms) && choose_dynamic(s, sms, c);
}

// No split tail (the dynamic kernel has none): no workspace.
inline size_t workspace_bytes(const attn_shape *) { return 0; }

// Rung 09's init (its attention.cu) from the choice on, for the dynamic kernel: the steps
// of rung 13's init_rows, which launches the static ragged-first kernels, with rung 09's
// own allocation of the scheduler's counter {next, done} (zero between launches: the
// kernel's last block resets it). Rung 09's run and fini use the state as they find it.
inline int init(void **state, const attn_shape *s)
{
    using namespace r9;
    *state = nullptr;
    int sms = 0;
    Choice c;
    if (rung13::device_sms(&sms) || !choose_dynamic(s, sms, c)) return ERR_SHAPE;
    const Variant *v = c.v;
    const void *fn = v->fn_dyn;
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
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
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
    st->split = split_plan(s, c, st->grid);   // not first: every tile whole, no workspace
    if ((g_cuda = cudaMalloc(&st->sched, 2 * sizeof(int))) != cudaSuccess ||
        (g_cuda = cudaMemset(st->sched, 0, 2 * sizeof(int))) != cudaSuccess ||
        (g_cuda = cudaDeviceSynchronize()) != cudaSuccess) {
        cudaFree(st->sched);
        free(st);
        return ERR_CUDA;
    }
    st->encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    snprintf(g_chosen, sizeof g_chosen,
             "short keys, dynamic: %s: %d consumer warpgroup(s), BM=%d BN=%d, %d B shared memory, %d registers at "
             "entry (sm_90a code, wgmma), %d work tiles on %d CTAs of %d threads, dynamic tile scheduler, "
             "programmatic dependent launch; rung 09's kernel with step descriptors (16_step_descriptors)",
             v->name, v->ncons, st->bm, v->keys, v->smem, fa.numRegs, st->n_work, st->grid, v->threads);
    *state = st;
    return 0;
}

}  // namespace short_dynamic
