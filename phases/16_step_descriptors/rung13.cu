// rung13.cu: rung 14's rung13.cu whole (not changed): rung 13, and rung 14's short-keys
// path, which rung 14 calls for every shape rung 15 passes on. Compiled here with this
// rung's include path, so the rung 09 kernels of rung 13 are built from
// overlay/09_tile_scheduling/mainloop.cuh.
#include "14_short_keys/rung13.cu"
