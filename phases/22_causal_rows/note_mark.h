// note_mark.h: which shapes this rung's choice moves, told from rung 21's note of the path
// (error_string(0) after init) and the shape. Host code only: ci/checks/test_note_mark.sh
// tests it on the notes the rungs below write and on this rung's.
#ifndef RUNG22_NOTE_MARK_H
#define RUNG22_NOTE_MARK_H
#include <cstring>

namespace rung22 {

// This rung gives a causal D = 64 shape rung 09's three-warpgroup kernel (on rung 21's
// dynamic scheduler: the note names "3wg" and the scheduler) wherever 192-row blocks hold at
// most 1.15x the rows of 128-row blocks. Rung 21's choice already took it wherever they pad
// seq_q by at most 4%; the shapes this rung moves are the others that now run it. The note
// gives neither the mask nor seq_q: the init's shape does.
inline bool causal_rows_moved(const char *rung21_note, int causal, int head_dim, int seq_q)
{
    if (!causal || head_dim != 64) return false;
    if (strstr(rung21_note, "3wg") == nullptr || strstr(rung21_note, "dynamic tile scheduler") == nullptr) return false;
    const long rows192 = (long)((seq_q + 191) / 192) * 192;
    return rows192 * 100 > (long)seq_q * 104;
}

}  // namespace rung22

#endif
