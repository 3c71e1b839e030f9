/* gate/code_paths.h: which shapes the A/B gate must time so that every code path of every
 * rung is timed at least once. The paths come from the rungs themselves: after init, a
 * phase's error_string(0) describes what it chose for that shape (the ABI's convention).
 * Its path is that note with the numbers that only count things masked (a standalone
 * number: "2048 CTAs", "98304 B", "cuBLAS 130100"), and the numbers that name a choice kept
 * (those attached to a word: "bm=128", "BN=176", "3wg", "sm_90a"). A rung whose note is the
 * same at every shape has one path.
 *
 * The choice is pure (no GPU): the caller inits each implementation at each shape of the
 * standard sweep and hands over the notes. */
#ifndef ATTNLADDER_GATE_CODE_PATHS_H
#define ATTNLADDER_GATE_CODE_PATHS_H
#include <stddef.h>

#define CODE_PATH_KEY_MAX 320

/* The path a note names: the note with each standalone number replaced by '#', cut to
 * len - 1 bytes. A NULL or empty note is the path "" (one path: the rung says nothing). */
void code_path_of_note(const char *note, char *key, size_t len);

/* One candidate shape of one implementation, as probed in both builds. */
typedef struct {
    char base_key[CODE_PATH_KEY_MAX];   /* the path in the base build */
    char head_key[CODE_PATH_KEY_MAX];   /* the path in the head build */
    double work;                        /* shape_flops: the tie-break between shapes of a path */
    int fixed;                          /* 1: already in the gate's fixed set (always timed) */
    int note_moved;                     /* 1: the two builds' notes differ here in full, counts
                                           included (a split count, a grid): the rule chose
                                           otherwise even where the path is the same */
    int chosen;                         /* out: 1 when this shape is added to reach a path */
} code_path_probe;

/* Marks, for every path of either build that no fixed shape reaches, the one shape that
 * times it: the largest by work up to work_cap (the throughput shape's work: the gate's
 * time per comparison stays what it is), else the smallest above it; ties go to the
 * first. Returns the number of shapes chosen (each path of each build reached once). */
size_t code_paths_choose(code_path_probe *p, size_t n, double work_cap);

/* The rule probes (shapes off the standard sweep, gate/README.md): among the probes whose
 * notes moved (note_moved), marks one for each distinct move (base path -> head path, the
 * same path with other counts included): the largest by work up to work_cap, else the
 * smallest above it; ties go to the first. Probes whose notes did not move are never
 * marked. Returns the number marked. */
size_t code_paths_choose_moved(code_path_probe *p, size_t n, double work_cap);

/* The distinct paths of one side (0 base, 1 head) among the probes, in first-seen order:
 * writes up to cap indices of a representative probe each and returns the count. */
size_t code_paths_distinct(const code_path_probe *p, size_t n, int head, size_t *first, size_t cap);

#endif
