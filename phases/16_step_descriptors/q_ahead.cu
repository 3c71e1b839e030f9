// q_ahead.cu: rung 15's q_ahead.cu whole (not changed): rung 13 with rung 09's choice and
// init, and rung 15's two-Q-buffer kernels. Compiled here with this rung's include path, so
// the rung 09 kernels it holds are built from overlay/09_tile_scheduling/mainloop.cuh; the
// two-Q-buffer kernels (rung 15's q_mainloop.cuh) are rung 15's, as built there.
#include "15_q_ahead/q_ahead.cu"
