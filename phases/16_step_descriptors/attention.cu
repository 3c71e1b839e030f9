// 16_step_descriptors: rung 15 with one idea: each step's MMA descriptors are made once.
// A warpgroup MMA reads its shared-memory tiles through 64-bit descriptors whose low 14 bits
// are the tile's shared address / 16. Rung 09's kernels made each MMA's descriptors from its
// full address (mask, shift, OR: hopper::make_desc), 16 to 24 descriptors a 128-key step; the
// uniform datapath that builds them is about 15% of the causal kernels' instructions. Here each
// step makes its base descriptors once and adds each k slice's offset / 16, a constant.
// Every rung 09 kernel the rungs below reach is rebuilt so; the two-Q-buffer kernels of
// rung 15 are not (measured: no gain, README).
//
// The files:
//   attention.cu    (this file) the phase ABI: rung 15's attention.cu (its dispatch) whole,
//                   its entry renamed and not exported, under this rung's entry
//   q_ahead.cu      rung 15's q_ahead.cu, compiled with this rung's include path
//   rung13.cu       rung 14's rung13.cu, compiled so
//   rung10.cu       rung 11's rung10.cu, compiled so
//   note_mark.h     which paths' notes this rung marks (its kernels rebuilt)
//   overlay/09_tile_scheduling/
//                   rung 09's files as links, but mainloop.cuh: rung 09's with the step
//                   descriptors (its qk_n and pv_k; `diff` against rung 09's shows all)
// and rung 15's rung14.cu and rung 13's rung12.cu objects, linked as those rungs built them
// (the Makefile's PHASE_LINKS_16_step_descriptors).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
// Rung 15's tables of its Q-ahead path and of rung 14, at global scope, as rung 15 declares
// them (its includes inside namespace rung15 are then empty): they name the definitions in
// q_ahead.cu and in rung 15's rung14.cu object.
#include "15_q_ahead/q_ahead.h"
#include "15_q_ahead/rung14.h"
#include "note_mark.h"

// Rung 15 is included, not copied (as rung 13 includes rung 09): its entry point renamed
// and not exported; it changes no choice, so its functions are this rung's.
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_15_16
namespace rung15 {
#include "15_q_ahead/attention.cu"
}  // namespace rung15
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

namespace rung16 {

char g_note[1024];   // the last init's note with this rung's mark: error_string(0) returns it

// Rung 15's note of the path chosen, marked where its kernel is one this rung rebuilt: the
// report and the gates take two rungs with the same note at a point to run the same kernel,
// and a rebuilt kernel's note must not read as rung 15's (note_mark.h says which).
const char *error_string(int code)
{
    const char *note = rung15::error_string(code);
    if (code != 0 || !rebuilt_kernel(note)) return note;
    snprintf(g_note, sizeof g_note, "%s; rung 09's kernel with step descriptors (16_step_descriptors)", note);
    return g_note;
}

}  // namespace rung16

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "16_step_descriptors", "Step descriptors: each MMA step's descriptors made once; rung 15's paths",
    rung15::unsupported, rung15::workspace_bytes, rung15::init, rung15::run, rung15::fini, rung16::error_string,
};
