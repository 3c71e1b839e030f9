// short_dynamic.cu: rung 18's short_dynamic.cu whole (not changed), as rung 21 compiles it.
// Compiled here with this rung's include path, so the rung 09 kernels it holds are built from
// overlay/09_tile_scheduling/ (kernel_traits.cuh and mainloop.cuh: the two-warpgroup D = 128
// kernel on the dynamic scheduler chains its work tiles, the kernel rung 18's 128-key path
// runs).
#include "18_short_dynamic/short_dynamic.cu"
