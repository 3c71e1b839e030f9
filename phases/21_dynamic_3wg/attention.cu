// 21_dynamic_3wg: rung 20 with one idea: rung 09's three-warpgroup kernel takes its causal
// work tiles from rung 09's dynamic tile scheduler, on a persistent grid of one block per SM,
// instead of one block per work tile. Causal D = 64 shapes whose 192-row blocks fit seq_q
// (8x32x2048x64 causal: 2816 blocks, one resident an SM) paid, per block, its barriers, its
// first Q and K loads and first S before any softmax, and its last P V and stores with the
// other warpgroups idle, none of it overlapped, since the next block starts only when one
// exits; the persistent producer loads the next tile's Q and K/V while the consumers finish
// the last one (overlay/09_tile_scheduling/host_choice.cuh: the variant's fn_dyn;
// mainloop.cuh: the kernel's static_assert admits three consumer warpgroups). Every other
// shape and choice is rung 20's.
//
// The files:
//   attention.cu      (this file) the phase ABI: rung 18's attention.cu (its dispatch) whole,
//                     its entry renamed and not exported, under this rung's entry, which
//                     marks the note as rungs 19 and 20 do and then as this rung does
//   short_dynamic.cu  rung 18's short_dynamic.cu, compiled with this rung's include path
//   row_tail.cu       rung 17's row_tail.cu (rung 15's q_ahead.cu inside), compiled so
//   rung13.cu         rung 16's rung13.cu (rung 14's), compiled so
//   rung10.cu         rung 16's rung10.cu (rung 11's), compiled so
//   note_mark.h       which of rung 20's paths run this rung's kernel
//   overlay/09_tile_scheduling/
//                     rung 20's overlay as links, but mainloop.cuh and host_choice.cuh
//                     (`diff` against rung 20's shows all)
// and the dispatch objects rung 20 links (rung 18's rung17.cu, rung 17's rung16.cu, rung
// 15's rung14.cu and rung 13's rung12.cu), linked as those rungs built them (the Makefile's
// PHASE_LINKS_21_dynamic_3wg).
//
// Rung 18 is included as rungs 19 and 20 include it (their attention.cu files end by
// exporting their own entries under the ABI's name, which a second inclusion cannot rename);
// rung 19's and rung 20's marks are made here the same way, from their note_mark.h.
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
#include "20_store_loads_first/note_mark.h"
#include "note_mark.h"

#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_18_21
namespace rung18 {
#include "18_short_dynamic/attention.cu"
}  // namespace rung18
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

namespace rung21 {

char g_note19[1024];        // rung 19's note of the path, as rung 19 writes it
char g_note20[1024 + 64];   // rung 20's, as rung 20 writes it
char g_note[1024 + 128];    // with this rung's mark
int g_head_dim;             // the last init's head dimension: rung 20's mark depends on it

// Rung 18's init, the head dimension kept for the note.
int init(void **state, const attn_shape *shape)
{
    g_head_dim = shape ? shape->head_dim : 0;
    return rung18::init(state, shape);
}

// Rung 20's note of the path chosen (rung 18's, marked as rung 19 marks it where the staged
// store runs, then as rung 20 marks it where that store is rung 20's), as rung 20 makes it.
const char *note20(const char *note)
{
    if (!rung19::staged_kernel(note)) return note;
    snprintf(g_note19, sizeof g_note19, "%s; O stored through shared memory (19_staged_store)", note);
    if (!rung20::loads_first_kernel(g_note19, g_head_dim)) return g_note19;
    snprintf(g_note20, sizeof g_note20, "%s; loads before stores (20_store_loads_first)", g_note19);
    return g_note20;
}

// Rung 20's note, marked where this rung's kernel runs: the report and the gates take two
// rungs with the same note at a point to run the same kernel.
const char *error_string(int code)
{
    const char *note = rung18::error_string(code);
    if (code != 0) return note;
    note = note20(note);
    if (!dynamic_3wg_kernel(note)) return note;
    snprintf(g_note, sizeof g_note, "%s; three warpgroups on the dynamic scheduler (21_dynamic_3wg)", note);
    return g_note;
}

}  // namespace rung21

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "21_dynamic_3wg", "rung 09's three-warpgroup kernel on the dynamic tile scheduler (causal); rung 20's paths",
    rung18::unsupported, rung18::workspace_bytes, rung21::init, rung18::run, rung18::fini, rung21::error_string,
};
