// decode_choice.cuh: which shapes run the 16-row kernels (decode_kernel.cuh's, rung 11's),
// and into how many pieces each head's keys are cut.
//
// Taken: every query of the step fits the kernel's one m16 tile (seq_q <= 16), D = 64 or
// 128, and batch x heads fits the grid's y dimension: whatever the grid, so rung 10's
// 128-row wgmma tiles (127 of every 128 rows padding at one query) never run a decode
// step. One exception on Hopper, rung 11's measured one: keys shorter than 1024 with the
// heads short of a full wave go to rung 11 (rung 10's one cluster launch is faster there).
// Between rung 11's split (at most a quarter of the SMs' worth of heads at D = 128, half at
// D = 64) and a full GPU, rung 10 runs one block a SM, which rung 11 measured streaming
// faster than its split at 1x64x1x2048x128 on an H100 (24.8 us against 27.5): this rung
// takes that zone too (the idea: the query count picks the kernel), and ZONE_TO_RUNG11
// gives it back, should the measurement (README, Outcome) say so.
//
// The pieces: the kernel streams K and V, so a head needs pieces only until the SMs hold
// enough bytes in flight. Each resident block keeps its ring's next two tiles in flight
// (64 KB of K and V at D = 128, 32 KB at D = 64); a full wave of blocks (2 / 4 a SM from the
// occupancy calculator) is 128 KB a SM, and half a wave, 64 KB a SM (8.4 MB over 132 SMs),
// is already above what the copy needs at 4.8 TB/s and ~1.5 us of loaded latency (~7 MB).
// So: pieces = the wave's block slots over the heads, rounded down, at least 1 (one piece:
// no split, decode_kernel.cuh's whole head a block; more: rung 11's split and merge),
// whole tiles of 64 keys, none under rung 11's four tiles, at most its 256.
#pragma once

namespace dr {

namespace sk = rung11::sk;

constexpr long GRID_Y_MAX = 65535;   // blocks of a launch's y dimension: one a batch x head
constexpr bool ZONE_TO_RUNG11 = true;    // the zone above: false, this rung's kernel
// The zone is given back only up to this many keys: the two sweep points measured slower
// than rung 10 there have 1024 and 4096 keys; at 8192 (16x8x1x8192x64) this rung's kernel
// read 0.917 of cuDNN against rung 10's 0.955 and rung 07's 0.939 (README, Outcome).
constexpr long ZONE_MAX_KV = 4096;

struct DecodeChoice {
    bool take = false;
    sk::SplitChoice c;   // rung 11's choice record: its run launches from it
};

// The shape checks of the kernel alone (no device query): true when it can run s.
inline bool decode_shape(const attn_shape *s)
{
    if (s->head_dim != 64 && s->head_dim != 128) return false;
    if (s->batch < 1 || s->heads < 1 || s->seq_q < 1 || s->seq_kv < 1) return false;
    if (s->seq_q > sk::SPLIT_Q || (long)s->batch * s->heads > GRID_Y_MAX) return false;
    return s->scale > 0.f && std::isfinite(s->scale);
}

// Rung 11 splits this step itself (split_choice.cuh's grid rule: at most a quarter of the
// SMs' worth of heads at D = 128, half at D = 64).
inline bool rung11_splits(const attn_shape *s, long bh, int sms)
{
    return bh * (s->head_dim == 128 ? 4 : 2) <= sms && s->seq_kv >= sk::SPLIT_MIN_KV;
}

// NULL when the current device runs the 16-row kernels (compute capability 8.0 or newer:
// mma.sync m16n8k16, ldmatrix, cp.async), else why not.
inline const char *device_reason()
{
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
        return "no CUDA device to query (the decode kernels need compute capability 8.0 or newer)";
    return major >= 8 ? nullptr : "the decode kernels need compute capability 8.0 or newer (mma.sync, cp.async)";
}

// Compute capability 9.0: rung 11 runs there, and the short-key exception applies.
inline cudaError_t is_hopper(bool &h)
{
    int dev = 0, major = 0, minor = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    h = major == 9 && minor == 0;
    return e;
}

// Pieces of tiles key tiles for bh heads on slots block slots (the rule above).
inline void decode_pieces(long bh, long slots, sk::SplitChoice &c)
{
    long sp = slots / bh;
    const long by_tiles = c.tiles / sk::SPLIT_MIN_TILES;
    if (sp > by_tiles) sp = by_tiles;
    if (sp > sk::SPLIT_MAX) sp = sk::SPLIT_MAX;
    if (sp < 1) sp = 1;
    c.chunk = (int)((c.tiles + sp - 1) / sp);
    c.splits = (c.tiles + c.chunk - 1) / c.chunk;
    c.take = true;
}

// The rule above for s on the current device; cudaSuccess unless a query failed.
inline cudaError_t decode_choose(const attn_shape *s, DecodeChoice &d)
{
    d = DecodeChoice();
    if (!decode_shape(s)) return cudaSuccess;
    sk::SplitChoice &c = d.c;
    bool hopper = false;
    int dev = 0;
    cudaError_t e = is_hopper(hopper);
    if (e == cudaSuccess) e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, dev);
    const void *fn = sk::split_fn(s->head_dim);
    const int smem = sk::split_smem(s->head_dim);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.per_sm, fn, sk::SPLIT_THREADS, (size_t)smem);
    if (e != cudaSuccess || c.per_sm < 1) return e;
    const long bh = (long)s->batch * s->heads, slots = (long)c.sms * c.per_sm;
    if (hopper && s->seq_kv < sk::SPLIT_MIN_KV && bh < slots) return cudaSuccess;
    if (ZONE_TO_RUNG11 && hopper && bh < c.sms && !rung11_splits(s, bh, c.sms) && s->seq_kv <= ZONE_MAX_KV)
        return cudaSuccess;
    c.tiles = (s->seq_kv + sk::SPLIT_KT - 1) / sk::SPLIT_KT;
    decode_pieces(bh, slots, c);
    d.take = true;
    return cudaSuccess;
}

}  // namespace dr
