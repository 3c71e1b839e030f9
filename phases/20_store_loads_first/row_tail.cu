// row_tail.cu: rung 17's row_tail.cu whole (not changed): rung 15's q_ahead.cu (rung 13, rung
// 09's kernels and the two-Q-buffer kernels) and rung 17's path. Compiled here with this
// rung's include path, so its rung 09 kernels and the two-Q-buffer kernels (rung 15's
// q_mainloop.cuh ends its work tiles with rung 09's epilogue) store O as
// overlay/09_tile_scheduling/epilogue.cuh does (rung 19's staged store, its loads first at
// D = 128).
#include "17_row_tail/row_tail.cu"
