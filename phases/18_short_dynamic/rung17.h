// rung17.h: rung 17 as this rung calls it (defined in rung17.cu, not exported).
#pragma once

namespace rung17_link {
extern const attn_phase phase;
}
