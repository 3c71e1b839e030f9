// short_dynamic.cu: rung 18's short_dynamic.cu whole (not changed), as rung 20 compiles it.
// Compiled here with this rung's include path, so the rung 09 kernels it holds are built from
// overlay/09_tile_scheduling/ (host_choice.cuh: the three-warpgroup kernel on the dynamic
// scheduler for causal shapes).
#include "18_short_dynamic/short_dynamic.cu"
