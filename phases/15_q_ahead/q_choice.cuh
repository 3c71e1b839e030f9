// q_choice.cuh: which shapes this rung gives the two-Q-buffer kernels, and rung 14's choice
// turned to them. Compiled inside q_ahead.cu, where rung 13 is rung13:: (its row rule
// rung13::rows, its helpers device_sms and init_rows), rung 09 rung13::rung09:: and the
// kernels of q_mainloop.cuh rung13::rung09::qahead::.
//
// Taken: the shapes on which rung 14 runs one of rung 09's static ragged-first kernels on
// 128-key tiles (not causal, so neither the dynamic scheduler nor the static causal order),
// but for its own short-keys path:
//   - the two-warpgroup ping-pong (rung 09's choice wherever its 128-row blocks fill the
//     GPU at D = 64 and 192-row blocks pad seq_q, and at D = 128 where 176-key tiles pad
//     the keys);
//   - the three-warpgroup 192-row kernel at D = 64 (rung 09's choice where it pads seq_q at
//     most 4%, and rung 13's up to 1.15x the ping-pong's rows), whose work tiles are
//     chained and whose last round is split into key-tile pieces.
// Not taken, as the Q-ahead study measured them (README):
//   - rung 14's short keys (D = 128, at most 128 keys: one key tile a work tile), 6-7%
//     slower with the Q ahead, in back-to-back launches;
//   - causal shapes: on the dynamic scheduler the producer claims the next tile when it
//     loads its Q (2.1-2.6% slower), on the static order of the three-warpgroup kernel
//     1.1-1.4% slower;
//   - the 176-key kernel (non-causal D = 128 where its tiles pad little), whose S takes 88
//     registers and whose one P buffer chains its work tiles: not tried;
//   - rung 09's one-warpgroup path and everything rungs 10-12 take (decode, grids that do
//     not fill the GPU): one work tile a block, nothing ahead to load.
// Why the shapes taken are the shapes rung 14 runs on those kernels: rung 14 passes every
// shape but its short keys to rung 13; rung 13 gives its row rule's shapes (more than 16
// query rows) the 192-row kernel and passes the rest to rung 12, which with more than 16
// query rows passes them to rung 11 and it to rung 10, each taking only grids whose 128-row
// blocks leave SMs idle (rung 09's one-warpgroup choice); there rung 09 runs its own choice.
// So wherever rung 09 or rung 13's row rule chose a two- or three-warpgroup kernel for more
// than 16 query rows, rung 14 runs it. The init notes say so: this rung's note is rung
// 14's with "Q ahead" at its head, the variant's name and its shared memory.
#pragma once

namespace q_ahead {

namespace r9 = rung13::rung09;
namespace qk = rung13::rung09::qahead;

template <int D, int NCONS> constexpr const void *kernel()
{
    return reinterpret_cast<const void *>(&qk::hopper_attention<D, NCONS, false, r9::BN, r9::BN, true>);
}
// Rung 09's variants of those kernels (host_choice.cuh's VARIANTS), two Q buffers each:
// the same names but for the suffix, threads, keys and split tail; the shared memory
// q_traits.cuh's (one more Q tile: 16 KB at 128 rows of D = 64, 32 KB at D = 128, 24 KB
// at 192 rows).
const r9::Variant VARIANTS[] = {
    {"pingpong, two Q buffers", 64, 2, qk::Cfg<64, 2>::THREADS, qk::Cfg<64, 2>::SMEM, r9::BN, nullptr, nullptr,
     {nullptr, nullptr, nullptr, kernel<64, 2>()}, r9::split_tail<64, 2, false, r9::BN, true>()},
    {"pingpong, two Q buffers", 128, 2, qk::Cfg<128, 2>::THREADS, qk::Cfg<128, 2>::SMEM, r9::BN, nullptr, nullptr,
     {nullptr, nullptr, nullptr, kernel<128, 2>()}, r9::split_tail<128, 2, false, r9::BN, true>()},
    {"3wg, two Q buffers", 64, 3, qk::Cfg<64, 3>::THREADS, qk::Cfg<64, 3>::SMEM, r9::BN, nullptr, nullptr,
     {nullptr, nullptr, nullptr, kernel<64, 3>()}, r9::split_tail<64, 3, false, r9::BN, true>()},
};
// Each keeps one block per SM, as rung 09's: the persistent grid and the split plan's
// workspace (one block per SM: split_plan, workspace_bytes) are rung 09's.
static_assert(2 * qk::Cfg<64, 2>::SMEM > 228 * 1024 && 2 * qk::Cfg<128, 2>::SMEM > 228 * 1024 &&
                  2 * qk::Cfg<64, 3>::SMEM > 228 * 1024,
              "one block per SM");

// Rung 14's choice for s turned to the two-Q-buffer kernel (c), where the shape is taken.
inline bool choose_ahead(const attn_shape *s, int sms, r9::Choice &c)
{
    if (s->causal || s->seq_q <= 16 || rung13_link::short_keys_takes(s)) return false;
    bool rows = false;   // rung 13's row rule took it (the 192-row kernel): c says so either way
    if (!rung13::rows::choose(s, sms, c, rows)) return false;   // rung 09 declines the shape
    if (!c.first || c.dynamic || !c.persistent || c.v->keys != r9::BN || c.width != r9::BN) return false;
    for (const r9::Variant &v : VARIANTS)
        if (v.d == c.v->d && v.ncons == c.v->ncons) {
            c.v = &v;
            return true;
        }
    return false;   // the one-warpgroup path (rungs 10-12's grids)
}

inline bool takes(const attn_shape *s)
{
    int sms = 0;
    r9::Choice c;
    return !rung13::device_sms(&sms) && choose_ahead(s, sms, c);
}

// The split tail's workspace for the taken three-warpgroup shapes, as rung 09 plans it (one
// block per SM); the ping-pong splits no tail.
inline size_t workspace_bytes(const attn_shape *s)
{
    int sms = 0;
    r9::Choice c;
    if (rung13::device_sms(&sms) || !choose_ahead(s, sms, c)) return 0;
    return r9::split_plan(s, c, sms).part_bytes;
}

// Rung 09's state for the shape, made by rung 13's init_rows (rung 09's init from the
// choice on, for any non-causal persistent choice), its note then naming this path.
inline int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    int sms = 0;
    r9::Choice c;
    if (rung13::device_sms(&sms) || !choose_ahead(s, sms, c)) return r9::ERR_SHAPE;
    const int rc = rung13::init_rows(state, s, sms, c);
    if (rc) return rc;
    // init_rows's note opens with rung 13's path ("row blocks: "); the rest describes the
    // kernel and grid as they are.
    static const char was[] = "row blocks: ", now[] = "Q ahead: ";
    static_assert(sizeof now <= sizeof was, "the note's head is replaced in place");
    char *note = r9::g_chosen;
    if (!strncmp(note, was, sizeof was - 1)) {
        memmove(note + sizeof now - 1, note + sizeof was - 1, strlen(note + sizeof was - 1) + 1);
        memcpy(note, now, sizeof now - 1);
    }
    return 0;
}

}  // namespace q_ahead
