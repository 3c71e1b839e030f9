#!/usr/bin/env bash
# Rung 16's note mark (phases/16_step_descriptors/note_mark.h): a path whose kernel is one
# of rung 09's, which the rung rebuilds with its step descriptors, is marked, and no other.
# The report and the gates call two rungs' points the same kernel when their notes agree,
# so a rebuilt kernel left unmarked would read as rung 15's. The notes below are those the
# rungs below write (rung 16's sessions of build d59a6d4, where no note was marked), one of
# each kind; the kernels rebuilt are those whose sm_90a code differs from rung 15's
# (README: every rung 09 hopper_attention; the Q-ahead, latency, decode-row and passed-on
# rungs' kernels are the same bytes).
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.cpp" <<'CPP'
#include <cstdio>
#include "16_step_descriptors/note_mark.h"
static int fails;
static void expect(bool want, const char *note)
{
    if (rung16::rebuilt_kernel(note) != want) {
        std::printf("test_note_mark: %s, expected %s: %.70s\n", want ? "unmarked" : "marked",
                    want ? "marked" : "unmarked", note);
        fails++;
    }
}
int main()
{
    expect(true, "pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 115864 B shared memory");
    expect(true, "pingpong-176: 2 consumer warpgroup(s), BM=128 BN=176, ragged keys first");
    expect(true, "3wg: 3 consumer warpgroup(s), BM=192 BN=128, 124056 B shared memory");
    expect(true, "1wg-overlap: 1 consumer warpgroup(s), BM=64 BN=128, ragged keys first");
    expect(true, "short keys: pingpong: 2 consumer warpgroup(s), BM=128 BN=128, ragged keys first");
    expect(true, "row blocks: 3wg: 3 consumer warpgroup(s), BM=192 BN=128");
    expect(true, "keys split for the SMs: rung 09's pingpong-176 (2 consumer warpgroups, BM=128 BN=176");
    expect(false, "Q ahead: pingpong, two Q buffers: 2 consumer warpgroup(s), BM=128 BN=128");
    expect(false, "latency: 64-row query blocks, all 1 key tile(s) of 128 loaded at once");
    expect(false, "latency-cluster: 64-row query blocks, the 4 key tiles of 128 split over clusters");
    expect(false, "decode rows: 8 heads x 32 pieces of 16 key tiles of 64, 256 blocks of 128 threads");
    expect(false, "07_wgmma_tma, passed on by occupancy: 09_tile_scheduling's choice, 1wg-overlap, runs");
    expect(false, "08_warpgroup_pingpong, passed on by occupancy: 09_tile_scheduling's choice, 1wg-overlap");
    expect(false, "06_tiling, passed on for a short grid: 09_tile_scheduling's choice, 1wg-overlap, runs");
    expect(false, "pingpongs: a name that only begins like one");
    expect(false, "");
    if (fails) return 1;
    std::printf("test_note_mark: 16 notes, each marked as its kernel was rebuilt or not\n");
    return 0;
}
CPP
g++ -std=c++17 -Wall -Wextra -Werror -Iphases -o "$tmp/t" "$tmp/t.cpp" || { echo "test_note_mark: does not compile" >&2; exit 1; }
"$tmp/t"
