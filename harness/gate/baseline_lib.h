/* gate/baseline_lib.h: whether a run's baseline is the same library as its reference's.
 * Every gate ratio is a rung's time over the baseline's, so a run whose baseline library
 * (context.versions.cudnn) differs from the accepted set's, or from the compared run's,
 * moves every ratio by the library's own difference (cuDNN 9.14 and 9.19 differ by 5-12%
 * at D=64 and causal D=128): "baseline changed", a verdict of its own, never drift. A run
 * that lacks the version (files from before it was recorded) is "baseline library
 * unknown" and judged as before. */
#ifndef ATTNLADDER_GATE_BASELINE_LIB_H
#define ATTNLADDER_GATE_BASELINE_LIB_H
#include <stddef.h>
#include "evidence/reader.h"

typedef enum {
    BASELINE_LIB_SAME = 0,
    BASELINE_LIB_UNKNOWN,    /* the run's or some reference's version is not recorded */
    BASELINE_LIB_CHANGED     /* both recorded, and they differ: not judged as drift */
} baseline_lib_verdict;

typedef struct {
    baseline_lib_verdict verdict;
    long now, ref;           /* the versions (CUDNN_VERSION, 91400 = 9.14.0), -1 unknown */
    const char *ref_path;    /* the reference run they were read from (borrowed) */
} baseline_lib;

/* run against the runs refs[0..n): CHANGED at the first reference whose version and the
 * run's are both recorded and differ; else UNKNOWN when a version is missing; else SAME. */
baseline_lib baseline_lib_of(const run_data *run, const run_data *refs, size_t n);

/* One sentence for the gate's and compare's output (plain text). */
void baseline_lib_text(const baseline_lib *b, char *buf, size_t len);

#endif
