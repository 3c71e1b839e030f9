/* evidence/text_table.h: the plain-text results table printed by `run` and `show`. */
#ifndef ATTNLADDER_EVIDENCE_TEXT_TABLE_H
#define ATTNLADDER_EVIDENCE_TEXT_TABLE_H
#include <stdio.h>
#include "evidence/reader.h"

/* One line per result (implementation x shape): median and CI of the graph mode, the
 * ratio to the baseline with its CI, TFLOP/s and the correctness verdict. tag != NULL
 * keeps only the results of that tag ("headline"). */
void table_print(FILE *f, const run_data *run, const char *tag);

#endif
