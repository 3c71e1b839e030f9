// latency_choice.cuh: which shapes the latency kernel takes, and whether a query block's
// keys are split over a cluster of two blocks. Everything else runs rung 09's choice.
#pragma once

namespace {

struct LatChoice {
    bool take = false;
    int cs = 0;         // blocks per query block: 1, or 2 (a cluster)
    long qblocks = 0;   // query blocks of 64 rows per head
    bool early = false; // the dependent launch triggered at entry (LatParams::early)
};

// Taken where rung 09's grids of 128-row blocks leave SMs idle (its one-warpgroup path),
// on the shapes where it measured faster than rung 09 on the H100 (README, Outcome):
// - the keys fit one block (at most LAT_MAXT tiles, 256 keys) and the grid is at most 40
//   blocks (at 64 blocks, 2x8x256x64 causal, and at 128, 4x8x256x64, rung 09 was 4-7%
//   faster; at 32-40 the one-block path was 2-14% faster);
// - shapes of 512 keys, two whole tiles for each block of a cluster pair, with room for two
//   blocks per query block (causal: 7-11% faster at six such shapes; with 3 or 3.5 tiles,
//   split unevenly, 3-24% slower; non-causal: 3-11% faster at three, once the dependent
//   launch is triggered after the wait).
// The trigger: after the wait, except the causal pairs (at entry: 2.4% faster at the
// causal headline, the same at 1x4x512x64 and 1x8x512x128 causal).
LatChoice lat_choose(const attn_shape *s, int sms)
{
    LatChoice c;
    const long bh = (long)s->batch * s->heads;
    const long blocks128 = (long)((s->seq_q + 127) / 128) * bh;
    c.qblocks = (s->seq_q + 63) / 64;
    const long blocks64 = c.qblocks * bh;
    if (blocks128 >= sms || bh > 65535) return c;   // grid y is batch * heads
    const int n_kt = (s->seq_kv + LAT_KT - 1) / LAT_KT;
    if (n_kt <= LAT_MAXT && blocks64 <= 40) {
        c.take = true;
        c.cs = 1;
    } else if (s->seq_kv == 2 * LAT_MAXT * LAT_KT && 2 * blocks64 <= sms) {
        c.take = true;
        c.cs = 2;
        c.early = s->causal != 0;
    }
    return c;
}

}  // namespace
