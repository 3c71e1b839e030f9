// tail_choice.cuh: which shapes this rung takes, and how it cuts them. Compiled inside
// row_tail.cu, where rung 13 is rung13:: (its helpers device_sms and init_rows), rung 09
// rung13::rung09:: and rung 15's choice of its two-Q-buffer kernels q_ahead::.
//
// Rung 15 runs a non-causal D = 64 shape that fills the GPU on the three-warpgroup kernel
// (192-row blocks, two Q buffers, work tiles chained, the split tail) wherever rung 09 or
// rung 13's row rule chose it: where 192 does not divide seq_q, each head's last block
// holds fewer rows than 192, and its padding is computed in full (a warpgroup of padded
// rows costs nearly a full one: rung 15's README). 16x32x1024x64: six blocks a head for
// 1024 rows, 1152 rows computed.
//
// Taken: the shapes on which rung 15's choice is that kernel and each head's rows past its
// last full block, the tail, are at most 64 (one warpgroup's), with at least one full
// block. The full blocks run as rung 15 runs them; the tail runs after them on rung 09's
// one-warpgroup kernel (64-row blocks on a 2-D grid), one block a head, which pads nothing
// past its 64 rows. A tail of 65-128 rows would take two such blocks a head, at a cost per
// row the tail kernel does not reach (README); 129-191, three: the padded block's cost.
// Not taken where the tail's blocks, one a head, leave the GPU idle: a 64-row block runs
// one a SM (its 154 registers a thread), and a last round of tail blocks on fewer than 3/4
// of the SMs costs more than the padding it saves.
#pragma once

namespace row_tail {

namespace r9 = rung13::rung09;

constexpr int FULL_ROWS = 192;   // the three-warpgroup kernel's block
constexpr int TAIL_ROWS = 64;    // the one-warpgroup kernel's block
// The tail's last round of blocks (one a head, one a SM) fills at least this share of the SMs.
constexpr long FILL_PERMILLE = 750;

struct Cut {
    r9::Choice c;   // rung 15's choice, its work tiles the full blocks only
    int full;       // full 192-row blocks a head
};

// The tail's blocks (batch * heads of them, one a SM) fill their last round well enough.
inline bool tail_fills(long bh, int sms)
{
    const long rounds = (bh + sms - 1) / sms;
    return bh * 1000 >= rounds * sms * FILL_PERMILLE;
}

// Whether the shape is taken, and its cut: rung 15's choice with its work tiles the full
// blocks only. The full blocks' split plan must fit the workspace rung 15 asks for the shape
// (q_ahead::workspace_bytes; one block per SM both ways, so it does).
inline bool choose(const attn_shape *s, int sms, Cut &cut)
{
    if (s->causal || s->head_dim != 64) return false;
    if (!q_ahead::choose_ahead(s, sms, cut.c) || cut.c.v->ncons != 3) return false;
    const int tail = s->seq_q % FULL_ROWS;
    cut.full = s->seq_q / FULL_ROWS;
    const long bh = (long)s->batch * s->heads;
    if (cut.full < 1 || tail == 0 || tail > TAIL_ROWS || bh > 65535 || !tail_fills(bh, sms)) return false;
    cut.c.n_work = (long)cut.full * bh;
    return r9::split_plan(s, cut.c, sms).part_bytes <= q_ahead::workspace_bytes(s);
}

inline bool takes(const attn_shape *s)
{
    int sms = 0;
    Cut cut;
    return !r9::unsupported(s) && !rung13::device_sms(&sms) && choose(s, sms, cut);
}

}  // namespace row_tail
