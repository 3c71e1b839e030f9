// key_choice.cuh: which shapes this rung gives rung 09's two-buffer 128-key ping-pong. At
// D = 128 rung 09 runs a non-causal shape that fills the GPU on its 176-key kernel wherever
// 176-key tiles pad the keys little, which every key count up to 176 does; rungs 10-13
// pass those shapes to it unchanged. The 176-key kernel keeps one P buffer (its S takes 88
// registers) and chains its work tiles instead: a work tile's last P V overlaps the next
// tile's first S. With at most 128 keys a work tile is one K/V tile, so the chaining buys
// an overlap at every tile while the 128-key kernel's second P buffer buys it inside the
// tile (P(j) converted while P V(j - 1) runs; README): measured 7.5% faster at
// 128x16x128x128. Causal shapes already run the 128-key ping-pong (the dynamic scheduler).
// This file is compiled inside rung13.cu, where rung 09 is rung13::rung09 and rung 13's
// helpers (device_sms, init_rows) are rung13::.
#pragma once

namespace short_keys {

namespace r9 = rung13::rung09;

// Taken: D = 128, not causal, more query rows than a decode step's 16 (rung 12's), all keys
// in one 128-key tile, and a shape on which rung 09 chose its 176-key kernel (so one whose
// 128-row blocks fill the GPU: rungs 10 and 11 take only grids that do not). c: rung 09's
// choice turned to the two-buffer 128-key ping-pong.
inline bool choose_short(const attn_shape *s, int sms, r9::Choice &c)
{
    if (s->head_dim != 128 || s->causal || s->seq_q <= 16 || s->seq_kv > r9::BN) return false;
    if (r9::unsupported(s) || !r9::choose(s, sms, c) || c.v->keys != 176) return false;
    const r9::Variant *pp = nullptr;
    for (const r9::Variant &v : r9::VARIANTS)
        if (v.d == 128 && v.ncons == 2 && v.keys == r9::BN) pp = &v;
    if (!pp || !pp->fn_first[3]) return false;
    // The rest of rung 09's choice holds for the 128-key kernel as it is: not dynamic, ragged
    // keys first (all of them: at most 128), persistent, the same 128-row work tiles. Only
    // the first tile's S width differs: the 176-key kernel's narrowest that covers the keys
    // (48, 96 or 128), the 128-key kernel's 128.
    c.v = pp;
    c.width = r9::BN;
    return true;
}

inline bool takes(const attn_shape *s)
{
    int sms = 0;
    r9::Choice c;
    return !rung13::device_sms(&sms) && choose_short(s, sms, c);
}

// The 128-key ping-pong splits no tail (its two P buffers leave it unchained): no workspace.
inline size_t workspace_bytes(const attn_shape *) { return 0; }

// Rung 09's state for the shape, made by rung 13's init_rows (rung 09's init from the
// choice on, for any choice), its note then naming this path.
inline int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    int sms = 0;
    r9::Choice c;
    if (rung13::device_sms(&sms) || !choose_short(s, sms, c)) return r9::ERR_SHAPE;
    const int rc = rung13::init_rows(state, s, sms, c);
    if (rc) return rc;
    // init_rows's note opens with rung 13's path ("row blocks: "); the rest describes the
    // kernel and grid as they are. The two heads are of one length.
    static const char was[] = "row blocks: ", now[] = "short keys: ";
    static_assert(sizeof was == sizeof now, "the note's head is replaced in place");
    if (!strncmp(r9::g_chosen, was, sizeof was - 1)) memcpy(r9::g_chosen, now, sizeof now - 1);
    return 0;
}

}  // namespace short_keys
