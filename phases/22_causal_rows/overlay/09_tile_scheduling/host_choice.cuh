// host_choice.cuh: what the rung takes, and which kernel and grid a shape gets. Per shape
// (choose): the variant (auto_variant), the dynamic tile scheduler for causal shapes with
// two or three consumer warpgroups, ragged keys first for non-causal launches (static order),
// a persistent grid, and the split tail where the last round of work tiles would leave SMs
// idle (split_plan).
#pragma once

namespace {

struct Variant {
    const char *name;
    int d, ncons, threads, smem, keys;   // keys: per K/V tile
    // The kernels: the static tile order (causal shapes without the dynamic scheduler), the
    // dynamic tile scheduler (causal, two or three warpgroups), and ragged keys first
    // (non-causal) with a first tile's S 48, 96, 128 and `keys` wide (the narrow three:
    // 176-key tiles only). Null where the choice never takes it.
    const void *fn, *fn_dyn;
    const void *fn_first[4];
    bool split;   // the fn_first kernels split the tail (split_tail())
};

template <int D, int N, bool DYN, int KN = BN, int TW = KN, bool FIRST = false>
constexpr const void *kernel()
{
    return reinterpret_cast<const void *>(&hopper_attention<D, N, DYN, KN, TW, FIRST>);
}
// The variants the choice takes: one consumer warpgroup (small grids); three (D = 64); two
// in ping-pong, static for non-causal and dynamic for causal shapes; and two in ping-pong
// on 176-key tiles (non-causal D = 128).
// Rung 21: the three-warpgroup kernel has the dynamic scheduler too (fn_dyn), so its causal
// shapes run on a persistent grid fed by the counter, as the ping-pong's do, not one block
// per work tile (choose(): causal shapes take fn_dyn where the variant has one).
const Variant VARIANTS[] = {
    {"1wg-overlap", 64, 1, Cfg<64, 1>::THREADS, Cfg<64, 1>::SMEM, BN, kernel<64, 1, false>(), nullptr,
     {nullptr, nullptr, nullptr, kernel<64, 1, false, BN, BN, true>()}, false},
    {"1wg-overlap", 128, 1, Cfg<128, 1>::THREADS, Cfg<128, 1>::SMEM, BN, kernel<128, 1, false>(), nullptr,
     {nullptr, nullptr, nullptr, kernel<128, 1, false, BN, BN, true>()}, false},
    {"3wg", 64, 3, Cfg<64, 3>::THREADS, Cfg<64, 3>::SMEM, BN, kernel<64, 3, false>(), kernel<64, 3, true>(),
     {nullptr, nullptr, nullptr, kernel<64, 3, false, BN, BN, true>()}, split_tail<64, 3, false, BN, true>()},
    {"pingpong", 64, 2, Cfg<64, 2>::THREADS, Cfg<64, 2>::SMEM, BN, nullptr, kernel<64, 2, true>(),
     {nullptr, nullptr, nullptr, kernel<64, 2, false, BN, BN, true>()}, split_tail<64, 2, false, BN, true>()},
    {"pingpong", 128, 2, Cfg<128, 2>::THREADS, Cfg<128, 2>::SMEM, BN, nullptr, kernel<128, 2, true>(),
     {nullptr, nullptr, nullptr, kernel<128, 2, false, BN, BN, true>()}, split_tail<128, 2, false, BN, true>()},
    {"pingpong-176", 128, 2, Cfg<128, 2, 176>::THREADS, Cfg<128, 2, 176>::SMEM, 176, nullptr, nullptr,
     {kernel<128, 2, false, 176, 48, true>(), kernel<128, 2, false, 176, 96, true>(),
      kernel<128, 2, false, 176, 128, true>(), kernel<128, 2, false, 176, 176, true>()},
     split_tail<128, 2, false, 176, true>()},
};

struct Split {
    int n_dp = 0, n_kt = 0;        // whole tiles; key tiles per tile
    int units = 0;                 // the tail's key tiles; 0: no split
    size_t part_bytes = 0;         // workspace: two slots per block of (D / 8 + 1) float4 per consumer thread
    size_t count_bytes = 0;        // arrivals per tail tile and consumer warp
};

char g_arch[160];

// NULL when the current device is an sm_90 part, else why the rung declines.
const char *arch_reason()
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return "no CUDA device to query (the rung needs compute capability 9.0)";
    if (major != 9 || minor != 0) {
        snprintf(g_arch, sizeof g_arch,
                 "needs compute capability 9.0 (H100/H200: wgmma, setmaxnreg, built for sm_90a only); "
                 "this device is %d.%d", major, minor);
        return g_arch;
    }
    return nullptr;
}

