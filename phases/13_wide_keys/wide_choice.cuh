// wide_choice.cuh: which shapes this rung's kernel takes. Rung 09 runs every D = 64
// non-causal shape whose 128-row blocks fill the GPU on two consumer warpgroups in
// ping-pong over 128-key tiles, unless 192-row blocks fit seq_q within 4% (then three
// warpgroups); rungs 10-12 pass those shapes to it unchanged. This rung takes the same
// shapes, on WK-key tiles, where they pad the keys little.
#pragma once

namespace wide_choice {

// The K/V tiles of a launch over seq_kv keys on WK-key tiles, and the columns of S they
// compute (the ragged keys go in the first tile, WK wide).
inline long wide_columns(int seq_kv) { return (long)(seq_kv + wide::WK - 1) / wide::WK * wide::WK; }

// Rung 09's choice (host_choice.cuh, auto_variant) for a D = 64 shape: the two-warpgroup
// ping-pong on a persistent grid.
inline bool rung09_pingpong(const attn_shape *s, int sms)
{
    const long blocks128 = (long)((s->seq_q + 127) / 128) * s->batch * s->heads;
    if (blocks128 < sms) return false;
    const long rows192 = (long)((s->seq_q + 191) / 192) * 192;
    return rows192 * 100 > (long)s->seq_q * 104;
}

// Taken: D = 64, not causal, more than the 16 query rows of a decode step, on rung 09's
// ping-pong, and WK-key tiles computing at most PAD_PERCENT more columns of S than 128-key
// tiles.
constexpr int PAD_PERCENT = 15;   // EXPERIMENT
inline bool takes(const attn_shape *s, int sms)
{
    if (s->head_dim != 64 || s->causal || s->seq_q <= 16 || !rung09_pingpong(s, sms)) return false;
    const long cols128 = (long)(s->seq_kv + 127) / 128 * 128;
    return wide_columns(s->seq_kv) * 100 <= cols128 * (100 + PAD_PERCENT);
}

}  // namespace wide_choice
