// split_choice.cuh: which shapes the split kernel takes, and into how many pieces.
//
// Taken: every query of a decode step fits one block (seq_q <= 16), the keys are at least
// SPLIT_MIN_KV, and rung 10's grid, one block a (batch, head) there, leaves most SMs idle:
// batch x heads at most a quarter of the SMs at D = 128, half at D = 64 (measured, H100:
// at 1x64x1x2048x128 rung 10's 64 blocks streamed K and V at 2.7 TB/s, 24.8 us against
// this kernel's 27.5; at 8x8x1x8192x64 this kernel took 49.4 us against rung 10's 57.9;
// at 1x8x1x512x128 rung 10's one launch took 4.7 us against 5.7-6.3, at 1024 keys 10.7
// against 6.7). The pieces: as many as fill one wave of this kernel's blocks (the
// occupancy calculator's blocks per SM times the SMs), whole tiles each, none shorter than
// SPLIT_MIN_TILES tiles, at most SPLIT_MAX a head; at least two, or rung 10 runs the shape.
#pragma once

namespace sk {

constexpr int SPLIT_MIN_TILES = 4;   // 256 keys: the ring's fill is paid once a piece
constexpr int SPLIT_MIN_KV = 1024;   // shorter key ranges: rung 10's one launch is faster

struct SplitChoice {
    bool take = false;
    int splits = 0, chunk = 0, tiles = 0, per_sm = 0, sms = 0;
};

inline const void *split_fn(int d)
{
    return d == 64 ? reinterpret_cast<const void *>(&split_attention<64>)
                   : reinterpret_cast<const void *>(&split_attention<128>);
}
inline int split_smem(int d) { return d == 64 ? SplitCfg<64>::SMEM : SplitCfg<128>::SMEM; }

// The rule above for shape s on the current device; cudaSuccess unless a query failed.
inline cudaError_t split_choose(const attn_shape *s, SplitChoice &c)
{
    c = SplitChoice();
    if (s->seq_q > SPLIT_Q || s->seq_kv < SPLIT_MIN_KV || (s->head_dim != 64 && s->head_dim != 128))
        return cudaSuccess;
    const long bh = (long)s->batch * s->heads;
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, dev);
    const void *fn = split_fn(s->head_dim);
    const int smem = split_smem(s->head_dim);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.per_sm, fn, SPLIT_THREADS, (size_t)smem);
    if (e != cudaSuccess || c.per_sm < 1) return e;
    if (bh * (s->head_dim == 128 ? 4 : 2) > c.sms) return cudaSuccess;
    c.tiles = (s->seq_kv + SPLIT_KT - 1) / SPLIT_KT;
    const long by_slots = (long)c.sms * c.per_sm / bh, by_tiles = c.tiles / SPLIT_MIN_TILES;
    long sp = by_slots < by_tiles ? by_slots : by_tiles;
    if (sp > SPLIT_MAX) sp = SPLIT_MAX;
    if (sp < 2) return cudaSuccess;
    c.chunk = (int)((c.tiles + sp - 1) / sp);
    c.splits = (c.tiles + c.chunk - 1) / c.chunk;
    c.take = c.splits >= 2;
    return cudaSuccess;
}

// Workspace of a taken shape: each piece's O, m and l for every query row.
inline size_t split_workspace(const attn_shape *s, const SplitChoice &c)
{
    return c.take ? (size_t)s->batch * s->heads * s->seq_q * c.splits * (s->head_dim + 2) * sizeof(float) : 0;
}

}  // namespace sk
