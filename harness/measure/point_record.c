/* measure/point_record.c: a point's typed record (point_record.h): room, appending, freeing. */
#include "measure/point_record.h"

#include <stdlib.h>
#include <string.h>

int point_record_init(point_record *p, size_t n_impls)
{
    memset(p, 0, sizeof *p);
    p->results = calloc(n_impls ? n_impls : 1, sizeof *p->results);
    if (!p->results) return -1;
    p->cap_results = n_impls;
    return 0;
}

result_record *point_record_result(point_record *p)
{
    if (p->n_results == p->cap_results) return NULL;
    result_record *r = &p->results[p->n_results++];
    memset(r, 0, sizeof *r);
    return r;
}

/* items (n of *cap, size bytes each) with room for one more: the array, grown where
 * needed (NULL out of memory; items is then left as it was). */
static void *room(void *items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) return items;
    size_t c = *cap ? 2 * *cap : 8;
    void *x = realloc(items, c * size);
    if (x) *cap = c;
    return x;
}

input_check_record *point_record_check(point_record *p)
{
    input_check_record *a = room(p->checks, p->n_checks, &p->cap_checks, sizeof *a);
    if (!a) return NULL;
    p->checks = a;
    memset(&a[p->n_checks], 0, sizeof *a);
    return &a[p->n_checks++];
}

oracle_check_record *point_record_oracle_check(point_record *p)
{
    oracle_check_record *a = room(p->oracle_checks, p->n_oracle_checks, &p->cap_oracle_checks, sizeof *a);
    if (!a) return NULL;
    p->oracle_checks = a;
    memset(&a[p->n_oracle_checks], 0, sizeof *a);
    return &a[p->n_oracle_checks++];
}

void result_paired_free(result_paired *p)
{
    free(p->impl_us);
    free(p->baseline_us);
    free(p->impl_first);
    free(p->clock.sm_mhz);
    p->impl_us = p->baseline_us = NULL;
    p->impl_first = NULL;
    p->clock.sm_mhz = NULL;
}

static void result_free(result_record *r)
{
    for (int m = 0; m < MODE_COUNT; m++) time_result_free(&r->timing.mode[m]);
    result_paired_free(&r->paired);
}

void point_record_drop_last(point_record *p)
{
    if (p->n_results) result_free(&p->results[--p->n_results]);
}

void point_record_free(point_record *p)
{
    for (size_t i = 0; i < p->n_results; i++) result_free(&p->results[i]);
    free(p->results);
    free(p->checks);
    free(p->oracle_checks);
    memset(p, 0, sizeof *p);
}
