// tail_choice.cuh: which shapes this rung takes, and how it cuts their rows. Compiled
// inside row_tail.cu, where rung 13 is rung13:: (its helpers device_sms and init_rows),
// rung 09 rung13::rung09::, and rung 15's choice and two-Q-buffer kernels q_ahead:: and
// rung13::rung09::qahead::.
//
// Rung 15 runs a non-causal D = 64 prefill that fills the GPU on the three-warpgroup kernel
// (192-row blocks, two Q buffers, work tiles chained, the split tail) wherever rung 09 or
// rung 13's row rule chose it: where 192 does not divide seq_q, each head's last block
// holds fewer rows than 192, and its padding is computed in full (a warpgroup of padded
// rows costs nearly a full one: rung 15's README). 16x32x1024x64: six blocks a head for
// 1024 rows, 1152 rows computed.
//
// The cut: where 64 divides seq_q, its rows are 192 a + 128 b exactly with b = 1 or 2 (b
// the least that leaves a multiple of 192): each head's first 128 b rows run on rung 15's
// two-warpgroup ping-pong (128-row blocks, two Q buffers), the other 192 a rows on its
// three-warpgroup kernel, nothing padded. 1024 = 4 x 192 + 2 x 128. The two launches run
// side by side, on two streams, each on its share of the SMs (one block a SM either way):
// one after the other, each persistent launch pays its pipeline's fill and drain, about
// 14-22 us under Nsight Compute at 1024 keys (the intercepts of its time against its work
// tiles; README), which ate the whole gain at 16x32x1024x64.
//
// Taken where rung 15's choice is the three-warpgroup kernel, 192 does not divide seq_q, 64
// does, a >= 1, and the work the cut leaves is at most TAKE_PERMILLE of the uncut's: a
// 128-row ping-pong tile costs PINGPONG_PERMILLE / 1000 of a 192-row tile (the slopes of
// those times: 105.6 and 128.2 us a 1024 tiles, 0.82; rung 13 measured 0.80). The SMs are
// shared in proportion to the two launches' work.
#pragma once

namespace row_tail {

namespace r9 = rung13::rung09;

constexpr int FULL_ROWS = 192;   // the three-warpgroup kernel's block
constexpr int PP_ROWS = 128;     // the ping-pong's
constexpr long PINGPONG_PERMILLE = 820;
constexpr long TAKE_PERMILLE = 990;   // the cut taken where its cost is at most this of the uncut's

struct Cut {
    r9::Choice full;   // rung 15's choice, its work tiles each head's 192-row blocks
    r9::Choice pp;     // the ping-pong with two Q buffers, its work tiles each head's 128-row blocks
    int a, b;          // 192-row and 128-row blocks a head
    int sms_full, sms_pp;   // the SMs of each launch (its persistent grid)
};

// Whether the shape is taken, and its cut. The two launches' split plans must fit, side by
// side, in the workspace rung 15 asks for the shape (q_ahead::workspace_bytes: the uncut
// three-warpgroup plan on every SM); where the uncut plan splits nothing, a cut that would
// is not taken.
inline bool choose(const attn_shape *s, int sms, Cut &cut)
{
    if (s->causal || s->head_dim != 64 || s->seq_q % 64 || s->seq_q % FULL_ROWS == 0) return false;
    if (!q_ahead::choose_ahead(s, sms, cut.full) || cut.full.v->ncons != 3) return false;
    const int units = s->seq_q / 64;       // 64-row units: 3 a + 2 b
    cut.b = units % 3 == 1 ? 2 : 1;        // units % 3 == 2: one 128-row block
    cut.a = (units - 2 * cut.b) / 3;
    if (cut.a < 1) return false;
    const long bh = (long)s->batch * s->heads;
    const long uncut = (s->seq_q + FULL_ROWS - 1) / FULL_ROWS * bh * 1000;   // in thousandths of a 192-row tile
    const long w_full = cut.a * bh * 1000, w_pp = cut.b * bh * PINGPONG_PERMILLE;
    if ((w_full + w_pp) * 1000 > uncut * TAKE_PERMILLE) return false;
    cut.sms_full = (int)((sms * w_full + (w_full + w_pp) / 2) / (w_full + w_pp));
    cut.sms_pp = sms - cut.sms_full;
    if (cut.sms_full < 1 || cut.sms_pp < 1 || cut.a * bh < cut.sms_full || cut.b * bh < cut.sms_pp) return false;
    cut.pp = cut.full;
    cut.pp.v = nullptr;
    for (const r9::Variant &v : q_ahead::VARIANTS)
        if (v.d == 64 && v.ncons == 2) cut.pp.v = &v;
    if (!cut.pp.v) return false;
    cut.full.n_work = (long)cut.a * bh;
    cut.pp.n_work = (long)cut.b * bh;
    // Side by side, each launch's split pieces take their own part of the workspace.
    return r9::split_plan(s, cut.full, cut.sms_full).part_bytes + r9::split_plan(s, cut.pp, cut.sms_pp).part_bytes <=
           q_ahead::workspace_bytes(s);
}

inline bool takes(const attn_shape *s)
{
    int sms = 0;
    Cut cut;
    return !r9::unsupported(s) && !rung13::device_sms(&sms) && choose(s, sms, cut);
}

}  // namespace row_tail
