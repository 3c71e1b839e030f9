// short_dynamic.h: this rung's own path, the short keys on the dynamic tile scheduler, for
// the shapes dyn_choice.cuh takes, as attention.cu calls it (defined in short_dynamic.cu,
// not exported).
#pragma once

namespace shortdyn_link {
extern const attn_phase path;
bool takes(const attn_shape *s);
}