const char *unsupported(const attn_shape *s)
{
    if (s->head_dim != 64 && s->head_dim != 128)
        return "head_dim must be 64 or 128 (the kernel is instantiated for those two)";
    if (s->batch < 1 || s->heads < 1 || s->seq_q < 1 || s->seq_kv < 1)
        return "batch, heads, seq_q and seq_kv must be >= 1";
    if ((long long)((s->seq_q + 63) / 64) * s->batch * s->heads > INT_MAX)
        return "more than INT_MAX blocks of 64 query rows";
    if (!(s->scale > 0.f) || !std::isfinite(s->scale))
        return "scale must be positive and finite (the row max is taken before scaling)";
    return arch_reason();
}

// The variant per shape: when 128-row blocks would leave SMs idle, 64-row blocks with one
// consumer warpgroup; otherwise the two-warpgroup ping-pong (D = 128; 176-key tiles where
// they pad the keys little) or, at D = 64, the three-warpgroup round robin where 192-row
// blocks fit seq_q well.
const char *auto_variant(const attn_shape *s, int sms)
{
    const long blocks128 = (long)((s->seq_q + 127) / 128) * s->batch * s->heads;
    if (blocks128 < sms) return "1wg-overlap";
    // Non-causal D = 128: 176-key tiles are 2.7% faster per key, and each 1% of padded key
    // columns costs 1.2-1.4%, so they are taken where they pad at most 1.5% more than
    // 128-key tiles; the ragged tile is only as wide as width176() (48, 96, 128 or 176 keys).
    if (s->head_dim == 128) {
        const long cols176 = (long)(s->seq_kv / 176) * 176 + (s->seq_kv % 176 ? width176(s->seq_kv % 176) : 0);
        const long cols128 = (long)((s->seq_kv + 127) / 128) * 128;
        return !s->causal && cols176 * 1000 <= cols128 * 1015 ? "pingpong-176" : "pingpong";
    }
    // D = 64: three warpgroups (192 rows a block) unless that pads seq_q by more than 4%.
    // Causal (rung 22): three warpgroups, on the dynamic scheduler, wherever 192-row blocks
    // hold at most 1.15x the ping-pong's 128-row blocks' rows (rung 13's bound).
    const long rows192 = (long)((s->seq_q + 191) / 192) * 192;
    if (s->causal) return rows192 * 1000 <= (long)((s->seq_q + 127) / 128) * 128 * 1150 ? "3wg" : "pingpong";
    return rows192 * 100 <= (long)s->seq_q * 104 ? "3wg" : "pingpong";
}

const Variant *pick(const attn_shape *s, int sms)
{
    const char *name = auto_variant(s, sms);
    for (const Variant &v : VARIANTS)
        if (v.d == s->head_dim && !strcmp(v.name, name)) return &v;
    return nullptr;
}

// The choices init() makes from the shape that workspace_bytes() needs too: the variant, the
// dynamic scheduler, ragged keys first, a persistent grid.
struct Choice {
    const Variant *v;
    bool dynamic, first, persistent;
    int ragged, width;   // FIRST: the first tile's keys and its S width
    long n_work;         // work tiles
};

