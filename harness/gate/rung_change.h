/* gate/rung_change.h: which rungs a pull request changed, from the records each build
 * keeps beside a rung's binary (ci/tools/record_sources.sh): NAME.so.sha256 (the binary)
 * and NAME.sources.sha256 (every file it was compiled from, by its path in the tree).
 *
 * Why the A/B gate needs it: one shape per code path cannot see a change to the shape
 * rule that picks between the paths (a threshold moved, a tile or split count), so a rung
 * whose rule may have changed is timed at every sweep point. The rule here:
 *   - a rung's own sources differ (a differing or added path under phases/ or kernels/):
 *     changed, every sweep point;
 *   - only its binary differs: changed, every sweep point, unless the binary of every
 *     rung whose sources are alike differs (two or more): that is a toolchain, flag or
 *     harness change (or builds that are not byte-for-byte reproducible), which moves the
 *     machine code of every kernel but no shape rule, and one shape per code path times
 *     every kernel a rule can pick (ab adds the sweep shapes whose init notes moved);
 *   - only a shared source differs (harness/include/attn_phase.h): the same, a harness
 *     change;
 *   - a record missing on either side: cannot tell, so changed (every sweep point).
 * The records are untrusted input: a malformed one is refused with its file named. */
#ifndef ATTNLADDER_GATE_RUNG_CHANGE_H
#define ATTNLADDER_GATE_RUNG_CHANGE_H
#include <stddef.h>

typedef enum {
    RUNG_SAME,            /* binary and sources alike */
    RUNG_OWN_SOURCES,     /* a source of the rung's own (phases/, kernels/) differs */
    RUNG_BINARY,          /* the binary alone differs */
    RUNG_SHARED_SOURCES,  /* only sources outside phases/ and kernels/ differ */
    RUNG_NO_RECORD        /* a build holds no record of what the rung was built from */
} rung_change_kind;

typedef struct {
    rung_change_kind kind;
    int binary_differs;
    int sweep;            /* out of rung_changes_decide: 1 time every sweep point */
    char first_diff[512]; /* a differing source path, or the missing record's side */
} rung_change;

/* Reads BUILD/phases/NAME.so.sha256 and NAME.sources.sha256 of both builds and classifies
 * NAME (name must be a safe file name). 0, or -1 with err naming the file and the line
 * when a record is present but malformed (a record absent is RUNG_NO_RECORD, not an
 * error). */
int rung_change_read(const char *base_build, const char *head_build, const char *name, rung_change *c,
                     char *err, size_t errlen);

/* The same from the records' texts (NULL: absent), for tests; paths name the files in
 * err. */
int rung_change_of_texts(const char *base_so, const char *head_so, const char *base_src, const char *head_src,
                         const char *const paths[4], const char *name, rung_change *c, char *err, size_t errlen);

/* Sets each rung's sweep by the rule above over the rungs both builds have. Returns 1 when
 * the change is build-wide (toolchain, flags or harness: code paths only), else 0. */
int rung_changes_decide(rung_change *c, size_t n);

/* Why, in a few words, for the output and the evidence ("sources differ: phases/...").
 * Writes into buf and returns it. */
const char *rung_change_why(const rung_change *c, int wide, char *buf, size_t len);

#endif
