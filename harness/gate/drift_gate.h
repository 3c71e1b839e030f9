/* gate/drift_gate.h: the drift gate over runs: a run against the accepted reference set
 * of its GPU (evidence/run_lists.h), one row per phase and gated shape (the headline and
 * throughput shapes of ci/gate.json), decided by gate/drift.h. */
#ifndef ATTNLADDER_GATE_DRIFT_GATE_H
#define ATTNLADDER_GATE_DRIFT_GATE_H
#include <stdio.h>
#include <jansson.h>
#include "gate/baseline_lib.h"
#include "gate/config.h"
#include "gate/drift.h"
#include "evidence/reader.h"

typedef struct {
    const char *phase;
    attn_shape shape;
    drift_ref ref;
    double now, now_lo, now_hi;
    drift_verdict verdict;   /* against the centre and the shape's move (drift_decide_moved) */
    drift_verdict plain;     /* against the centre alone (drift_decide) */
    int rotation;            /* the row's ratio is the rotation's in the run and in every run
                              * of the set (its tolerance the paired floor's): it shares the
                              * baseline's rounds with the other such rows at its shape */
    double move;             /* the shape's move over those rows (1: none taken) */
    size_t move_rows;        /* how many rows it is the median of */
    double pooled;           /* the between-run spread pooled over the phases at this shape */
} drift_row;

typedef struct {
    drift_row *rows;
    size_t n;
    size_t slower;           /* rows that block */
    size_t n_refs;           /* runs in the reference set */
    int judged;              /* 0: the set is smaller than drift.min_runs, or its baseline
                              * library is not the run's (lib) */
    baseline_lib lib;        /* the run's baseline library against the set's */
    double floor;            /* the floor the set's rows took (drift_params_for_set) */
    size_t skipped;          /* rows without a ratio in the run or in every reference */
    size_t method_changed;   /* rows whose inputs were kept cold in L2 (rotated copies) in
                              * the run but not in a reference run, or the other way:
                              * another measurement, shown, never judged */
    int other_gpu;           /* the run's GPU is none of the set's (drift_other_gpu) and its
                              * rows in rotation take drift.floor_other_gpu */
    size_t count[4];         /* judged rows by verdict (drift_verdict), 0 when not judged */
    size_t moved;            /* judged rows whose verdict against the centre alone was not
                              * within and that are within with their shape's move */
} drift_outcome;

/* refs: the reference runs (same GPU as run, or bad input). 0, or -1 with err. Every row
 * of the run is judged against the set's centre and tolerance there, with its shape's move
 * (drift.shape_move_rows, gate/drift.h): rows in rotation that moved together moved with
 * the baseline, not with their code. */
int gate_drift(const gate_config *c, const run_data *run, const run_data *refs, size_t n_refs,
               drift_outcome *o, char *err, size_t errlen);
void drift_outcome_free(drift_outcome *o);
/* 1 when the result's inputs were rotated past the L2 (timing.l2 "rotated") */
int drift_inputs_rotated(const run_result *x);
void drift_print(FILE *f, const gate_config *c, const drift_outcome *o, int brief);
json_t *drift_json(const gate_config *c, const drift_outcome *o);

#endif
