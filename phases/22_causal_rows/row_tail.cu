// row_tail.cu: rung 17's row_tail.cu whole (not changed), as rung 21 compiles it: rung 15's
// q_ahead.cu (rung 13, rung 09's kernels and the two-Q-buffer kernels) and rung 17's path.
// Compiled here with this rung's include path, so its rung 09 kernels and rung 09's choice
// are overlay/09_tile_scheduling/'s (causal D = 64 rows under rung 13's bound).
#include "17_row_tail/row_tail.cu"
