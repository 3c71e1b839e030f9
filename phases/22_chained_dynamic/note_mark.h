// note_mark.h: which of rung 21's paths run the kernel this rung changes, told from rung
// 21's note of the path (error_string(0) after init) and the head dimension. Host code only:
// ci/checks/test_note_mark.sh tests it on the notes the rungs below write and on this rung's.
#ifndef RUNG22_NOTE_MARK_H
#define RUNG22_NOTE_MARK_H
#include <cstring>

namespace rung22 {

// The kernel changed is rung 09's two-warpgroup ping-pong on the dynamic tile scheduler at
// D = 128 (one P buffer): its note names the variant "pingpong" (not "pingpong-176", which
// has no dynamic scheduler) and, from rung 09's init, the scheduler. At D = 64 the same
// variant has two P buffers and is not chained; the note does not give D, the init does.
inline bool chained_dynamic_kernel(const char *rung21_note, int head_dim)
{
    return head_dim == 128 && strstr(rung21_note, "pingpong:") != nullptr &&
           strstr(rung21_note, "dynamic tile scheduler") != nullptr;
}

}  // namespace rung22

#endif
