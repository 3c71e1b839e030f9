/* gate/drift_spread.h: the drift rule's tolerance at every row, from the accepted set:
 * how far each phase's ratio at each shape moves between the set's processes (gate/drift.h
 * says the rule). The drift gate (a run against the set) and every comparison of two
 * runs (`gate RUN --against REF`, `compare`, the report's line) take their tolerances from
 * here, so one rule, with one tolerance per row, judges all of them. */
#ifndef ATTNLADDER_GATE_DRIFT_SPREAD_H
#define ATTNLADDER_GATE_DRIFT_SPREAD_H
#include <stddef.h>
#include "gate/config.h"
#include "gate/drift.h"
#include "evidence/reader.h"

typedef struct {
    const char *phase;   /* borrowed from the set's runs */
    attn_shape shape;
    drift_ref ref;       /* k runs with a ratio here, their geometric mean and the sd of
                          * their logs; tol settled with the pooled spread */
    double pooled;       /* the spread pooled over the set's phases at this shape */
    int separate;        /* some run of the set has this row's ratio from separate medians
                          * (a slow rung outside the rotation): drift_params_for_results */
} spread_row;

typedef struct {
    spread_row *rows;
    size_t n;
    size_t n_runs;       /* runs in the set */
    int measured;        /* n_runs >= drift.min_runs: the spread counts; with fewer runs a
                          * comparison of two runs takes the floor alone */
    drift_params params; /* the config's, its floor the set's (drift_params_for_set) */
    drift_params params_other_gpu; /* params with the floor at least drift.floor_other_gpu:
                          * a paired comparison of a run on a GPU the centre's runs were not */
    const char **gpus;   /* each run's context.gpu.uuid (borrowed; NULL when absent) */
} drift_spread;

/* The drift parameters for a set of n runs: p, its floor floor_paired when every run
 * measured its ratios in rotation (n > 0), else floor. */
drift_params drift_params_for_set(const drift_params *p, const run_data *set, size_t n);

/* The parameters a comparison of run a (and b, or NULL) against the set s judges by: the
 * set's (its paired floor) when a and b took their ratios in rotation too, else the
 * config's (a run of separate medians moves by up to 10% from a paired one at the long
 * shapes, a difference of method, not of the code). The set's with drift.floor_other_gpu
 * (params_other_gpu) when a was measured on a GPU that none of the runs its centre comes
 * from was (b's alone when b is given, else every run of the set's): a GPU's own
 * difference is no part of a spread measured on others (drift_other_gpu). */
const drift_params *drift_params_for_runs(const drift_spread *s, const gate_config *c, const run_data *a,
                                          const run_data *b);

/* The parameters for one row, ra of run a against the set s (b and rb NULL) or against
 * rb of run b: drift_params_for_runs', except that a row whose ratio is of separate medians
 * in a, in b or in any run of the set (result_pairs_decide false: a rung too slow for the
 * rotation) takes the config's floor. Such a ratio carries the clock's wander between the
 * two medians, which the rotation's floor was never measured against. */
const drift_params *drift_params_for_results(const drift_spread *s, const gate_config *c, const run_data *a,
                                             const run_result *ra, const run_data *b, const run_result *rb);

/* 1 when run a's GPU (context.gpu.uuid) is not that of b (b non-NULL) or of any run of the
 * set s (b NULL); 0 where a uuid is missing (runs before it was recorded: not told apart). */
int drift_other_gpu(const drift_spread *s, const run_data *a, const run_data *b);

/* The move of each of n rows' shape (gate/drift.h, drift_shape_move): move[i] the move of
 * shapes[i] from the log changes lc of the rows at that shape with rotation set, when at
 * least p->shape_rows of them (else 1), rows[i] their count. 0, or -1 out of memory. */
int drift_shape_moves(size_t n, const attn_shape *const *shapes, const int *rotation, const double *lc,
                      const drift_params *p, double *move, size_t *rows);

/* Whether two runs are compared at shape s: every shape with regression.shapes "all",
 * else the headline and throughput shapes of the config (the drift gate's). */
int drift_judged_shape(const gate_config *c, const attn_shape *s);

/* The rows of a set (n runs, NULL when n is 0) at the judged shapes: every phase of any
 * run of the set with a ratio there. 0, or -1 with err (out of memory). */
int drift_spread_of(const gate_config *c, const run_data *set, size_t n, drift_spread *s, char *err,
                    size_t errlen);
void drift_spread_free(drift_spread *s);

/* The set's row at (phase, shape), or NULL. */
const spread_row *drift_spread_find(const drift_spread *s, const char *phase, const attn_shape *shape);

/* The reference of one compared row: centre (the reference run's ratio) with the set's
 * tolerance at (phase, shape): its spread, at least the spread pooled over the phases at
 * the shape, at least the floor; only the floor when the set is not `measured` or s is
 * NULL. */
void drift_spread_ref(const drift_spread *s, const drift_params *p, const char *phase, const attn_shape *shape,
                      double centre, drift_ref *out);

/* The rule of a comparison of two runs in one sentence, for every place that prints a
 * verdict of it (plain text, no markup): n_runs and measured as in drift_spread. */
void drift_rule_text(char *buf, size_t len, const drift_params *p, size_t n_runs, int measured);

#endif
