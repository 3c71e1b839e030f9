/* regression.h: the rows two runs are compared on, one per (implementation, shape), each
 * with the change of its ratio to the baseline and, at a judged row, the drift rule's
 * verdict (gate/drift.h): the run under test against the reference run's ratio, with the
 * tolerance the accepted set's spread gives at that row (gate/drift_spread.h). `gate RUN
 * --against REF` turns the rows into checks, `compare` into a markdown table, the report
 * into its gate line; all three take them from here so that they judge the same rows
 * alike. */
#ifndef ATTNLADDER_GATE_REGRESSION_H
#define ATTNLADDER_GATE_REGRESSION_H
#include <stddef.h>
#include "gate/config.h"
#include "gate/decide.h"
#include "gate/drift.h"
#include "gate/drift_spread.h"
#include "evidence/reader.h"

typedef enum {
    REG_ROW_COMPARED = 0,   /* change and verdict hold numbers */
    REG_ROW_ONLY_REF,       /* no result in the run under test */
    REG_ROW_ONLY_NOW,       /* no result in the reference run */
    REG_ROW_UNTIMED,        /* a result in both runs, untimed in at least one */
    REG_ROW_NO_BASELINE     /* the baseline is untimed at the shape in at least one run */
} reg_row_state;

typedef struct {
    const char *impl;
    attn_shape shape;
    const run_result *ref, *now;             /* the row's results, NULL where absent */
    const run_result *base_ref, *base_now;   /* the baseline at the shape, NULL where absent */
    reg_row_state state;
    reg_change change;                       /* REG_ROW_COMPARED: the bootstrapped change */
    int judged;                              /* compared, a phase, at a judged shape
                                              * (drift_judged_shape), both runs of one
                                              * baseline library (gate/baseline_lib.h): the
                                              * rest are shown */
    drift_ref ref_drift;                     /* judged: centre the reference's ratio, the
                                              * set's tolerance */
    double ratio, ratio_lo, ratio_hi;        /* judged: the run's ratio and CI, as the
                                              * drift gate reads them (gate/ratio.h) */
    drift_verdict verdict;                   /* judged: with the shape's move */
    drift_verdict plain;                     /* judged: against the centre alone */
    int rotation;                            /* judged at the set's paired floor: a row of
                                              * both runs' rotations */
    double move;                             /* its shape's move over such rows (1: none) */
} reg_row;

/* Which rows: the implementations `wanted` accepts (asked with the run a result comes
 * from), at every shape either run has, or only at the judged shapes. */
typedef struct {
    int (*wanted)(const run_data *r, const char *impl, void *ctx);
    void *ctx;
    int judged_only;
} reg_row_filter;

/* The rows of ref and now that the filter selects, in order of implementation name,
 * then shape (run_shape_order with the config's headline shapes first), each settled: its
 * state, the change bootstrapped with the config's parameters, and at a judged row the
 * drift verdict with the tolerance `spread` gives (NULL: the floor alone) and the move of
 * its shape over the judged rows of both rotations (drift.shape_move_rows, gate/drift.h). A row's results
 * are the first of each run at its (implementation, shape). *rows (the caller frees it)
 * gets *n rows. 0, or -1 when memory ran out or the bootstrap refused its parameters. */
int reg_rows(const gate_config *c, const run_data *ref, const run_data *now, const drift_spread *spread,
             const reg_row_filter *filter, reg_row **rows, size_t *n);

/* Whether s is one of the config's headline shapes. */
int reg_is_headline(const gate_config *c, const attn_shape *s);

/* Every ratio needs the baseline timed at the headline shapes: the first headline shape
 * where it is not (*found: the baseline's result there, NULL when it has none), or NULL
 * when it is timed at all of them. */
const attn_shape *reg_baseline_gap(const gate_config *c, const run_data *run,
                                   const run_result **found);

/* Why a result has no graph timing: its unsupported reason, a failed correctness check,
 * or no graph timing recorded. */
const char *reg_untimed_reason(const run_result *r);

#endif
