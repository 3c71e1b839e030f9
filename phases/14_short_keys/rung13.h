// rung13.h: rung 13 as this rung calls it, and this rung's own path (both defined in
// rung13.cu, not exported).
#pragma once

namespace rung13_link {
extern const attn_phase phase;
// Rung 09's two-buffer 128-key ping-pong for the shapes key_choice.cuh takes, and which
// shapes those are.
extern const attn_phase short_keys;
bool short_keys_takes(const attn_shape *s);
}
