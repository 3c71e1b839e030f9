// 15_q_ahead: rung 14 with one idea for short prefill: the next work tile's Q is loaded
// while this one's last S still reads its own. Rung 09's persistent kernels hold one Q tile,
// so the producer waits for a work tile's last S before it loads the next tile's Q, and
// the next tile's K and V behind it: at every work tile the copy engine stands idle while
// the consumers finish, and the next tile's first S waits for its loads. With a second Q
// buffer (after the V ring) the producer runs a work tile ahead. Taken in rung 09's static
// ragged-first kernels on 128-key tiles (the two-warpgroup ping-pong and the chained
// three-warpgroup kernel at D = 64) wherever rung 14 runs them, but for rung 14's short
// keys; every other shape runs rung 14 (q_choice.cuh says which and why; the Q-ahead
// study measured each, README).
//
// The files:
//   attention.cu    (this file) the phase ABI: this rung's path for the shapes taken,
//                   rung 14 for the rest
//   q_traits.cuh    rung 09's Cfg with room for two Q tiles
//   q_mainloop.cuh  rung 09's kernel with two Q buffers
//   q_choice.cuh    which shapes are taken, and rung 14's choice turned to those kernels
//   q_ahead.cu      rung 13 whole (for rung 09's choice and launch) and this rung's path
//                   (q_ahead.h: its table)
//   rung14.cu       rung 14's attention.cu whole (rung14.h: its table)
// and rung 14's rung13.cu, rung 13's rung12.cu and rung 11's rung10.cu objects, linked as
// those rungs built them (the Makefile's PHASE_LINKS_15_q_ahead).
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "q_ahead.h"
#include "rung14.h"

namespace {

const attn_phase &lower = rung14_link::phase;
const attn_phase &ahead = qahead_link::path;

struct AheadState {
    const attn_phase *ph;   // qahead_link::path or rung 14
    void *inner;
};

enum { ERR_Q_ALLOC = 1501, ERR_Q_STATE };   // apart from every code of the rungs below (1-11, 101-, 601-, 1401-)

const attn_phase *g_last = &lower;   // the last init's path: error_string is its

// Rung 14 declines what this rung declines: the shapes taken are rung 09's, which rung 14
// takes on compute capability 9.0.
const char *unsupported(const attn_shape *s) { return lower.unsupported(s); }

size_t workspace_bytes(const attn_shape *s)
{
    return qahead_link::takes(s) ? ahead.workspace_bytes(s) : lower.workspace_bytes(s);
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    AheadState *st = static_cast<AheadState *>(calloc(1, sizeof(AheadState)));
    if (!st) return ERR_Q_ALLOC;
    st->ph = qahead_link::takes(s) ? &ahead : &lower;   // takes() checks rung 09's unsupported()
    g_last = st->ph;
    const int rc = st->ph->init(&st->inner, s);
    if (rc) {
        free(st);
        return rc;
    }
    *state = st;
    return 0;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_Q_STATE;
    const AheadState &st = *static_cast<const AheadState *>(state);
    return st.ph->run(st.inner, a);
}

void fini(void *state)
{
    AheadState *st = static_cast<AheadState *>(state);
    if (!st) return;
    st->ph->fini(st->inner);
    free(st);
}

const char *error_string(int code)
{
    if (code == ERR_Q_ALLOC) return "out of host memory for this rung's state";
    if (code == ERR_Q_STATE) return "run without a state (init failed or was not called)";
    return g_last->error_string(code);
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "15_q_ahead", "Q ahead: two Q buffers in rung 09's static 128-key kernels; rung 14 elsewhere",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
