// rung10.cu: rung 11's rung10.cu whole (not changed), as rung 16 compiles it: rung 10 with
// rungs 06-09 inside. Compiled here with this rung's include path, so its rung 09 kernels and
// choice are overlay/09_tile_scheduling/'s.
#include "16_step_descriptors/rung10.cu"
