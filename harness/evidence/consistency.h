/* evidence/consistency.h: a run checked against its limits and against itself, after
 * evidence_file.c has checked its structure (evidence/SCHEMA.md, "Limits" and
 * "Consistency"). A run comes with a pull request: what it says about its samples,
 * verdicts and derived figures is recomputed here rather than believed, and every
 * count a consumer loops over or computes with is bounded. */
#ifndef ATTNLADDER_EVIDENCE_CONSISTENCY_H
#define ATTNLADDER_EVIDENCE_CONSISTENCY_H
#include <stddef.h>
#include <jansson.h>

/* The limits of one run file (SCHEMA.md says why each is where it is). */
#define EVIDENCE_MAX_FILE_BYTES (32u << 20)   /* the largest committed run is 1.3 MB */
#define EVIDENCE_MAX_IMPLS 256
#define EVIDENCE_MAX_RESULTS 5000             /* compare matches rows pairwise: 11 s at 20000 */
#define EVIDENCE_MAX_SAMPLES 100000           /* per samples array: run's --max-samples limit */
#define EVIDENCE_MAX_TOTAL_SAMPLES 800000     /* all timing samples and pairs of a run */
#define EVIDENCE_MAX_PROFILES 1024
#define EVIDENCE_MAX_KERNELS 256              /* per profile row */
#define EVIDENCE_MAX_BUILD_KERNELS 4096       /* resources.kernels per implementation */
#define EVIDENCE_MAX_METRICS 512              /* per kernel */
#define EVIDENCE_MAX_STALLS 64
#define EVIDENCE_MAX_INPUT_CHECKS 5000
#define EVIDENCE_MAX_MEMBERS 1024             /* of any object (env_overrides, metrics) */
#define EVIDENCE_RESAMPLES_MIN 100            /* method.bootstrap_resamples */
#define EVIDENCE_RESAMPLES_MAX 10000
#define EVIDENCE_MAX_BOOTSTRAP_WORK 1.6e9     /* resamples x samples: 2000 x 800000 */

/* The correctness bounds of runs that do not record method.bounds (correctness.c's). */
#define EVIDENCE_DEFAULT_REL_L2 2e-3
#define EVIDENCE_DEFAULT_MAX_ABS 1e-2

/* 0 when doc (structurally valid evidence) keeps its limits, holds only printable text
 * in the forms its fields allow, and agrees with itself; else -1 and err holds
 * "<field path>: <problem>". */
int evidence_consistent(const json_t *doc, char *err, size_t errlen);

#endif
