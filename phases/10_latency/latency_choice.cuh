// latency_choice.cuh: which shapes the latency kernel takes, and the shape of its clusters.
// Everything else runs rung 09's choice.
#pragma once

namespace {

struct LatChoice {
    bool take = false;
    int cs = 0, cq = 0;   // a cluster: cs key splits of each of cq query blocks
    long groups = 0;      // clusters along x (query-block groups of a head)
};

// Taken where rung 09's grids of 128-row blocks leave SMs idle (its one-warpgroup path)
// and the keys fit: at most LAT_MAXT tiles a block. The key splits are the fewest that
// hold the keys; the query blocks that share the K/V loads as many as a cluster of at most
// `max_cluster` blocks takes (no more than the head has).
LatChoice lat_choose(const attn_shape *s, int sms, int max_cluster)
{
    LatChoice c;
    const long bh = (long)s->batch * s->heads;
    const long blocks128 = (long)((s->seq_q + 127) / 128) * bh;
    if (blocks128 >= sms || bh > 65535) return c;   // grid y is batch * heads
    const int n_kt = (s->seq_kv + LAT_KT - 1) / LAT_KT;
    const int n_qb = (s->seq_q + 63) / 64;
    int cs = 1;
    while (cs < 4 && cs < max_cluster && (n_kt + cs - 1) / cs > LAT_MAXT) cs *= 2;   // the merge takes 1, 2 or 4
    if ((n_kt + cs - 1) / cs > LAT_MAXT) return c;
    int cq = 1;
    while (cs * cq * 2 <= max_cluster && cq < n_qb) cq *= 2;
    c.take = true;
    c.cs = cs;
    c.cq = cq;
    c.groups = (n_qb + cq - 1) / cq;
    return c;
}

}  // namespace
