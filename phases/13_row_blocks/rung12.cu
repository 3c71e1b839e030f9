// rung12.cu: rung 12 whole (not changed), in namespace rung12, and the table through which
// attention.cu calls it for every shape this rung passes on (rung12_link::phase, hidden).
//
// Rung 12 is compiled in a translation unit of its own, as rung 11 compiles rung 10
// (../11_split_keys/rung10.cu): its entry point has C linkage under the ABI's name, which in
// one unit with this rung's entry would be defined twice. Here its definition is made weak,
// so the linker keeps this rung's entry (attention.cu) and drops rung 12's. Rung 12's own
// second unit, rung 11's rung10.cu, is linked as rung 11 built it (the Makefile's
// PHASE_LINKS_13_row_blocks).
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung12.h"
// Rung 11's tables of the rungs below, at global scope, as rung 12 declares them before it
// includes rung 11 (its include inside namespace rung12 is then empty): they name the
// definitions in rung 11's rung10.cu object.
#include "11_split_keys/rung10.h"

#define visibility(v) visibility(v), weak
namespace rung12 {
#include "12_decode_rows/attention.cu"
}  // namespace rung12
#undef visibility

namespace rung12_link {
const attn_phase phase = {
    1, "12_decode_rows", "rung 12, as this rung passes shapes on to it",
    rung12::unsupported, rung12::workspace_bytes, rung12::init, rung12::run, rung12::fini, rung12::error_string,
};
}  // namespace rung12_link
