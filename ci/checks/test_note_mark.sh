#!/usr/bin/env bash
# Rung 16's and rung 19's note marks (phases/16_step_descriptors/note_mark.h,
# phases/19_staged_store/note_mark.h). The report and the gates call two rungs' points the
# same kernel when their notes agree, so a changed kernel left unmarked would read as the
# rung below's, and a mark on an unchanged one would hide that the rungs run one code.
# Rung 16: a path whose kernel is one of rung 09's, which the rung rebuilds with its step
# descriptors, is marked, and no other. Its notes are those the rungs below write (rung 16's
# sessions of build d59a6d4, where no note was marked), one of each kind; the kernels rebuilt
# are those whose sm_90a code differs from rung 15's (README: every rung 09
# hopper_attention; the Q-ahead, latency, decode-row and passed-on rungs' kernels are the
# same bytes).
# Rung 19: a path whose kernel is rung 09's two-warpgroup ping-pong on 128-key tiles (one Q
# buffer or rung 15's two: the kernels whose epilogue it changed) is marked, and no other.
# Its notes are rung 18's, one of each kind rung 19's reference run (20261204T053548Z_ded03b9, in history)
# holds, cut; the first five kinds are those rung 19 marked there, the rest those it did not.
# Rung 20: a path rung 19 marks (its note carries rung 19's mark) runs this rung's kernel at
# D = 128 and rung 19's at D = 64, where the store is rung 19's loop: marked at D = 128 only,
# and never a path rung 19 does not mark. The head dimension is not in the note, so the cases
# give it as init has it. Rung 20's entry makes rung 19's mark itself (it cannot include rung
# 19's attention.cu, whose entry it would not rename), so both files must write it alike.
# Rung 21: a path whose note (rung 20's) names the three-warpgroup kernel and the dynamic
# tile scheduler runs this rung's kernel, and no other: below it no path had both. It writes
# rungs 19's and 20's marks itself, as rung 20 writes rung 19's.
# Rung 22: a causal D = 64 shape whose note (rung 21's) names the three-warpgroup kernel on
# the dynamic scheduler, and whose 192-row blocks pad seq_q by more than 4% (rung 21's choice
# would not have taken that kernel), was moved by this rung's choice; no other. It writes
# rungs 19's, 20's and 21's marks itself.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.cpp" <<'CPP'
#include <cstdio>
#include "16_step_descriptors/note_mark.h"
#include "19_staged_store/note_mark.h"
#include "20_store_loads_first/note_mark.h"
#include "21_dynamic_3wg/note_mark.h"
#include "22_causal_rows/note_mark.h"
static int fails, n16, n19, n20, n21, n22;
static void expect(bool (*mark)(const char *), const char *rung, bool want, const char *note)
{
    (rung[1] == '6' ? n16 : n19)++;
    if (mark(note) != want) {
        std::printf("test_note_mark: rung %s: %s, expected %s: %.70s\n", rung, want ? "unmarked" : "marked",
                    want ? "marked" : "unmarked", note);
        fails++;
    }
}
static void expect20(bool want, int head_dim, const char *note)
{
    n20++;
    if (rung20::loads_first_kernel(note, head_dim) != want) {
        std::printf("test_note_mark: rung 20: D=%d: %s, expected %s: %.70s\n", head_dim, want ? "unmarked" : "marked",
                    want ? "marked" : "unmarked", note);
        fails++;
    }
}
static void expect21(bool want, const char *note)
{
    n21++;
    if (rung21::dynamic_3wg_kernel(note) != want) {
        std::printf("test_note_mark: rung 21: %s, expected %s: %.70s\n", want ? "unmarked" : "marked",
                    want ? "marked" : "unmarked", note);
        fails++;
    }
}
static void expect22(bool want, int batch, int seq_q, int head_dim, int causal, const char *note)
{
    n22++;
    if (rung22::causal_rows_moved(note, causal, head_dim, seq_q) != want) {
        std::printf("test_note_mark: rung 22: %dx32x%dx%d%s: %s, expected %s: %.70s\n", batch, seq_q, head_dim,
                    causal ? " causal" : "", want ? "unmarked" : "marked", want ? "marked" : "unmarked", note);
        fails++;
    }
}
int main()
{
    expect(rung16::rebuilt_kernel, "16", true, "pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 115864 B shared memory");
    expect(rung16::rebuilt_kernel, "16", true, "pingpong-176: 2 consumer warpgroup(s), BM=128 BN=176, ragged keys first");
    expect(rung16::rebuilt_kernel, "16", true, "3wg: 3 consumer warpgroup(s), BM=192 BN=128, 124056 B shared memory");
    expect(rung16::rebuilt_kernel, "16", true, "1wg-overlap: 1 consumer warpgroup(s), BM=64 BN=128, ragged keys first");
    expect(rung16::rebuilt_kernel, "16", true, "short keys: pingpong: 2 consumer warpgroup(s), BM=128 BN=128, ragged keys first");
    expect(rung16::rebuilt_kernel, "16", true, "row blocks: 3wg: 3 consumer warpgroup(s), BM=192 BN=128");
    expect(rung16::rebuilt_kernel, "16", true, "keys split for the SMs: rung 09's pingpong-176 (2 consumer warpgroups, BM=128 BN=176");
    expect(rung16::rebuilt_kernel, "16", false, "Q ahead: pingpong, two Q buffers: 2 consumer warpgroup(s), BM=128 BN=128");
    expect(rung16::rebuilt_kernel, "16", false, "latency: 64-row query blocks, all 1 key tile(s) of 128 loaded at once");
    expect(rung16::rebuilt_kernel, "16", false, "latency-cluster: 64-row query blocks, the 4 key tiles of 128 split over clusters");
    expect(rung16::rebuilt_kernel, "16", false, "decode rows: 8 heads x 32 pieces of 16 key tiles of 64, 256 blocks of 128 threads");
    expect(rung16::rebuilt_kernel, "16", false, "07_wgmma_tma, passed on by occupancy: 09_tile_scheduling's choice, 1wg-overlap, runs");
    expect(rung16::rebuilt_kernel, "16", false, "08_warpgroup_pingpong, passed on by occupancy: 09_tile_scheduling's choice, 1wg-overlap");
    expect(rung16::rebuilt_kernel, "16", false, "06_tiling, passed on for a short grid: 09_tile_scheduling's choice, 1wg-overlap, runs");
    expect(rung16::rebuilt_kernel, "16", false, "pingpongs: a name that only begins like one");
    expect(rung16::rebuilt_kernel, "16", false, "");
    expect(rung19::staged_kernel, "19", true, "pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 115864 B shared memory");
    expect(rung19::staged_kernel, "19", true, "short keys, dynamic: pingpong: 2 consumer warpgroup(s), BM=128 BN=128");
    expect(rung19::staged_kernel, "19", true, "Q ahead: pingpong, two Q buffers: 2 consumer warpgroup(s), BM=128 BN=128");
    expect(rung19::staged_kernel, "19", true, "row tail, two launches side by side: rows 0-127 of each head: Q ahead: pingpong, two Q buffers");
    expect(rung19::staged_kernel, "19", true, "keys split for the SMs: rung 09's pingpong (2 consumer warpgroups, BM=128 BN=128");
    expect(rung19::staged_kernel, "19", false, "pingpong-176: 2 consumer warpgroup(s), BM=128 BN=176, ragged keys first (112 keys");
    expect(rung19::staged_kernel, "19", false, "keys split for the SMs: rung 09's pingpong-176 (2 consumer warpgroups, BM=128 BN=176");
    expect(rung19::staged_kernel, "19", false, "3wg: 3 consumer warpgroup(s), BM=192 BN=128, 124056 B shared memory");
    expect(rung19::staged_kernel, "19", false, "Q ahead: 3wg, two Q buffers: 3 consumer warpgroup(s), BM=192 BN=128");
    expect(rung19::staged_kernel, "19", false, "1wg-overlap: 1 consumer warpgroup(s), BM=64 BN=128, 107672 B shared memory");
    expect(rung19::staged_kernel, "19", false, "latency: 64-row query blocks, all 1 key tile(s) of 128 loaded at once");
    expect(rung19::staged_kernel, "19", false, "latency-cluster: 64-row query blocks, the 4 key tiles of 128 split over clusters");
    expect(rung19::staged_kernel, "19", false, "decode rows: 8 heads x 32 pieces of 16 key tiles of 64, 256 blocks of 128 threads");
    expect(rung19::staged_kernel, "19", false, "08_warpgroup_pingpong, passed on by occupancy: 09_tile_scheduling's choice, 1wg-overlap");
    expect(rung19::staged_kernel, "19", false, "07_wgmma_tma, passed on by occupancy: 09_tile_scheduling's choice, 1wg-overlap, runs");
    expect(rung19::staged_kernel, "19", false, "06_tiling, passed on for a short grid: 09_tile_scheduling's choice, 1wg-overlap, runs");
    expect(rung19::staged_kernel, "19", false, "pingpongs: a name that only begins like one");
    expect(rung19::staged_kernel, "19", false, "");
    expect20(true, 128, "pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 115864 B shared memory; O stored through shared memory (19_staged_store)");
    expect20(true, 128, "short keys, dynamic: pingpong: 2 consumer warpgroup(s), BM=128 BN=128; O stored through shared memory (19_staged_store)");
    expect20(true, 128, "Q ahead: pingpong, two Q buffers: 2 consumer warpgroup(s), BM=128 BN=128; O stored through shared memory (19_staged_store)");
    expect20(false, 64, "Q ahead: pingpong, two Q buffers: 2 consumer warpgroup(s), BM=128 BN=128; O stored through shared memory (19_staged_store)");
    expect20(false, 64, "row tail, two launches side by side: rows 0-127 of each head: Q ahead: pingpong; O stored through shared memory (19_staged_store)");
    expect20(false, 64, "pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 115864 B shared memory; O stored through shared memory (19_staged_store)");
    expect20(false, 128, "pingpong-176: 2 consumer warpgroup(s), BM=128 BN=176, ragged keys first (112 keys");
    expect20(false, 128, "latency: 64-row query blocks, all 1 key tile(s) of 128 loaded at once");
    expect20(false, 128, "1wg-overlap: 1 consumer warpgroup(s), BM=64 BN=128, 107672 B shared memory");
    expect20(false, 64, "3wg: 3 consumer warpgroup(s), BM=192 BN=128, 124056 B shared memory");
    expect20(false, 128, "");
    expect21(true, "3wg: 3 consumer warpgroup(s), BM=192 BN=128, 124056 B shared memory, 128 registers at entry (sm_90a code, wgmma), 2816 work tiles on 132 CTAs of 512 threads, 8 head(s) per tile group, dynamic tile scheduler, programmatic dependent launch; rung 09's kernel with step descriptors (16_step_descriptors)");
    expect21(false, "3wg: 3 consumer warpgroup(s), BM=192 BN=128, 124056 B shared memory, 128 registers at entry (sm_90a code, wgmma), 2816 work tiles on 2816 CTAs of 512 threads, 8 head(s) per tile group, programmatic dependent launch; rung 09's kernel with step descriptors (16_step_descriptors)");
    expect21(false, "pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 115864 B shared memory, 168 registers at entry (sm_90a code, wgmma), 4096 work tiles on 132 CTAs of 384 threads, 8 head(s) per tile group, dynamic tile scheduler, programmatic dependent launch; rung 09's kernel with step descriptors (16_step_descriptors); O stored through shared memory (19_staged_store)");
    expect21(false, "Q ahead: 3wg, two Q buffers: 3 consumer warpgroup(s), BM=192 BN=128");
    expect21(false, "row blocks: 3wg: 3 consumer warpgroup(s), BM=192 BN=128");
    expect21(false, "short keys, dynamic: pingpong: 2 consumer warpgroup(s), BM=128 BN=128; O stored through shared memory (19_staged_store)");
    expect21(false, "");
    /* the three-warpgroup dynamic note of rung 21's session 20261205T025243Z and of the
       rule's ab (studies/dynamic_3wg), and rung 21's ping-pong note at the same shapes, cut */
    const char *dyn3 = "3wg: 3 consumer warpgroup(s), BM=192 BN=128, 124056 B shared memory, 128 registers at entry (sm_90a code, wgmma), 3072 work tiles on 132 CTAs of 512 threads, 8 head(s) per tile group, dynamic tile scheduler, programmatic dependent launch; rung 09's kernel with step descriptors (16_step_descriptors); three warpgroups on the dynamic scheduler (21_dynamic_3wg)";
    const char *ping = "pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 115864 B shared memory, 168 registers at entry (sm_90a code, wgmma), 4096 work tiles on 132 CTAs of 384 threads, 8 head(s) per tile group, dynamic tile scheduler, programmatic dependent launch; rung 09's kernel with step descriptors (16_step_descriptors); O stored through shared memory (19_staged_store)";
    expect22(true, 32, 512, 64, 1, dyn3);     /* 576 rows of 192-row blocks: 12.5% padding, 1.125x */
    expect22(true, 16, 1024, 64, 1, dyn3);    /* 1152: 12.5%, 1.125x */
    expect22(true, 8, 2560, 64, 1, dyn3);     /* 2688: 5%, 1.05x */
    expect22(true, 8, 1792, 64, 1, dyn3);     /* 1920: 7.1%, 1.07x */
    expect22(false, 8, 2048, 64, 1, dyn3);    /* 2112: 3.1%, rung 21's choice already */
    expect22(false, 4, 4096, 64, 1, dyn3);    /* 4224: 3.1% */
    expect22(false, 32, 512, 64, 1, ping);    /* rung 21's note at the same shape */
    expect22(false, 64, 256, 64, 1, ping);    /* 384 against 256: over the bound, stays */
    expect22(false, 32, 512, 64, 0, dyn3);    /* not causal: rung 13's rule, not this rung's */
    expect22(false, 32, 512, 128, 1, dyn3);   /* D = 128 */
    expect22(false, 16, 1024, 64, 0, "row tail, two launches side by side: rows 0-255 of each head: Q ahead: pingpong, two Q buffers: 2 consumer warpgroup(s), BM=128 BN=128; rows 256-1023: Q ahead: 3wg, two Q buffers: 3 consumer warpgroup(s), BM=192 BN=128");
    expect22(false, 32, 512, 64, 1, "3wg: 3 consumer warpgroup(s), BM=192 BN=128, 124056 B shared memory, 2 block(s) per SM");  /* no scheduler */
    expect22(false, 32, 512, 64, 1, "");
    if (fails) return 1;
    std::printf("test_note_mark: rung 16: %d notes, rung 19: %d, rung 20: %d, rung 21: %d, rung 22: %d, each marked as its "
                "kernel or choice changed or not\n", n16, n19, n20, n21, n22);
    return 0;
}
CPP
g++ -std=c++17 -Wall -Wextra -Werror -Iphases -o "$tmp/t" "$tmp/t.cpp" || { echo "test_note_mark: does not compile" >&2; exit 1; }
"$tmp/t" || exit 1
# Rung 20 writes rung 19's mark itself: the same words as rung 19's entry, or its D = 64 notes
# would no longer read as rung 19's.
mark='"%s; O stored through shared memory (19_staged_store)"'
for f in phases/19_staged_store/attention.cu phases/20_store_loads_first/attention.cu phases/21_dynamic_3wg/attention.cu \
         phases/22_causal_rows/attention.cu; do
    grep -qF "$mark" "$f" || { echo "test_note_mark: $f does not write rung 19's mark, $mark" >&2; exit 1; }
done
# Rung 21 writes rung 20's mark itself, for the same reason.
mark='"%s; loads before stores (20_store_loads_first)"'
for f in phases/20_store_loads_first/attention.cu phases/21_dynamic_3wg/attention.cu phases/22_causal_rows/attention.cu; do
    grep -qF "$mark" "$f" || { echo "test_note_mark: $f does not write rung 20's mark, $mark" >&2; exit 1; }
done
# Rung 22 writes rung 21's mark itself, for the same reason.
mark='"%s; three warpgroups on the dynamic scheduler (21_dynamic_3wg)"'
for f in phases/21_dynamic_3wg/attention.cu phases/22_causal_rows/attention.cu; do
    grep -qF "$mark" "$f" || { echo "test_note_mark: $f does not write rung 21's mark, $mark" >&2; exit 1; }
done
