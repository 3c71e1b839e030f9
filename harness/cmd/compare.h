/* compare.h: the markdown table of per-phase, per-shape changes between two runs
 * (`attnladder compare A.json B.json`), fit to post as a pull-request comment: the
 * ratio to the baseline in each run, their quotient with its bootstrap CI, and the drift
 * rule's verdict for every judged row (the gate's and the report's for the same pair). */
#ifndef ATTNLADDER_CMD_COMPARE_H
#define ATTNLADDER_CMD_COMPARE_H
#include <stdio.h>
#include "gate/config.h"
#include "evidence/reader.h"

typedef struct {
    int all_impls;       /* also the external baselines (kind "external") */
    int changed_only;    /* only rows whose verdict is not "unchanged" */
} compare_opts;

/* Writes the markdown for a (the reference) against b (the change), the tolerances from
 * the accepted set `set` (n_set runs, b not among them; NULL/0: the floor alone). Returns
 * the number of slower rows, or -1 for bad input (err: e.g. the baseline missing from a
 * run). */
int runs_compare_markdown(FILE *f, const gate_config *c, const run_data *a, const run_data *b,
                          const run_data *set, size_t n_set, const compare_opts *o, char *err, size_t errlen);

#endif
