// latency_choice.cuh: which shapes the latency kernel takes, and whether a query block's
// keys are split over a cluster of two blocks. Everything else runs rung 09's choice.
#pragma once

namespace {

struct LatChoice {
    bool take = false;
    int cs = 0;         // blocks per query block: 1, or 2 (a cluster)
    long qblocks = 0;   // query blocks of 64 rows per head
};

// Taken where rung 09's grids of 128-row blocks leave SMs idle (its one-warpgroup path),
// on the shapes where it measured faster than rung 09 on the H100 (README, Outcome):
// - the keys fit one block (at most LAT_MAXT tiles, 256 keys), one block per SM at most,
//   and not causal unless one tile holds the keys (causal 1x8x256x64: rung 09's overlap of
//   S(j + 1) with the softmax of j was 6% faster than the one-pass softmax);
// - causal shapes with 3 or 4 key tiles and room for two blocks per query block: the keys
//   split over a cluster of two (the causal headline, 1x8x512x64: 3% faster); non-causal,
//   the split was 11% slower than rung 09 (the merge waits for the slower block).
LatChoice lat_choose(const attn_shape *s, int sms)
{
    LatChoice c;
    const long bh = (long)s->batch * s->heads;
    const long blocks128 = (long)((s->seq_q + 127) / 128) * bh;
    c.qblocks = (s->seq_q + 63) / 64;
    const long blocks64 = c.qblocks * bh;
    if (blocks128 >= sms || bh > 65535) return c;   // grid y is batch * heads
    const int n_kt = (s->seq_kv + LAT_KT - 1) / LAT_KT;
    if (n_kt <= LAT_MAXT && blocks64 <= sms && (!s->causal || n_kt == 1)) {
        c.take = true;
        c.cs = 1;
    } else if (s->causal && n_kt > LAT_MAXT && n_kt <= 2 * LAT_MAXT && 2 * blocks64 <= sms) {
        c.take = true;
        c.cs = 2;
    }
    return c;
}

}  // namespace
