/* evidence/writer_ab.c: the A/B comparison's file (`attnladder ab --out`, schema
 * attnladder-ab version 3) written from typed values (writer.h): the document, its rows
 * and its code paths. Kept beside writer.c, which writes the run's format. Each object's
 * keys are set here, once, in the order the file has always had (gate/ab_judge.c reads
 * the rows back). */
#include "evidence/writer.h"

json_t *run_write_ab(const run_ab_document *d)
{
    json_t *doc = json_pack("{s:s, s:i, s:o, s:o, s:{s:o, s:o}, s:s, s:I, s:f, s:f, s:{s:I, s:I, s:f, s:f, s:i, s:s},"
                     " s:{s:b, s:s, s:s, s:f}, s:O, s:O}",
                     "schema", "attnladder-ab", "schema_version", 3,
                     "gpu", run_write_gpu(d->gpu), "versions", run_write_versions(d->versions),
                     "builds", "base", run_write_git(d->base_git), "head", run_write_git(d->head_git),
                     "loaded_first", d->head_first ? "head" : "base", "seed", (json_int_t)d->seed,
                     "tolerance", d->tolerance, "baseline_tolerance", d->baseline_tolerance,
                     "method", "min_samples", (json_int_t)d->min_samples, "max_samples", (json_int_t)d->max_samples,
                     "min_gpu_s", d->min_gpu_s, "max_seconds", d->max_seconds, "warmup", d->warmup,
                     "change", "median of paired head/base quotients, 95% percentile bootstrap CI",
                     "clock_watch", "per_pair", d->per_pair, "why_not", d->watch_why_not, "discard", d->discard,
                     "discard_limit", d->discard_limit,
                     "paths", d->paths, "rows", d->rows);
    if (doc && d->changes) json_object_set(doc, "changes", d->changes);
    return doc;
}

/* The keys every row has, then the notes where the builds gave one. */
static json_t *row_head(const run_ab_row *r)
{
    json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:b}", "impl", r->impl, "kind", r->kind, "shape", r->shape,
                            "selected", r->selected, "correct", r->correct);
    if (row && r->base_note) json_object_set_new(row, "base_note", json_string(r->base_note));
    if (row && r->head_note) json_object_set_new(row, "head_note", json_string(r->head_note));
    return row;
}

static json_t *side_of(const run_ab_side *s, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) json_array_append_new(arr, json_real(s->samples_us[i]));
    return json_pack("{s:f, s:o}", "median_us", s->median_us, "samples_us", arr);
}

json_t *run_write_ab_row(const run_ab_row *r)
{
    json_t *row = row_head(r);
    if (!row) {
        json_decref(r->clock);
        return NULL;
    }
    json_object_set_new(row, "wall_s", json_real(r->wall_s));
    if (r->outcome == RUN_AB_FAILED) {
        json_object_set_new(row, "error", json_string(r->error));
        json_object_set_new(row, "verdict", json_string("failed"));
        return row;
    }
    json_object_set_new(row, "clock", r->clock);
    if (r->outcome == RUN_AB_THROTTLED) {
        json_object_set_new(row, "verdict", json_string("throttled"));
        json_object_set_new(row, "pairs", json_integer((json_int_t)r->pairs));
        json_object_set_new(row, "stop", json_string(r->stop));
        return row;
    }
    json_object_set_new(row, "tolerance", json_real(r->tolerance));
    json_object_set_new(row, "bootstrap_seed", json_integer((json_int_t)r->bootstrap_seed));
    json_object_set_new(row, "change", json_pack("{s:f, s:f, s:f}", "median", r->change, "ci_lo", r->change_lo,
                                                 "ci_hi", r->change_hi));
    json_object_set_new(row, "verdict", json_string(r->verdict));
    json_object_set_new(row, "pairs", json_integer((json_int_t)r->pairs));
    json_object_set_new(row, "base_first", json_integer((json_int_t)r->base_first));
    json_object_set_new(row, "inner", json_integer(r->inner));
    json_object_set_new(row, "stop", json_string(r->stop));
    json_object_set_new(row, "gpu_s", json_real(r->gpu_s));
    json_object_set_new(row, "base", side_of(&r->base, r->pairs));
    json_object_set_new(row, "head", side_of(&r->head, r->pairs));
    return row;
}

static json_t *paths_of(const run_ab_path *p, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s}", "path", p[i].path, "shape", p[i].shape, "by",
                                             p[i].fixed ? "fixed" : "added"));
    return arr;
}

json_t *run_write_ab_paths(const run_ab_path *base, size_t n_base, const run_ab_path *head, size_t n_head)
{
    return json_pack("{s:o, s:o}", "base", paths_of(base, n_base), "head", paths_of(head, n_head));
}
