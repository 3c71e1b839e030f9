/* runs_compare.h: the markdown table of per-phase, per-shape changes between two runs
 * (`attnladder compare A.json B.json`), fit to post as a pull-request comment: the
 * ratio to the baseline in each run, their quotient with its bootstrap CI, and the
 * regression gate's verdict for every row. */
#ifndef ATTNLADDER_RUNS_COMPARE_H
#define ATTNLADDER_RUNS_COMPARE_H
#include <stdio.h>
#include "gate/config.h"
#include "evidence/reader.h"

typedef struct {
    int all_impls;       /* also the external baselines (kind "external") */
    int changed_only;    /* only rows whose verdict is not "unchanged" */
} compare_opts;

/* Writes the markdown for a (the reference) against b (the change). Returns the number
 * of regressed rows, or -1 for bad input (err: e.g. the baseline missing from a run). */
int runs_compare_markdown(FILE *f, const gate_config *c, const run_data *a, const run_data *b,
                          const compare_opts *o, char *err, size_t errlen);

#endif
