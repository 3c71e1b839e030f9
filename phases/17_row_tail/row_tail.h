// row_tail.h: this rung's own path, each head's rows cut into 192- and 128-row blocks, for
// the shapes tail_choice.cuh takes, as attention.cu calls it (defined in row_tail.cu, not
// exported).
#pragma once

namespace rowtail_link {
extern const attn_phase path;
bool takes(const attn_shape *s);
}
