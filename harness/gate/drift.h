/* gate/drift.h: the drift gate's decision, as pure functions of measured ratios.
 *
 * The reference is a set of runs (evidence/<gpu>/accepted.txt, from separate processes
 * and sessions). For one phase at one shape, each reference run gives its ratio to the
 * baseline; their geometric mean is the centre and the standard deviation of their logs
 * the between-run spread, which is what separate processes really vary by (0.6-1.4% on
 * the H100, up to 9% between sessions at the throughput shapes: 3-6x a run's own CI). The
 * tolerance is k_sigma times that spread (the pooled spread of all rows where it is
 * larger: three runs estimate a spread poorly), and at least `floor`. A run drifted
 * slower when its ratio's whole CI lies above centre x (1 + tol): only a large change
 * blocks; the A/B gate is the one that sees small ones. */
#ifndef ATTNLADDER_GATE_DRIFT_H
#define ATTNLADDER_GATE_DRIFT_H
#include <stddef.h>

typedef struct {
    double k_sigma;      /* the tolerance in between-run standard deviations */
    double floor;        /* the smallest tolerance, relative (0.02 = 2%) */
    size_t min_runs;     /* a reference set smaller than this is not judged */
    double floor_paired; /* the same for an accepted set whose every run measured its ratios
                          * in rotation (run_data.ratio_rotation): their between-session
                          * spread is a few times smaller (gate.json's drift note) */
    double floor_other_gpu; /* the paired floor where the run under test was measured on a
                          * GPU that none of the runs it is judged against was: a set's
                          * spread knows the GPUs it was measured on, not another's */
    size_t shape_rows;   /* rows in rotation a shape needs for its move to count
                          * (drift_shape_move); 0: no move is ever taken */
    double shape_floor;  /* the part of a shape's move within this (relative) is not taken:
                          * a run's rows at a shape sit that far from the set together by
                          * chance, and taking it would let a changed rung through */
} drift_params;

typedef struct {
    size_t k;            /* reference runs with a ratio here */
    double center;       /* geometric mean of their ratios */
    double spread;       /* sample sd of their log ratios (0 when k < 2) */
    double used_spread;  /* max(spread, pooled) */
    double tol;          /* max(floor, k_sigma x used_spread), relative */
} drift_ref;

typedef enum {
    DRIFT_WITHIN = 0,
    DRIFT_SLOWER,        /* the whole CI above centre x (1 + tol): blocks */
    DRIFT_FASTER,        /* the whole CI below centre / (1 + tol): reported */
    DRIFT_UNSURE         /* the point is outside, its CI is not: reported */
} drift_verdict;

/* The reference of one row from its k ratios (all > 0). 0, or -1 when k == 0 or a ratio
 * is not positive and finite. */
int drift_reference(const double *ratios, size_t k, double pooled, const drift_params *p, drift_ref *out);

/* The tolerance of a reference whose centre and spread are known, given the pooled
 * spread (drift_reference ends with it; the drift gate calls it again once the pooled
 * spread of a shape is known). */
void drift_settle(drift_ref *r, double pooled, const drift_params *p);

/* The pooled spread of n rows: sqrt(sum (k_i - 1) s_i^2 / sum (k_i - 1)) over rows with
 * k_i >= 2; 0 when there are none. */
double drift_pooled(const drift_ref *rows, size_t n);

drift_verdict drift_decide(const drift_ref *r, double now, double now_lo, double now_hi);

/* The move of a shape: the median of the n log changes (log(ratio now / centre)) of the
 * rows in rotation at the shape, less p->shape_floor towards 0 (none when within it), as a
 * factor; 1 when n < p->shape_rows or shape_rows is 0. The rows of one rotation share the
 * baseline's rounds, so a move of the baseline (or of the machine under every rung alike)
 * moves all their ratios by one factor; a change to one rung, or to fewer than half of
 * them, cannot set the median. Sorts logs. */
double drift_shape_move(double *logs, size_t n, const drift_params *p);

/* drift_decide with the shape's move: slower only when the CI lies above centre x (1 +
 * tol) and above centre x move x (1 + tol), faster only below both centre / (1 + tol) and
 * centre x move / (1 + tol). The move excuses a row only the way the shape moved: a row
 * that stayed where the set has it while the others moved is within, as without it.
 * move 1 is drift_decide. */
drift_verdict drift_decide_moved(const drift_ref *r, double move, double now, double now_lo, double now_hi);
const char *drift_verdict_name(drift_verdict v);   /* "within", "slower", ... */

/* What a row's verdict owes to its shape's move, for every table that shows one: "" when
 * the move changed nothing, else " (the shape's rows in rotation moved +3.8% past p's
 * shape_floor: slower against the centre alone)". plain: drift_decide's verdict, v:
 * drift_decide_moved's, move: drift_shape_move's. */
void drift_move_note(char *buf, size_t len, const drift_params *p, drift_verdict plain, drift_verdict v,
                     double move);

#endif
