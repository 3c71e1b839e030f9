// q_ahead.cu: this rung's path: rung 09's static ragged-first kernels on 128-key tiles
// with two Q buffers (q_traits.cuh, q_mainloop.cuh) for the shapes q_choice.cuh takes,
// launched as rung 14 launches their one-buffer originals, through a table
// (qahead_link::path) that attention.cu calls.
//
// The choice and the launch are rung 13's and rung 09's, so this unit holds rung 13 whole
// (not changed), in namespace rung13, as rung 14's rung13.cu does: rung 09's choice,
// rung 13's row rule and its init_rows (rung 09's init from the choice on), which only a
// unit holding rung 13 can call. Rung 13's entry is made weak here, and the entry of rung 09
// inside it renamed (rung 14's rung13.cu object, linked beside this one, defines the name
// rung 13 gives it). The kernels of q_mainloop.cuh are compiled beside rung 09's, in
// namespace rung13::rung09::qahead, where every name but their own and Cfg is rung 09's.
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
#include "q_ahead.h"
// Rung 13's table of rung 12, at global scope, as rung 13 declares it (its include inside
// namespace rung13 is then empty): the definition in rung 13's rung12.cu object. And rung
// 14's table of its short-keys rule (rung 14's rung13.cu object), which this rung leaves
// to rung 14.
#include "13_row_blocks/rung12.h"
#include "14_short_keys/rung13.h"

// Rung 13's init_rows checks its workspace against ::workspace_bytes (rung 13's own, when
// it is its own unit); here that name answers with this path's (below).
namespace {
size_t workspace_bytes(const attn_shape *s);
}

#define visibility(v) visibility(v), weak
#define attn_phase_entry_09_13 attn_phase_entry_09_15
namespace rung13 {
#include "13_row_blocks/attention.cu"
}  // namespace rung13
#undef attn_phase_entry_09_13
#undef visibility

namespace rung13 {
namespace rung09 {
namespace qahead {
#include "q_traits.cuh"
#include "q_mainloop.cuh"
}  // namespace qahead
}  // namespace rung09
}  // namespace rung13

#include "q_choice.cuh"

namespace {
size_t workspace_bytes(const attn_shape *s) { return q_ahead::workspace_bytes(s); }
}  // namespace

namespace qahead_link {
const attn_phase path = {
    1, "09_tile_scheduling", "rung 09's static ragged-first 128-key kernels with two Q buffers",
    rung13::rung09::unsupported, q_ahead::workspace_bytes, q_ahead::init, rung13::rung09::run,
    rung13::rung09::fini, rung13::rung09::error_string,
};
bool takes(const attn_shape *s) { return q_ahead::takes(s); }
}  // namespace qahead_link
