// rung10.h: the phases below as this rung calls them (defined in rung10.cu, not exported).
#pragma once

namespace rung10_link {
extern const attn_phase phase;
// Rung 09's kernel with its keys split over every SM (wgmma_split.cuh), and which shapes it
// takes.
extern const attn_phase split09;
bool split09_takes(const attn_shape *s);
}
