// note_mark.h: which of rung 20's paths run the kernel this rung adds, told from rung 20's
// note of the path (error_string(0) after init). Host code only: ci/checks/test_note_mark.sh
// tests it on the notes the rungs below write and on this rung's.
#ifndef RUNG21_NOTE_MARK_H
#define RUNG21_NOTE_MARK_H
#include <cstring>

namespace rung21 {

// The kernel added is rung 09's three-warpgroup kernel on the dynamic tile scheduler: its
// note names the configuration "3wg" and, from rung 09's init, the scheduler ("dynamic tile
// scheduler"). Below this rung no path has both: the three-warpgroup kernel ran one block
// per work tile on causal shapes, and non-causal shapes take no dynamic scheduler.
inline bool dynamic_3wg_kernel(const char *rung20_note)
{
    return strstr(rung20_note, "3wg") != nullptr && strstr(rung20_note, "dynamic tile scheduler") != nullptr;
}

}  // namespace rung21

#endif
