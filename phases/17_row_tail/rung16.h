// rung16.h: rung 16 as this rung calls it (defined in rung16.cu, not exported).
#pragma once

namespace rung16_link {
extern const attn_phase phase;
}
