// 22_causal_rows: rung 21 with one idea: rung 13's row rule extended to causal D = 64. Rung
// 09's choice gives a causal D = 64 shape the three-warpgroup kernel (192-row blocks; rung
// 21's dynamic tile scheduler) only where 192-row blocks pad seq_q by at most 4%; rung 13
// took that kernel for non-causal shapes wherever 192-row blocks hold at most 1.15x the
// ping-pong's 128-row blocks' rows, and left causal shapes out because the kernel then had no
// dynamic scheduler. Rung 21 gave it one; here causal D = 64 shapes take it under rung 13's
// bound too (overlay/09_tile_scheduling/host_choice.cuh: auto_variant). The padded rows stay
// in each head's last block, whose warpgroups skip their masked tiles (rung 09's causal
// skip). Every kernel is rung 21's; every other shape and choice is rung 21's.
//
// The files:
//   attention.cu      (this file) the phase ABI: rung 18's attention.cu (its dispatch) whole,
//                     its entry renamed and not exported, under this rung's entry, which
//                     marks the note as rungs 19-21 do and then as this rung does
//   short_dynamic.cu  rung 18's short_dynamic.cu, compiled with this rung's include path
//   row_tail.cu       rung 17's row_tail.cu (rung 15's q_ahead.cu inside), compiled so
//   rung13.cu         rung 16's rung13.cu (rung 14's), compiled so
//   rung10.cu         rung 16's rung10.cu (rung 11's), compiled so
//   note_mark.h       which shapes this rung's choice moves
//   overlay/09_tile_scheduling/
//                     rung 21's overlay as links, but host_choice.cuh (`diff` against rung
//                     21's shows all)
// and the dispatch objects rung 21 links (rung 18's rung17.cu, rung 17's rung16.cu, rung
// 15's rung14.cu and rung 13's rung12.cu), linked as those rungs built them (the Makefile's
// PHASE_LINKS_22_causal_rows).
//
// Rung 18 is included as rungs 19-21 include it (their attention.cu files end by exporting
// their own entries under the ABI's name, which a second inclusion cannot rename); rungs
// 19-21's marks are made here the same way, from their note_mark.h.
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
#include "21_dynamic_3wg/note_mark.h"
#include "note_mark.h"

#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT
#define attn_phase_entry attn_phase_entry_18_22
namespace rung18 {
#include "18_short_dynamic/attention.cu"
}  // namespace rung18
#undef attn_phase_entry
#undef ATTN_PHASE_EXPORT
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

namespace rung22 {

char g_note19[1024];        // rung 19's note of the path, as rung 19 writes it
char g_note20[1024 + 64];   // rung 20's, as rung 20 writes it
char g_note21[1024 + 128];  // rung 21's, as rung 21 writes it
char g_note[1024 + 192];    // with this rung's mark
int g_head_dim;             // the last init's head dimension: rungs 20's and 22's marks depend on it
int g_causal, g_seq_q;      // and its mask and query rows: this rung's mark depends on them

// Rung 18's init, the shape kept for the notes.
int init(void **state, const attn_shape *shape)
{
    g_head_dim = shape ? shape->head_dim : 0;
    g_causal = shape ? shape->causal : 0;
    g_seq_q = shape ? shape->seq_q : 0;
    return rung18::init(state, shape);
}

// Rung 21's note of the path chosen (rung 18's, marked as rungs 19 and 20 mark it where
// their stores run, then as rung 21 marks it where its kernel runs), as rung 21 makes it.
const char *note21(const char *note)
{
    if (rung19::staged_kernel(note)) {
        snprintf(g_note19, sizeof g_note19, "%s; O stored through shared memory (19_staged_store)", note);
        note = g_note19;
        if (rung20::loads_first_kernel(g_note19, g_head_dim)) {
            snprintf(g_note20, sizeof g_note20, "%s; loads before stores (20_store_loads_first)", g_note19);
            note = g_note20;
        }
    }
    if (!rung21::dynamic_3wg_kernel(note)) return note;
    snprintf(g_note21, sizeof g_note21, "%s; three warpgroups on the dynamic scheduler (21_dynamic_3wg)", note);
    return g_note21;
}

// Rung 21's note, marked where this rung's choice moved the shape: the report and the gates
// take two rungs with the same note at a point to run the same kernel, and rung_step.py takes
// the marked points as this rung's.
const char *error_string(int code)
{
    const char *note = rung18::error_string(code);
    if (code != 0) return note;
    note = note21(note);
    if (!causal_rows_moved(note, g_causal, g_head_dim, g_seq_q)) return note;
    snprintf(g_note, sizeof g_note, "%s; causal rows under rung 13's bound (22_causal_rows)", note);
    return g_note;
}

}  // namespace rung22

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "22_causal_rows", "causal D = 64 on rung 09's three-warpgroup kernel under rung 13's row bound; rung 21's paths",
    rung18::unsupported, rung18::workspace_bytes, rung22::init, rung18::run, rung18::fini, rung22::error_string,
};
