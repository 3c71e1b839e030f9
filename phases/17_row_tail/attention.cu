// 17_row_tail: rung 16 with one idea for short prefill at D = 64: no 192-row block is
// padded. Rung 15's three-warpgroup kernel computes each head's last block in full when 192
// does not divide seq_q (16x32x1024x64: 1152 rows for 1024, 12.5% padding; a warpgroup of
// padded rows costs nearly a full one). Here, where 64 divides seq_q, each head's rows are
// cut into 192 a + 128 b (b = 1 or 2): the first 128 b run on rung 15's two-warpgroup
// ping-pong, the rest on its three-warpgroup kernel, two launches, nothing padded. Every
// other shape runs rung 16 (tail_choice.cuh says which and why).
//
// The files:
//   attention.cu     (this file) the phase ABI: this rung's path for the shapes taken,
//                    rung 16 for the rest
//   tail_choice.cuh  which shapes are taken, and the cut (its cost model)
//   row_tail.cu      rung 15's q_ahead.cu whole (rung 16's build of it) and this rung's
//                    path (row_tail.h: its table)
//   rung16.cu        rung 16's attention.cu whole (rung16.h: its table)
//   overlay/09_tile_scheduling
//                    a link to rung 16's overlay of rung 09's folder (its step descriptors)
// and rung 16's rung13.cu and rung10.cu, rung 15's rung14.cu and rung 13's rung12.cu
// objects, linked as those rungs built them (the Makefile's PHASE_LINKS_17_row_tail).
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "row_tail.h"
#include "rung16.h"

namespace {

const attn_phase &lower = rung16_link::phase;
const attn_phase &tail = rowtail_link::path;

struct PathState {
    const attn_phase *ph;   // rowtail_link::path or rung 16
    void *inner;
};

enum { ERR_T_ALLOC = 1711, ERR_T_STATE };   // apart from every code of the rungs below and row_tail.cu's 1701

const attn_phase *g_last = &lower;   // the last init's path: error_string is its

// Rung 16 declines what this rung declines: the shapes taken are rung 09's, which rung 16
// takes on compute capability 9.0.
const char *unsupported(const attn_shape *s) { return lower.unsupported(s); }

size_t workspace_bytes(const attn_shape *s)
{
    return rowtail_link::takes(s) ? tail.workspace_bytes(s) : lower.workspace_bytes(s);
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    PathState *st = static_cast<PathState *>(calloc(1, sizeof(PathState)));
    if (!st) return ERR_T_ALLOC;
    st->ph = rowtail_link::takes(s) ? &tail : &lower;   // takes() checks rung 09's unsupported()
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
    if (!state) return ERR_T_STATE;
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
    if (code == ERR_T_ALLOC) return "out of host memory for this rung's state";
    if (code == ERR_T_STATE) return "run without a state (init failed or was not called)";
    return g_last->error_string(code);
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "17_row_tail", "Row tail: D=64 rows cut into 192- and 128-row blocks, none padded; rung 16 elsewhere",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
