// 19_staged_store: rung 18 with one idea: a work tile's O leaves through shared memory. In
// rung 09's two-warpgroup ping-pong on 128-key tiles (one Q buffer or rung 15's two), each
// consumer warpgroup ended a work tile by trading halves of O inside each quad of lanes (two
// butterfly stages of shuffles and selects) so that every lane could store whole 16-byte
// chunks of a row: at 64x16x256x128 that transpose was 112 SEL and 34 SHFL a warp a tile,
// about 9% of its instructions, where cuDNN writes O with stmatrix and stores it from shared
// memory. Here each warpgroup writes its 64 normalised rows into a tile of shared memory of
// its own with stmatrix (the accumulator's layout as it is) and stores them from there by
// rows, 16 bytes a thread (overlay/09_tile_scheduling/epilogue.cuh, store_staged). Every
// shape and choice is rung 18's.
//
// The files:
//   attention.cu      (this file) the phase ABI: rung 18's attention.cu (its dispatch) whole,
//                     its entry renamed and not exported, under this rung's entry
//   short_dynamic.cu  rung 18's short_dynamic.cu, compiled with this rung's include path
//   row_tail.cu       rung 17's row_tail.cu (rung 15's q_ahead.cu inside), compiled so
//   rung13.cu         rung 16's rung13.cu (rung 14's), compiled so
//   rung10.cu         rung 16's rung10.cu (rung 11's), compiled so
//   note_mark.h       which paths' notes this rung marks (their kernels' epilogue changed)
//   overlay/09_tile_scheduling/
//                     rung 16's overlay as links, but epilogue.cuh: rung 09's with
//                     store_staged (`diff` against rung 09's shows all)
// and rung 18's rung17.cu, rung 17's rung16.cu, rung 15's rung14.cu and rung 13's rung12.cu
// objects (dispatch, no rung 09 kernel), linked as those rungs built them (the Makefile's
// PHASE_LINKS_19_staged_store).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
// Rung 18's tables of rung 17 and of its own path, at global scope, as rung 18 declares them
// (its includes inside namespace rung18 are then empty): they name the definitions in rung
// 18's rung17.cu object and in short_dynamic.cu.
#include "18_short_dynamic/rung17.h"
#include "18_short_dynamic/short_dynamic.h"
#include "note_mark.h"

// Rung 18 is included, not copied (as rung 16 includes rung 15): its entry point renamed and
// not exported; it changes no choice, so its functions are this rung's.
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_18_19
namespace rung18 {
#include "18_short_dynamic/attention.cu"
}  // namespace rung18
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

namespace rung19 {

char g_note[1024];   // the last init's note with this rung's mark: error_string(0) returns it

// Rung 18's note of the path chosen, marked where its kernel is one whose epilogue this rung
// changed: the report and the gates take two rungs with the same note at a point to run the
// same kernel, and a changed kernel's note must not read as rung 18's (note_mark.h says which).
const char *error_string(int code)
{
    const char *note = rung18::error_string(code);
    if (code != 0 || !staged_kernel(note)) return note;
    snprintf(g_note, sizeof g_note, "%s; O stored through shared memory (19_staged_store)", note);
    return g_note;
}

}  // namespace rung19

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "19_staged_store", "O through shared memory: stmatrix and row stores end rung 09's ping-pong work tiles; rung 18's paths",
    rung18::unsupported, rung18::workspace_bytes, rung18::init, rung18::run, rung18::fini, rung19::error_string,
};
