// 18_short_dynamic: rung 17 with one idea for short prefill at D = 128: the work tiles
// of a short-key shape handed out as blocks come free. Rung 14 runs a non-causal D = 128
// shape of at most 128 keys whose 128-row blocks fill the GPU on rung 09's 128-key
// ping-pong in a static round robin, and rungs 15-17 keep it. There every work tile is one
// K/V tile, the launch is three quarters memory-bound, and SMs run equal tiles at
// different speeds: at 128x16x128x128 the busiest SM ran 9.4% over the average. Here the
// shapes whose heads are one full work tile (128 query rows, 128 keys) run rung 09's same
// ping-pong on its dynamic tile scheduler (the kernel the causal shapes run): each next
// tile goes to whichever block asks. Every other shape runs rung 17 (dyn_choice.cuh says
// which and why).
//
// The files:
//   attention.cu       (this file) the phase ABI: this rung's path for the shapes taken,
//                      rung 17 for the rest
//   dyn_choice.cuh     which shapes are taken (rung 14's rule, narrowed), and the state
//   short_dynamic.cu   rung 13 whole (rung 16's build of rung 09's kernels) and this
//                      rung's path (short_dynamic.h: its table)
//   rung17.cu          rung 17's attention.cu whole (rung17.h: its table)
//   overlay/09_tile_scheduling
//                      a link to rung 16's overlay of rung 09's folder (its step descriptors)
// and rung 17's row_tail.cu and rung16.cu objects and the objects rung 17 links, linked as
// those rungs built them (the Makefile's PHASE_LINKS_18_short_dynamic).
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung17.h"
#include "short_dynamic.h"

namespace {

const attn_phase &lower = rung17_link::phase;
const attn_phase &mine = shortdyn_link::path;

struct PathState {
    const attn_phase *ph;   // shortdyn_link::path or rung 17
    void *inner;
};

enum { ERR_D_ALLOC = 1811, ERR_D_STATE };   // apart from every code of the rungs below (up to 1712)

const attn_phase *g_last = &lower;   // the last init's path: error_string is its

// Rung 17 declines what this rung declines: the shapes taken are rung 09's, which rung 17
// takes on compute capability 9.0.
const char *unsupported(const attn_shape *s) { return lower.unsupported(s); }

size_t workspace_bytes(const attn_shape *s)
{
    return shortdyn_link::takes(s) ? mine.workspace_bytes(s) : lower.workspace_bytes(s);
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    PathState *st = static_cast<PathState *>(calloc(1, sizeof(PathState)));
    if (!st) return ERR_D_ALLOC;
    st->ph = shortdyn_link::takes(s) ? &mine : &lower;   // takes() checks rung 09's unsupported()
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
    if (!state) return ERR_D_STATE;
    const PathState &st = *static_cast<const PathState *>(state);
    return st.ph->run(st.inner, a);
}

void fini(void *state)
{
    PathState *st = static_cast<PathState *>(state);
    if (!st) return;
    st->ph->fini(st->inner);
    free(st);
}

const char *error_string(int code)
{
    if (code == ERR_D_ALLOC) return "out of host memory for this rung's state";
    if (code == ERR_D_STATE) return "run without a state (init failed or was not called)";
    return g_last->error_string(code);
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "18_short_dynamic", "Short keys on the dynamic tile scheduler: D=128 heads of 128 rows and 128 keys, tiles to free blocks; rung 17 elsewhere",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
