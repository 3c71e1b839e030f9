/* gate/evaluate.h: the ladder gate and the comparison of a run with a reference run
 * (`gate RUN --against REF`, judged by the drift rule with the accepted set's tolerance,
 * gate/regression.h) applied to runs: one check per (phase, shape, question), each with its
 * numbers, verdict and a sentence for people; printed as a table or written as JSON. */
#ifndef ATTNLADDER_GATE_EVAL_H
#define ATTNLADDER_GATE_EVAL_H
#include <stdio.h>
#include <jansson.h>
#include "gate/config.h"
#include "gate/decide.h"
#include "gate/drift.h"
#include "gate/drift_spread.h"
#include "gate/ratio.h"
#include "evidence/reader.h"

typedef enum {
    CHECK_BOUND,         /* ladder: ratio CI upper end below the phase's bound */
    CHECK_NO_BOUND,      /* ladder: a phase in the run without a bound in the config */
    CHECK_MISSING,       /* a phase or shape the gate expects that the run lacks */
    CHECK_CORRECT,       /* ladder: correct on every shape the phase claims */
    CHECK_REGRESSION     /* the run's ratio against the reference run's, by the drift rule */
} check_kind;

typedef struct {
    check_kind kind;
    const char *phase;   /* borrowed from the config or the runs */
    int has_shape;
    attn_shape shape;
    int pass;
    double ratio, lo, hi, bound;     /* CHECK_BOUND */
    reg_change change;               /* CHECK_REGRESSION: the bootstrapped change, shown */
    drift_ref ref_drift;             /* CHECK_REGRESSION: centre and tolerance */
    double now, now_lo, now_hi;      /* CHECK_REGRESSION: the run's ratio and CI */
    drift_verdict verdict;
    char message[448];
} gate_check;

typedef struct {
    gate_check *checks;
    size_t n, cap;
    size_t failures;
    size_t skipped;      /* regression: shapes of the reference absent from the run */
    size_t set_runs;     /* regression: runs of the accepted set the tolerances come from */
    int set_measured;    /* regression: the set is large enough for its spread to count */
    double set_floor;    /* regression: the floor the tolerances took (drift_params_for_set) */
    int baseline_changed;/* regression: the two runs' baseline libraries differ (no row judged) */
    char baseline_text[768];   /* regression: what baseline_lib_text says, "" when the same */
} gate_outcome;

/* Each returns 0 (checks appended; failures counted) or -1 for bad input (err: the
 * baseline absent or untimed at a headline shape, runs of different GPUs, ...). */
int gate_ladder(const gate_config *c, const run_data *run, gate_outcome *o, char *err, size_t errlen);
/* run against ref, each judged row by the drift rule with the tolerance `spread` (the
 * accepted set without `run`; NULL: the floor alone) gives; a phase or headline shape of
 * ref that run lacks fails ("missing"). */
int gate_regression(const gate_config *c, const run_data *run, const run_data *ref,
                    const drift_spread *spread, gate_outcome *o, char *err, size_t errlen);
void gate_outcome_free(gate_outcome *o);

/* The ladder verdict of one phase at one headline shape, for the report's column:
 * "pass", "FAIL: ...", "no bound". */
void gate_phase_verdict(const gate_outcome *o, const char *phase, const attn_shape *s,
                        char *buf, size_t len);

/* The table for people (ladder and regression sections, then the summary line); brief:
 * only the failed and the inconclusive checks. */
void gate_print(FILE *f, const gate_config *c, const run_data *run, const run_data *ref,
                const gate_outcome *ladder, const gate_outcome *reg, int brief);
/* The same for machines. */
json_t *gate_json(const gate_config *c, const run_data *run, const run_data *ref,
                  const gate_outcome *ladder, const gate_outcome *reg);

#endif
