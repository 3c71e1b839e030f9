// wgmma_split.cuh: the same idea for the wgmma kernel. Where a non-causal shape's work tiles
// (128 query rows at D = 128) are fewer than the SMs and long, as in a single head's long
// sequence, rung 09 runs 64-row blocks of one consumer warpgroup and rung 10 passes the shape
// to rung 08's 128-row blocks, one a SM, the rest of the SMs idle (1x1x16384x128: 128
// blocks on 132 SMs, 1.07x cuDNN, while rung 09's two-warpgroup kernel is 0.94x at
// 1x16x16384x128). Here rung 09's two- or three-warpgroup kernel (its 176-key tiles at
// D = 128, ragged keys first) runs on one block a SM, and every work tile's key tiles are
// dealt in equal ranges to all of them: its split tail with every tile in the tail. A range
// covers at most two tiles; the last warp of a tile to finish merges the pieces' partial O
// from the workspace (rung 09's epilogue). Rung 09's own plan never splits a grid smaller
// than the SMs; nothing of its kernels changes.
//
// Taken where rung 09 would take its one-warpgroup path (128-row blocks fewer than the
// SMs), non-causal (the kernels are rung 09's chained ragged-keys-first ones, at D = 128 on
// 176-key tiles, at D = 64 with three consumer warpgroups), its work tiles fewer than the
// SMs and each full of queries, and either long (at least SPLIT_MIN_KT key tiles) or
// filling at least 7/8 of the SMs. How many pieces a tile: all its key tiles dealt over
// every SM where that saves at least SPLIT_MIN_SAVED key tiles a block against whole tiles
// on one block each (the idle SMs' share, n_kt (SMs - tiles) / SMs); otherwise one piece, a
// whole tile a block. Measured (H100, paired with cuDNN in one process): the pieces, their
// second Q load and the merge cost about 11 us against whole tiles at 128 work tiles
// (1x1x16384x128: 0.965 split, 0.944 whole; 1x2x8192x128: 0.999, 0.935; 2x8x1000x128: 1.23,
// 0.84), and win where a third of the SMs or more would idle (1x3x4096x128, 96 tiles of 24
// key tiles: 0.867 split, 0.938 whole; 1x1x4096x128 0.470 against rung 10's 0.739); with
// 12 key tiles a tile rung 10's 64-row blocks are faster (1x4x2048x128: 0.757 against 0.86).
#pragma once

