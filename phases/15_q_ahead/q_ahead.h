// q_ahead.h: this rung's own path, the two-Q-buffer kernels for the shapes q_choice.cuh
// takes, as attention.cu calls it (defined in q_ahead.cu, not exported).
#pragma once

namespace qahead_link {
extern const attn_phase path;
bool takes(const attn_shape *s);
}
