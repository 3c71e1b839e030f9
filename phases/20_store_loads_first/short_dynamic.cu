// short_dynamic.cu: rung 18's short_dynamic.cu whole (not changed): rung 13 with rung 16's
// build of rung 09's kernels, and rung 18's path. Compiled here with this rung's include path,
// so the rung 09 kernels it holds are built from overlay/09_tile_scheduling/ (epilogue.cuh:
// rung 19's staged store, its loads first at D = 128).
#include "18_short_dynamic/short_dynamic.cu"