namespace wgmma_split {

namespace r9 = rung10::rung09;

constexpr int SPLIT_MIN_KT = 16;
constexpr long SPLIT_MIN_SAVED = 6;

// The kernel choice, the split and the grid for s on sms SMs; false where the shape is not
// taken. Rung 09's choose() with sms = 0 is its choice as if the grid filled the GPU: its
// only use of the SM count is the one-warpgroup test, which this path replaces.
inline bool plan(const attn_shape *s, int sms, r9::Choice &c, r9::Split &p, int &grid)
{
    p = r9::Split();
    grid = 0;
    if (s->causal || sms <= 0) return false;
    const long blocks128 = (long)((s->seq_q + 127) / 128) * s->batch * s->heads;
    if (blocks128 >= sms) return false;   // rung 09's own two-warpgroup path
    if (!r9::choose(s, 0, c) || !c.first || !c.v->split || c.v->ncons < 2 || c.n_work >= sms) return false;
    // Fewer queries than a work tile's rows: decode's few rows, which this rung's decode
    // kernels or rung 10's latency kernel run without the padding.
    if (s->seq_q < 64 * c.v->ncons) return false;
    const int n_kt = (s->seq_kv + c.v->keys - 1) / c.v->keys;
    const bool fills = c.n_work * 8 >= 7L * sms;
    if (n_kt < SPLIT_MIN_KT && !fills) return false;
    p.n_kt = n_kt;
    const long long units = (long long)c.n_work * n_kt;
    // (units + 1) G must fit in an int: the kernel's b U / G.
    const bool split = (long)n_kt * (sms - c.n_work) >= SPLIT_MIN_SAVED * sms && (units + 1) * sms < INT_MAX;
    if (!split) {   // whole tiles, one block each: the split kernel with no pieces
        p.n_dp = (int)c.n_work;
        grid = (int)c.n_work;
        return true;
    }
    p.n_dp = 0;
    p.units = (int)units;
    const size_t threads = 128u * (size_t)c.v->ncons;
    p.part_bytes = (size_t)sms * 2 * threads * (size_t)(s->head_dim / 8 + 1) * sizeof(float4);
    p.count_bytes = (size_t)c.n_work * c.v->ncons * 4 * sizeof(int);
    grid = sms;
    return true;
}

inline cudaError_t device_sms(int *sms)
{
    int dev = 0;
    *sms = 0;
    const cudaError_t e = cudaGetDevice(&dev);
    return e != cudaSuccess ? e : cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
}

// Whether this path takes s on the current device (false where the device cannot say).
inline bool takes(const attn_shape *s)
{
    int sms = 0, grid = 0;
    r9::Choice c;
    r9::Split p;
    return !r9::unsupported(s) && device_sms(&sms) == cudaSuccess && plan(s, sms, c, p, grid);
}

// The split kernels fill over half of an SM's shared memory (rung 09 asserts it): one block
// a SM, and a persistent grid of the SM count.
inline size_t workspace_bytes(const attn_shape *s)
{
    int sms = 0, grid = 0;
    r9::Choice c;
    r9::Split p;
    if (r9::unsupported(s) || device_sms(&sms) != cudaSuccess || !plan(s, sms, c, p, grid)) return 0;
    return p.part_bytes;
}

// Rung 09's state for this path; run(), fini() and error_string() are rung 09's own.
inline int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (r9::unsupported(s)) return r9::ERR_SHAPE;
    int sms = 0, dev = 0, optin = 0, per_sm = 0, grid = 0;
    if ((r9::g_cuda = device_sms(&sms)) != cudaSuccess || (r9::g_cuda = cudaGetDevice(&dev)) != cudaSuccess)
        return r9::ERR_CUDA;
    r9::Choice c;
    r9::Split p;
    if (!plan(s, sms, c, p, grid)) return r9::ERR_VARIANT;
    const r9::Variant *v = c.v;
    const void *fn = v->fn_first[c.width == v->keys ? 3 : c.width == 48 ? 0 : c.width == 96 ? 1 : 2];
    if (!fn) return r9::ERR_VARIANT;
    if ((r9::g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return r9::ERR_CUDA;
    if (optin < v->smem) return r9::ERR_SMEM;
    if ((r9::g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, v->smem)) != cudaSuccess)
        return r9::ERR_CUDA;
    int rc = r9::check_sm90a(fn);
    if (rc) return rc;
    cudaFuncAttributes fa;
    if ((r9::g_cuda = cudaFuncGetAttributes(&fa, fn)) != cudaSuccess ||
        (r9::g_cuda = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, v->threads, v->smem)) != cudaSuccess)
        return r9::ERR_CUDA;
    if (per_sm != 1) return r9::ERR_WORKSPACE;   // the workspace holds one block a SM
    cudaDriverEntryPointQueryResult found;
    void *enc = nullptr;
    r9::g_cuda = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &enc, 12000, cudaEnableDefault, &found);
    if (r9::g_cuda != cudaSuccess) return r9::ERR_CUDA;
    if (found != cudaDriverEntryPointSuccess || !enc) return r9::ERR_TMAP;

    r9::State *st = static_cast<r9::State *>(calloc(1, sizeof(r9::State)));
    if (!st) return r9::ERR_ALLOC;
    st->shape = *s;
    st->var = v;
    st->fn = fn;
    st->bm = 64 * v->ncons;
    st->n_qblocks = (s->seq_q + st->bm - 1) / st->bm;
    st->n_work = (int)c.n_work;
    st->grid = grid;
    st->group_log2 = 0;   // head-major, as rung 09 orders non-causal tiles
    st->split = p;
    if (p.units > 0 && ((r9::g_cuda = cudaMalloc(&st->part_count, p.count_bytes)) != cudaSuccess ||
                        (r9::g_cuda = cudaMemset(st->part_count, 0, p.count_bytes)) != cudaSuccess ||
                        (r9::g_cuda = cudaDeviceSynchronize()) != cudaSuccess)) {
        cudaFree(st->part_count);
        free(st);
        return r9::ERR_CUDA;
    }
    st->encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    char how[160];
    if (p.units > 0)
        snprintf(how, sizeof how, "%d work tiles of %d key tiles dealt over %d CTAs (%d-%d each); the last warp of "
                 "a tile merges its pieces", st->n_work, p.n_kt, grid, (int)(p.units / grid),
                 (int)((p.units + grid - 1) / grid));
    else
        snprintf(how, sizeof how, "%d work tiles of %d key tiles whole, one a CTA (%d of %d SMs)", st->n_work, p.n_kt,
                 grid, sms);
    snprintf(r9::g_chosen, sizeof r9::g_chosen,
             "keys split for the SMs: rung 09's %s (%d consumer warpgroups, BM=%d BN=%d, ragged keys first: %d keys, "
             "S %d wide), %s; CTAs of %d threads, %d B shared memory, %d registers at entry",
             v->name, v->ncons, st->bm, v->keys, c.ragged, c.width, how, v->threads, v->smem, fa.numRegs);
    *state = st;
    return 0;
}

}  // namespace wgmma_split
