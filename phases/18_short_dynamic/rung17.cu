// rung17.cu: rung 17's attention.cu whole (not changed), and the table through which this
// rung's attention.cu calls it for every shape this rung passes on (rung17_link::phase,
// hidden). Rung 17's attention.cu holds its dispatch; the code it reaches is in rung 17's
// row_tail.cu and rung16.cu objects and the objects rung 17 links, linked as rung 17
// built them (the Makefile's PHASE_LINKS_18_short_dynamic).
//
// A unit of its own, as rung 17 holds rung 16: rung 17's entry point has C linkage under
// the ABI's name, which in one unit with this rung's entry would be defined twice. Here its
// definition is made weak, so the linker keeps this rung's entry (attention.cu).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung17.h"

#define visibility(v) visibility(v), weak
#include "17_row_tail/attention.cu"
#undef visibility

namespace rung17_link {
const attn_phase phase = {
    1, "17_row_tail", "rung 17, as this rung passes shapes on to it",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
}  // namespace rung17_link