bool choose(const attn_shape *s, int sms, Choice &c)
{
    c.v = pick(s, sms);
    if (!c.v) return false;
    // The dynamic tile scheduler (persistent grid, tiles from a global counter) for causal
    // shapes with two or (rung 21) three consumer warpgroups, whose tiles differ in work
    // (paired against the static order: 4-22% faster at three causal shapes, unchanged at
    // the fourth).
    c.dynamic = c.v->fn_dyn && s->causal != 0;
    // Non-causal launches on the static tile order: the ragged keys first, in a first tile
    // as narrow as they allow with 176-key tiles.
    c.ragged = (s->seq_kv - 1) % c.v->keys + 1;
    c.width = c.v->keys == 176 ? width176(c.ragged) : c.v->keys;
    const void *first = c.v->fn_first[c.width == c.v->keys ? 3 : c.width == 48 ? 0 : c.width == 96 ? 1 : 2];
    c.first = !s->causal && !c.dynamic && first;
    // Persistent launch for non-causal shapes and with the dynamic scheduler: as many blocks
    // as fit on the device at once, each looping over work tiles, in a static round robin or
    // from the counter; otherwise one block per tile. Causal tiles differ in work: a static
    // round robin balances them badly (a block count that divides the persistent grid sends
    // every heavy tile to one block), so causal shapes take the dynamic scheduler (two or,
    // rung 21, three consumer warpgroups; one block per tile, the hardware's dispatch, for
    // one).
    c.persistent = c.dynamic || !s->causal;
    const long bm = 64L * c.v->ncons;
    c.n_work = (s->seq_q + bm - 1) / bm * s->batch * s->heads;
    return true;
}

// The split tail. A persistent launch of G blocks over W work tiles of n key tiles each runs
// ceil(W / G) rounds, the last with only W mod G tiles: the critical path is ceil(W / G) n
// key tiles. Cut into key tiles and dealt evenly, the last round's tiles cost
// ceil((W mod G) n / G) key tiles instead of n. Taken where that saves at least two key
// tiles on the critical path (the pieces pay for a merge and for one more work-item
// boundary).
Split split_plan(const attn_shape *s, const Choice &c, long grid)
{
    Split p;
    p.n_kt = (s->seq_kv + c.v->keys - 1) / c.v->keys;
    p.n_dp = (int)c.n_work;
    if (!c.first || !c.v->split || grid <= 0 || grid >= c.n_work) return p;
    const long rem = c.n_work % grid;
    const long long units = (long long)rem * p.n_kt;
    const long long per_block = (units + grid - 1) / grid;
    // (u + 1) G must fit in an int (the kernel's unit arithmetic; seq_kv up to ~10^7 keys).
    if (rem == 0 || per_block > p.n_kt - 2 || (units + 1) * grid >= INT_MAX) return p;
    p.n_dp = (int)(c.n_work - rem);
    p.units = (int)units;
    const size_t threads = 128u * (size_t)c.v->ncons;
    p.part_bytes = (size_t)grid * 2 * threads * (size_t)(s->head_dim / 8 + 1) * sizeof(float4);
    p.count_bytes = (size_t)rem * c.v->ncons * 4 * sizeof(int);
    return p;
}

// The split kernels use over half of an SM's shared memory: one block per SM, so the
// persistent grid is the SM count (what workspace_bytes() assumes without the occupancy
// call, which needs init()'s function attributes).
static_assert(2 * Cfg<128, 2, 176>::SMEM > 228 * 1024 && 2 * Cfg<64, 3>::SMEM > 228 * 1024,
              "the split kernels run one block per SM");

size_t workspace_bytes(const attn_shape *s)
{
    int dev = 0, sms = 0;
    if (unsupported(s) || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return 0;
    Choice c;
    if (!choose(s, sms, c) || !c.persistent || c.v->ncons < 2) return 0;
    return split_plan(s, c, sms).part_bytes;
}

}  // namespace
