/* evidence/external_bridge.h: an external result's ratio to the run's baseline through a
 * bridge, as `run --external` writes it (ci/tools/torch_sdpa.py --bridge). The external was
 * paired in its own process (PyTorch's, where the C baseline binds to PyTorch's cuDNN) with
 * a rung, the bridge; the run timed that rung in its rotation with its own baseline. The
 * ratio is the product of the two paired ratios (stats_bridged_ratio_ci); the readers
 * recompute it by the same rule (result_ratio.h, result_bridge). */
#ifndef ATTNLADDER_EVIDENCE_EXTERNAL_BRIDGE_H
#define ATTNLADDER_EVIDENCE_EXTERNAL_BRIDGE_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t resamples;
    uint64_t seed;
    double ci_level;
} bridge_bootstrap;

/* res: one external result (its paired.baseline names the bridge, not `baseline`); impls
 * and results: the run's implementations and results so far. 1 and the ratio with its CI
 * when the bridge is a phase of the run timed at res's shape in rotation with `baseline`;
 * 0 when the run has no such row there (no ratio is written); -1 with the reason in err
 * when res's pairs are malformed or name an implementation that is not a phase of the run. */
int external_bridged_ratio(const json_t *res, const json_t *impls, const json_t *results, const char *baseline,
                           const bridge_bootstrap *bs, double *ratio, double *lo, double *hi, char *err,
                           size_t errlen);

#endif
