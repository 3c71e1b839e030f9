// row_choice.cuh: which shapes this rung gives rung 09's three-warpgroup kernel. Rung 09
// picks it at D = 64 only where its 192-row blocks pad seq_q by at most 4%, and runs every
// other D = 64 shape that fills the GPU on two warpgroups in ping-pong over 128-row blocks
// (rungs 10-12 pass those shapes to it unchanged). Measured per padded row (README), the
// 192-row kernel costs 0.82-0.85 of the ping-pong's: it is the faster one wherever its
// rows are fewer than 1 / 0.85 of the ping-pong's. Not causal: there the ping-pong takes
// rung 09's dynamic tile scheduler, which the 192-row kernel has not (+11.8% measured).
#pragma once

namespace rows {

// 192-row blocks at most ROWS_MAX_PERMILLE / 1000 of the ping-pong's 128-row blocks' rows:
// 1.15, under the 1.18 where the two would tie, for the spread of the measured costs.
constexpr long ROWS_MAX_PERMILLE = 1150;

// Taken: D = 64, not causal, more query rows than a decode step's 16 (rung 12's), a shape
// on which rung 09 chose the ping-pong (c: its choice), and 192-row blocks within the bound.
inline bool takes(const attn_shape *s, const rung09::Choice &c)
{
    if (s->head_dim != 64 || s->causal || s->seq_q <= 16 || c.v->ncons != 2) return false;
    const long rows192 = (long)((s->seq_q + 191) / 192) * 192;
    const long rows128 = (long)((s->seq_q + 127) / 128) * 128;
    return rows192 * 1000 <= rows128 * ROWS_MAX_PERMILLE;
}

// Rung 09's choice for the shape, with its three-warpgroup kernel where this rung takes the
// shape (taken: whether it did). False where rung 09 has no choice (it declines the shape).
inline bool choose(const attn_shape *s, int sms, rung09::Choice &c, bool &taken)
{
    taken = false;
    if (rung09::unsupported(s) || !rung09::choose(s, sms, c)) return false;
    if (!takes(s, c)) return true;
    for (const rung09::Variant &v : rung09::VARIANTS)
        if (v.d == 64 && v.ncons == 3) c.v = &v;
    if (c.v->ncons != 3) return false;
    c.dynamic = false;
    c.ragged = (s->seq_kv - 1) % c.v->keys + 1;
    c.width = c.v->keys;
    c.first = true;        // ragged keys first, on the static order (not causal)
    c.persistent = true;   // one block per SM looping over the work tiles
    c.n_work = (s->seq_q + 191) / 192 * (long)s->batch * s->heads;
    taken = true;
    return true;
}

}  // namespace rows
