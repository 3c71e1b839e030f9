// note_mark.h: which of rung 15's paths run a kernel this rung rebuilt, told from the path's
// note (error_string(0) after init). Host code only: ci/checks/test_note_mark.sh tests it on
// the notes the rungs below write.
#ifndef RUNG16_NOTE_MARK_H
#define RUNG16_NOTE_MARK_H
#include <cstring>
#include <initializer_list>

namespace rung16 {

// Whether `s` begins with `head`: the prefix `head` skipped, or NULL.
inline const char *after(const char *s, const char *head)
{
    const size_t n = strlen(head);
    return strncmp(s, head, n) == 0 ? s + n : nullptr;
}

// Rung 09's kernels are named by their configuration (host_choice.cuh: "1wg-overlap", "3wg",
// "pingpong", "pingpong-176"); rung 13 may put "row blocks: " before that and rung 14 "short
// keys: " in its place; rung 11's split names "rung 09's" configuration after its own head.
// Every other path (Q ahead, latency, decode rows, a rung passed on to) runs a kernel this rung
// does not rebuild.
inline bool rebuilt_kernel(const char *note)
{
    if (after(note, "keys split for the SMs: rung 09's ")) return true;
    for (const char *lead : { "row blocks: ", "short keys: " })
        if (const char *rest = after(note, lead)) note = rest;
    for (const char *config : { "1wg-overlap:", "3wg:", "pingpong:", "pingpong-176:" })
        if (after(note, config)) return true;
    return false;
}

}  // namespace rung16

#endif
