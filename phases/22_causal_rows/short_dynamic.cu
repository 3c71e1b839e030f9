// short_dynamic.cu: rung 18's short_dynamic.cu whole (not changed), as rung 21 compiles it.
// Compiled here with this rung's include path, so the rung 09 kernels and choice it holds are
// overlay/09_tile_scheduling/'s (causal D = 64 rows under rung 13's bound).
#include "18_short_dynamic/short_dynamic.cu"
