/* measure/resume.h: continuing an interrupted run (`attnladder run --resume FILE`).
 *
 * A run stopped by SIGINT/SIGTERM (a time limit, a preempted GPU) writes what it measured
 * as `<stem>.partial.json` with `progress.done`: how many of its points, in order, were
 * measured to the end. `--resume` loads it, refuses when the GPU model, the build or the
 * options differ (a run measures one build on one GPU model by one method), keeps the
 * rows of the completed points, measures the rest and writes one run, `<stem>.json`,
 * whose `resumed.segments` name each process that measured part of it and on which
 * device. These functions are the pure part, on the evidence's JSON, unit-tested. */
#ifndef ATTNLADDER_RESUME_H
#define ATTNLADDER_RESUME_H
#include <stddef.h>
#include <jansson.h>
#include "core/shapes.h"
#include "measure/run_options.h"

/* What makes two runs' options the same run: every option that changes what is measured
 * or how (not where the build, the evidence or the external file are, nor which device
 * index: the GPU model is checked on its own). */
json_t *resume_identity(const run_opts *o);

/* 0 when the identities are equal, else -1 with why naming the first option that
 * differs and both values. */
int resume_options_differ(const json_t *then, const json_t *now, char *why, size_t len);

/* Refusals on the file itself and the machine: 0, or -1 with why. `partial` is the loaded
 * (validated) evidence; gpu_now and git_now are this process's context.gpu and
 * context.git; impls_now the names of the implementations this run selected, in order. */
int resume_refuse(const json_t *partial, const json_t *gpu_now, const json_t *git_now,
                  const json_t *impls_now, char *why, size_t len);

/* The points the partial run completed: progress.done, when progress.points equals
 * n_points and done is within it; else -1 with why. */
long resume_points_done(const json_t *partial, size_t n_points, char *why, size_t len);

/* Keeps in doc only what belongs to pts[0, done): results, input_checks and
 * reference_checks rows whose shape and tag are one of those points, and the cost.points
 * entries of those points. The incomplete point's rows go: it is measured again. */
void resume_keep(json_t *doc, const shape_point *pts, size_t done);

/* The segment of a process: when it began, where, on which device, which points, what it
 * cost, and its clock snapshots at its start and end (context.clocks_before and
 * clocks_after, where the context has them). `from` and `to` bound the points it
 * measured. */
json_t *resume_segment(const char *created_utc, const json_t *context, size_t from, size_t to,
                       const json_t *cost, int partial);

/* doc's `resumed` object after one more segment: the earlier ones (the first built from
 * the partial file itself when it was never resumed) and `seg`, which it takes. `file` is
 * the partial file's name. */
void resume_add_segment(json_t *doc, const json_t *partial, const char *file, size_t done, json_t *seg);

/* Joins this process's segment to the partial run it continues: partial's `resumed`
 * gains `seg` (taken), and its context takes this process's snapshot after and is marked
 * throttled when either process's context was. `context` is this process's context. */
void resume_join(json_t *partial, const char *file, size_t done, json_t *seg, const json_t *context);

/* cost of the whole run: wall and timed GPU seconds and measurements summed over both,
 * steps and stages summed bucket by bucket, the points concatenated. Takes `now`. */
json_t *resume_merge_cost(const json_t *then, json_t *now);

#endif
