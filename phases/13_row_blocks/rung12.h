// rung12.h: rung 12 as this rung calls it (defined in rung12.cu, not exported).
#pragma once

namespace rung12_link {
extern const attn_phase phase;
}
