/* report/model.h: the report model, the ground the pages (pages.c) and the plots
 * (plots.c) stand on: every run read from the evidence, grouped per GPU with the run that
 * stands for the GPU (its reference run, evidence/run_lists.h) and the gates' verdicts on
 * it, the phases in ladder order, each rung's
 * neighbours, the physical floor, and the names and colours of the plots. Pages and plots
 * read only this model, the phase READMEs and ci/gate.json, iterated in sorted order, so
 * the output is byte-for-byte reproducible; neither uses the other, and nothing here
 * uses either. */
#ifndef ATTNLADDER_REPORT_MODEL_H
#define ATTNLADDER_REPORT_MODEL_H
#include <stddef.h>
#include <stdio.h>
#include "gate/config.h"
#include "gate/drift_gate.h"
#include "gate/evaluate.h"
#include "evidence/reader.h"
#include "evidence/run_lists.h"

typedef struct {
    const char *slug, *gpu_name;
    run_data *runs;              /* oldest first (file names start with a UTC stamp) */
    size_t n_runs;
    const run_data *ref;         /* the run every table and plot of the GPU is built from:
                                  * its reference run, or the fallback ref_rule says (the
                                  * page says it too); NULL when there is no complete run */
    int ref_rule;                /* REFERENCE_* of evidence/run_lists.h */
    int ref_bad;                 /* reference.txt or accepted.txt was invalid, or named a
                                  * run that is not among the readable ones: the newest
                                  * complete run stands in, ref_err says why (exit 2) */
    char ref_err[1024];
    int accepted_bad;            /* accepted.txt could not be read or holds a line that is
                                  * not a run's file name in its folder: named on stderr,
                                  * the report refused (exit 2) whatever reference.txt says */
    int gate_ok;                 /* ladder gate evaluated (else gate_err says why not) */
    gate_outcome ladder;
    char gate_err[600];
    const run_data *accepted;    /* the run accepted.txt names first, when it is among runs */
    size_t set_runs;             /* runs of accepted.txt among the readable ones, ref left out:
                                  * the tolerances of the drift rule */
    size_t set_missing;          /* runs accepted.txt names that are not among them */
    int reg_state;               /* 0 not run, 1 evaluated, -1 bad input (reg_err) */
    gate_outcome reg;            /* ref against the accepted run (ref != accepted), by the
                                  * drift rule: what `gate REF --against ACCEPTED` and
                                  * `compare ACCEPTED REF` say */
    char reg_err[600];
    int drift_state;             /* ref is the accepted run: 1 the drift gate against the rest
                                  * of the set evaluated, -1 bad input (reg_err), 0 not run */
    drift_outcome drift;
    char accepted_name[256];     /* what accepted.txt says first ("" when absent) */
    const run_data *set[ACCEPTED_MAX];   /* accepted.txt's runs among the readable complete
                                          * ones, in its order (the reference run among them
                                          * where it is one) */
    size_t n_set;
} report_gpu;

typedef struct {
    const gate_config *cfg;
    const char *evidence_root;   /* as given on the command line, for links */
    const char *phases_dir;      /* phase READMEs: <phases_dir>/<name>/README.md */
    const char *out;             /* the directory being written (a temporary one) */
    const char *gnuplot;         /* the program */
    const char *keep_scripts;    /* a directory to keep the gnuplot scripts in, or NULL */
    report_gpu *gpus;            /* sorted by slug */
    size_t n_gpus;
    const char **phases;         /* the rungs: every phase of any run and every phases/<name>/
                                  * with a README.md, in name order (the NN_ prefix is the
                                  * rung's place), each once */
    size_t n_phases;
    int *current;                /* per phase: 1 when phases/<name>/README.md exists */
    int *successor;              /* per phase: a former rung (no README, named as code in a
                                  * current rung's "History:" paragraph), the index of that
                                  * rung; -1 otherwise */
    char **owned;                /* the names read from phases/ (freed with the model) */
    size_t n_owned;
} report_ctx;

