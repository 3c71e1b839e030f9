// 20_store_loads_first: rung 19 with one idea: at D = 128 its staged store's loads leave the
// row checks. Rung 19 ends a work tile of rung 09's two-warpgroup 128-key ping-pong by writing
// O into shared memory with stmatrix and storing it from there by rows; its loop loaded and
// stored a chunk an iteration, and the compiler put each load under its store's row check,
// computed after the warpgroup's barrier, so every load waited for it. Here, at D = 128, a
// thread's loads are unconditional and all issued before its first store, the row check
// guarding the stores only (overlay/09_tile_scheduling/epilogue.cuh, store_staged); at D = 64
// the loop is rung 19's. Every shape and choice is rung 18's, as in rung 19.
//
// The files:
//   attention.cu      (this file) the phase ABI: rung 18's attention.cu (its dispatch) whole,
//                     its entry renamed and not exported, under this rung's entry, which
//                     marks the note as rung 19 does and then as this rung does
//   short_dynamic.cu  rung 18's short_dynamic.cu, compiled with this rung's include path
//   row_tail.cu       rung 17's row_tail.cu (rung 15's q_ahead.cu inside), compiled so
//   rung13.cu         rung 16's rung13.cu (rung 14's), compiled so
//   rung10.cu         rung 16's rung10.cu (rung 11's), compiled so
//   note_mark.h       which of rung 19's marked paths this rung marks (D = 128)
//   overlay/09_tile_scheduling/
//                     rung 19's overlay as links, but epilogue.cuh: rung 19's with the
//                     loads first at D = 128 (`diff` against rung 19's shows all)
// and rung 18's rung17.cu, rung 17's rung16.cu, rung 15's rung14.cu and rung 13's rung12.cu
// objects (dispatch, no rung 09 kernel), linked as those rungs built them (the Makefile's
// PHASE_LINKS_20_store_loads_first).
//
// Rung 18 is included as rung 19 includes it, not rung 19's attention.cu: that file ends by
// exporting its own entry under the ABI's name, which a second inclusion cannot rename; its
// note (rung 18's, marked where the staged store runs) is made here the same way, from its
// note_mark.h.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
// Rung 18's tables of rung 17 and of its own path, at global scope, as rung 18 declares them
// (its includes inside namespace rung18 are then empty): they name the definitions in rung
// 18's rung17.cu object and in short_dynamic.cu.
#include "18_short_dynamic/rung17.h"
#include "18_short_dynamic/short_dynamic.h"
#include "19_staged_store/note_mark.h"
#include "note_mark.h"

#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_18_20
namespace rung18 {
#include "18_short_dynamic/attention.cu"
}  // namespace rung18
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

namespace rung20 {

char g_note[1024 + 64];   // the last init's note with both marks (rung 19's note and this one's)
int g_head_dim;      // the last init's head dimension: the mark depends on it

// Rung 18's init, the head dimension kept for the note.
int init(void **state, const attn_shape *shape)
{
    g_head_dim = shape ? shape->head_dim : 0;
    return rung18::init(state, shape);
}

// Rung 18's note of the path chosen, marked as rung 19 marks it where the staged store runs,
// then as this rung marks it where that store is this rung's (D = 128): the report and the
// gates take two rungs with the same note at a point to run the same kernel.
const char *error_string(int code)
{
    const char *note = rung18::error_string(code);
    if (code != 0 || !rung19::staged_kernel(note)) return note;
    static char note19[1024];   // rung 19's note of the path, as rung 19 writes it
    snprintf(note19, sizeof note19, "%s; O stored through shared memory (19_staged_store)", note);
    if (!loads_first_kernel(note19, g_head_dim)) return note19;
    snprintf(g_note, sizeof g_note, "%s; loads before stores (20_store_loads_first)", note19);
    return g_note;
}

}  // namespace rung20

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "20_store_loads_first", "rung 19's staged store with its loads first at D = 128; rung 18's paths",
    rung18::unsupported, rung18::workspace_bytes, rung20::init, rung18::run, rung18::fini, rung20::error_string,
};
