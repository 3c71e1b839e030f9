// row_tail.h: this rung's own path, the full row blocks and the row tail launched apart, for
// the shapes tail_choice.cuh takes, as attention.cu calls it (defined in row_tail.cu, not
// exported).
#pragma once

namespace rowtail_link {
extern const attn_phase path;
bool takes(const attn_shape *s);
}