/* Builds the model from runs (sorted by GPU slug, then file name; borrowed until
 * report_model_free): one report_gpu per slug, its reference run (reference.txt under
 * evidence_root, or the fallback it names), the ladder gate on that run and the drift
 * rule against its accepted run (accepted.txt; against the rest of the set when it is that
 * run),
 * and the phases of every run, sorted. 0, or -1 when out of memory. */
int report_model_build(report_ctx *c, run_data *runs, size_t n_runs);
void report_model_free(report_ctx *c);

/* Plot file names (relative to reports/plots/), for the pages to link. */
void report_plot_name(char *buf, size_t len, const char *slug, const char *what);

/* The colour of an implementation in every plot: phases by their place in the ladder,
 * baselines in greys, so the two read apart. */
const char *report_impl_colour(const report_ctx *c, const char *name, const char *kind);
/* The i-th of the distinct colours (series that are not implementations, e.g. GPUs). */
const char *report_series_colour(size_t i);
/* A baseline's place among the run's baselines and external baselines (their count
 * when it is not one). */
int report_baseline_index(const run_data *r, const char *name);
/* A baseline's colour in a run's plots: the gate's baseline black, the others greys in
 * the order the run lists them. */
const char *report_baseline_colour(const report_ctx *c, const run_data *r, const char *name);

/* A phase's position among c->phases, or -1. */
int report_phase_index(const report_ctx *c, const char *name);

/* Whether rung i is in run r under its name or a former one (a run of a moved rung's
 * old name is a run of the rung). */
int report_rung_in_run(const report_ctx *c, const run_data *r, size_t i);
/* Whether any GPU's reference run holds phase i: a rung missing from one GPU's reference
 * run but run on another is said on that GPU's pages ("not yet run on this GPU"), where a
 * rung no reference run holds is a gap of the report. */
int report_rung_in_some_reference(const report_ctx *c, size_t i);
/* The name under which the rung `phase` is in run r (its own, else a former one), or NULL. */
const char *report_name_in_run(const report_ctx *c, const run_data *r, const char *phase);

/* The shapes of the staircase table: the config's headline shapes, then the shapes the
 * Hopper rungs were built for (4x16x4096x128, 1x16x16384x128, 4x32x4096x64), each once;
 * their count (at most cap). */
size_t report_step_shapes(const report_ctx *c, attn_shape *out, size_t cap);

/* The decode points of a run: the shapes of its rows tagged "decode" (core/shapes.c),
 * whose rows of every implementation the decode plot draws; external backends tag
 * theirs "external", so a point is known by its shape. A run from before the decode
 * sweep has none. Batched decode (batch > 1: a serving engine's step over many requests)
 * has its own plot, beside the single request's. report_has_decode says whether the run has
 * decode points of that kind; report_decode_shapes gives each such shape once, in the run's
 * order (at most cap), and their count. */
int report_has_decode(const run_data *r, int batched);
size_t report_decode_shapes(const run_data *r, int batched, attn_shape *out, size_t cap);

/* The former names of phase i (the rungs whose successor it is), into out (at most cap);
 * their count. A rung's history includes the runs under its former names. */
size_t report_former_names(const report_ctx *c, size_t i, size_t *out, size_t cap);

/* The physical floor of a shape on a run's GPU: max(flops / fp16 ceiling, bytes / DRAM
 * ceiling) plus the launch floor, in us, with the FLOPs and bytes of core/shapes.h;
 * NAN when the ceilings are unknown. */
double report_physical_floor_us(const run_data *r, const attn_shape *s);

/* The first phase (in ladder order) of a run with a graph timing at s, and the last
 * one before `phase`; NULL when none. */
const run_result *report_first_rung(const report_ctx *c, const run_data *r, const attn_shape *s);
const run_result *report_previous_rung(const report_ctx *c, const run_data *r, const char *phase,
                                       const attn_shape *s);
/* The rung whose kernel x runs: the first phase (in ladder order) with a result at x's
 * shape of the same kernel (run_same_kernel: equal init notes); x itself when no rung below
 * has it, or when x has no init note. */
const run_result *report_kernel_origin(const report_ctx *c, const run_data *r, const run_result *x);

#endif
