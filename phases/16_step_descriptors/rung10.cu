// rung10.cu: rung 11's rung10.cu whole (not changed): rung 10 (and through it rung 09),
// reached by rung 12's paths and by rung 13's delegation. Compiled here with this rung's
// include path, so its rung 09 kernels are built from overlay/09_tile_scheduling/
// mainloop.cuh: the causal kernels of the sweep's short prefills run from this object
// (ncu names them rung10::rung09::hopper_attention<D, 2, 1, 128, 128, 0>).
#include "11_split_keys/rung10.cu"
