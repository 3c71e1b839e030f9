// note_mark.h: which of rung 18's paths run a kernel whose epilogue this rung changed, told
// from the path's note (error_string(0) after init). Host code only: ci/checks/
// test_note_mark.sh tests it on the notes the rungs below write.
#ifndef RUNG19_NOTE_MARK_H
#define RUNG19_NOTE_MARK_H
#include <cctype>
#include <cstring>

namespace rung19 {

// The kernels changed are rung 09's two-warpgroup ping-pong on 128-key tiles, with one Q
// buffer or rung 15's two (overlay/09_tile_scheduling/epilogue.cuh, Epilogue::STAGED). Their
// notes name the configuration "pingpong" as a word of its own: "pingpong: ...", "short
// keys, dynamic: pingpong: ...", "Q ahead: pingpong, two Q buffers: ...", inside rung 17's
// row-tail note, or "rung 09's pingpong (" in rung 11's. "pingpong-176" (the 176-key kernel,
// with the split tail) and "08_warpgroup_pingpong" (rung 08's own kernel) are others.
inline bool staged_kernel(const char *note)
{
    static const char word[] = "pingpong";
    const size_t n = sizeof word - 1;
    for (const char *p = strstr(note, word); p; p = strstr(p + 1, word)) {
        const bool starts = p == note || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-');
        const char next = p[n];
        if (starts && (next == ':' || next == ',' || next == ' ')) return true;
    }
    return false;
}

}  // namespace rung19

#endif
