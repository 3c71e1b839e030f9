/* cut_rows.h: a committed run cut, in memory, to its rows at the shapes a test edits.
 *
 * test_consistency and test_l2_timing edit one or two rows of the accepted H100 run and
 * check what the validator and the reader say of those rows; each edit deep-copied,
 * validated and read the whole run (738 rows, 109,838 samples) though what it checks is
 * in the rows it edits. Every implementation's row at a kept shape stays, so each ratio's
 * baseline row and the pairs stay beside it; a run of fewer shapes is one the harness
 * writes too (--shapes), and the validator asks nothing more of it. Where the whole run is
 * the point (that every row of a committed run passes every rule), the test reads it
 * before cutting. Include after <cmocka.h> and <jansson.h>. */
#ifndef ATTNLADDER_TESTS_CUT_ROWS_H
#define ATTNLADDER_TESTS_CUT_ROWS_H
#include <stddef.h>
#include <jansson.h>

typedef struct {
    long long batch, heads, seq_q, seq_kv, head_dim, causal;
} cut_shape;

static int cut_shape_is(const json_t *row, const cut_shape *k)
{
    const json_t *s = json_object_get(row, "shape");
    return json_integer_value(json_object_get(s, "batch")) == k->batch &&
           json_integer_value(json_object_get(s, "heads")) == k->heads &&
           json_integer_value(json_object_get(s, "seq_q")) == k->seq_q &&
           json_integer_value(json_object_get(s, "seq_kv")) == k->seq_kv &&
           json_integer_value(json_object_get(s, "head_dim")) == k->head_dim &&
           (json_integer_value(json_object_get(s, "causal")) != 0) == (k->causal != 0);
}

/* Removes doc's results rows at none of the n shapes; the number of rows kept (a test
 * fails on 0: the run no longer holds the shapes it was cut for). */
static size_t cut_rows_to(json_t *doc, const cut_shape *keep, size_t n)
{
    json_t *rows = json_object_get(doc, "results");
    for (size_t i = json_array_size(rows); i-- > 0;) {
        int kept = 0;
        for (size_t k = 0; k < n && !kept; k++) kept = cut_shape_is(json_array_get(rows, i), &keep[k]);
        if (!kept) json_array_remove(rows, i);
    }
    return json_array_size(rows);
}

#endif
