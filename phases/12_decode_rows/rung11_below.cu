// rung11_below.cu: rung 11's second translation unit (its rung10.cu: rung 10 whole, and
// the wgmma split path, behind the tables rung10_link::phase and rung10_link::split09), in
// namespace rung11, where attention.cu's include of rung 11 declares those tables.
//
// It is a translation unit of its own for the reason rung 11 gives: rung 10's entry point
// keeps the ABI's C name (made weak there), which beside this rung's entry in one
// translation unit would be one object defined twice; the linker keeps this rung's.
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

namespace rung11 {
#include "11_split_keys/rung10.cu"
}  // namespace rung11
