/* evidence/external_bridge.c: an external's ratio through a bridge (external_bridge.h). */
#include "evidence/external_bridge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/stats.h"
#include "evidence/reader.h"

/* A paired block's two time arrays (malloc'd, *n long), every time finite and > 0. 0 read;
 * -1 malformed. */
static int read_pairs(const json_t *pb, double **a, double **b, size_t *n)
{
    const json_t *ia = json_object_get(pb, "impl_us"), *ba = json_object_get(pb, "baseline_us");
    size_t m = json_array_size(ia);
    *a = *b = NULL;
    *n = 0;
    if (!json_is_array(ia) || !json_is_array(ba) || m == 0 || json_array_size(ba) != m) return -1;
    *a = malloc(m * sizeof **a);
    *b = malloc(m * sizeof **b);
    for (size_t i = 0; *a && *b && i < m; i++) {
        const json_t *x = json_array_get(ia, i), *y = json_array_get(ba, i);
        double u = json_is_number(x) ? json_number_value(x) : NAN, w = json_is_number(y) ? json_number_value(y) : NAN;
        if (!(isfinite(u) && u > 0 && isfinite(w) && w > 0)) break;
        (*a)[i] = u;
        (*b)[i] = w;
        *n = i + 1;
    }
    if (*n == m) return 0;
    free(*a);
    free(*b);
    *a = *b = NULL;
    *n = 0;
    return -1;
}

static int is_phase(const json_t *impls, const char *name)
{
    size_t i;
    const json_t *v;
    json_array_foreach(impls, i, v) {
        const char *nm = json_string_value(json_object_get(v, "name")), *kind = json_string_value(json_object_get(v, "kind"));
        if (nm && kind && !strcmp(nm, name)) return !strcmp(kind, "phase");
    }
    return 0;
}

/* The run's row of `bridge` at shape s timed in rotation with `baseline`, or NULL. */
static const json_t *bridge_row(const json_t *results, const char *bridge, const attn_shape *s, const char *baseline)
{
    size_t i;
    const json_t *v;
    json_array_foreach(results, i, v) {
        const char *impl = json_string_value(json_object_get(v, "impl"));
        const json_t *pb = json_object_get(v, "paired");
        const char *with = json_string_value(json_object_get(pb, "baseline")),
                   *design = json_string_value(json_object_get(pb, "design"));
        attn_shape t;
        if (!impl || strcmp(impl, bridge) || !with || strcmp(with, baseline) || !design || strcmp(design, "rotation") ||
            run_read_shape(json_object_get(v, "shape"), &t) >= 0 || !shape_same(&t, s))
            continue;
        return v;
    }
    return NULL;
}

int external_bridged_ratio(const json_t *res, const json_t *impls, const json_t *results, const char *baseline,
                           const bridge_bootstrap *bs, double *ratio, double *lo, double *hi, char *err,
                           size_t errlen)
{
    const json_t *pb = json_object_get(res, "paired");
    const char *bridge = json_string_value(json_object_get(pb, "baseline"));
    attn_shape s;
    double *a1, *b1, *a2 = NULL, *b2 = NULL;
    size_t n1, n2 = 0;
    if (!bridge || run_read_shape(json_object_get(res, "shape"), &s) >= 0) {
        snprintf(err, errlen, "paired.baseline or shape missing");
        return -1;
    }
    if (!is_phase(impls, bridge)) {
        snprintf(err, errlen, "paired.baseline '%.64s' is neither the run's baseline nor one of its rungs (a bridge)",
                 bridge);
        return -1;
    }
    if (read_pairs(pb, &a1, &b1, &n1)) {
        snprintf(err, errlen, "paired: impl_us and baseline_us must be of one length >= 1, times finite and > 0");
        return -1;
    }
    const json_t *row = bridge_row(results, bridge, &s, baseline);
    int rc = 0;
    if (row && read_pairs(json_object_get(row, "paired"), &a2, &b2, &n2) == 0) {
        rc = stats_bridged_ratio_ci(a1, b1, n1, a2, b2, n2, bs->resamples, bs->seed, bs->ci_level, ratio, lo, hi)
                 ? 0 : 1;
    }
    free(a1);
    free(b1);
    free(a2);
    free(b2);
    return rc;
}
