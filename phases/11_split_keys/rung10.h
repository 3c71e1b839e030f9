// rung10.h: rung 10's phase ABI as this rung calls it (defined in rung10.cu, not exported).
#pragma once

namespace rung10_link {
extern const attn_phase phase;
}
