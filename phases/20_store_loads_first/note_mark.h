// note_mark.h: which of rung 19's paths run a kernel whose store this rung changed, told from
// rung 19's note of the path (error_string(0) after init) and the head dimension. Host code
// only: ci/checks/test_note_mark.sh tests it on the notes the rungs below write.
#ifndef RUNG20_NOTE_MARK_H
#define RUNG20_NOTE_MARK_H
#include <cstring>

namespace rung20 {

// Rung 19 marks the paths whose kernel ends its work tiles with the staged store (its note
// ends "(19_staged_store)"); this rung changes that store at D = 128 only, so it marks those
// paths at D = 128 and no other: at D = 64 it runs rung 19's kernel, and the note must say so.
inline bool loads_first_kernel(const char *rung19_note, int head_dim)
{
    return head_dim == 128 && strstr(rung19_note, "(19_staged_store)") != nullptr;
}

}  // namespace rung20

#endif
