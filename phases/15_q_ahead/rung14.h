// rung14.h: rung 14 as this rung calls it (defined in rung14.cu, not exported).
#pragma once

namespace rung14_link {
extern const attn_phase phase;
}
