/* evidence/text_table.h: the plain-text results table printed by `run` and `show`. */
#ifndef ATTNLADDER_EVIDENCE_TEXT_TABLE_H
#define ATTNLADDER_EVIDENCE_TEXT_TABLE_H
#include <stdio.h>
#include "evidence/reader.h"

/* One line per result (implementation x shape): median and CI of the graph mode, the
 * ratio to the baseline with its CI, TFLOP/s and the correctness verdict. tag != NULL
 * keeps only the results of that tag ("headline"). */
void table_print(FILE *f, const run_data *run, const char *tag);
/* The rows at the headline shapes (core/shapes.h), whatever their tag: a targeted run
 * (`run --shape ...`) tags them "custom". */
void table_print_headline(FILE *f, const run_data *run);
/* Both filters: tag (NULL: any) and, when headline_only, the headline shapes. */
void table_print_rows(FILE *f, const run_data *run, const char *tag, int headline_only);

#endif
