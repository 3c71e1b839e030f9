// rung13.cu: rung 14's rung13.cu whole (not changed), as rung 16 compiles it: rung 13 and
// rung 14's short-keys path. Compiled here with this rung's include path, so its rung 09
// kernels and choice are overlay/09_tile_scheduling/'s.
#include "16_step_descriptors/rung13.cu"
