// 14_short_keys: rung 13 with one idea for short prefill at D = 128: a work tile of one K/V
// tile runs the two-buffer ping-pong. Rung 09 runs every non-causal D = 128 shape of at
// most 176 keys that fills the GPU on its 176-key kernel (one P buffer, work tiles
// chained); with at most 128 keys a work tile is a single 128-key tile, and the 128-key
// ping-pong's second P buffer (P(j) converted while P V(j - 1) runs) measured 7.5% faster
// there than the chaining (128x16x128x128, README). The kernels are rung 09's, unchanged;
// every other shape runs rung 13.
//
// The files:
//   attention.cu    (this file) the phase ABI: the rule's path for the shapes taken, rung 13
//                   for the rest
//   rung13.cu       rung 13 whole (rung13.h: its table), and this rung's path through rung
//                   09 as rung 13 holds it
//   key_choice.cuh  which shapes are taken, and rung 09's choice turned to that kernel
// and rung 13's rung12.cu and rung 11's rung10.cu objects, linked as those rungs built them
// (the Makefile's PHASE_LINKS_14_short_keys).
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung13.h"

namespace {

const attn_phase &lower = rung13_link::phase;
const attn_phase &keys = rung13_link::short_keys;

struct KeyState {
    const attn_phase *ph;   // rung13_link::short_keys or rung 13
    void *inner;
};

enum { ERR_K_ALLOC = 1401, ERR_K_STATE };   // apart from every code of the rungs below (1-11, 101-, 601-)

const attn_phase *g_last = &lower;   // the last init's path: error_string is its

// Rung 13 declines what this rung declines: the shapes taken are rung 09's, which rung 13
// takes on compute capability 9.0.
const char *unsupported(const attn_shape *s) { return lower.unsupported(s); }

size_t workspace_bytes(const attn_shape *s)
{
    return rung13_link::short_keys_takes(s) ? keys.workspace_bytes(s) : lower.workspace_bytes(s);
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    KeyState *st = static_cast<KeyState *>(calloc(1, sizeof(KeyState)));
    if (!st) return ERR_K_ALLOC;
    st->ph = rung13_link::short_keys_takes(s) ? &keys : &lower;   // takes() checks rung 09's unsupported()
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
    if (!state) return ERR_K_STATE;
    const KeyState &st = *static_cast<const KeyState *>(state);
    return st.ph->run(st.inner, a);
}

void fini(void *state)
{
    KeyState *st = static_cast<KeyState *>(state);
    if (!st) return;
    st->ph->fini(st->inner);
    free(st);
}

const char *error_string(int code)
{
    if (code == ERR_K_ALLOC) return "out of host memory for this rung's state";
    if (code == ERR_K_STATE) return "run without a state (init failed or was not called)";
    return g_last->error_string(code);
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "14_short_keys", "Short keys: at most 128 keys at D=128 on the two-buffer 128-key ping-pong; rung 13 elsewhere",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
