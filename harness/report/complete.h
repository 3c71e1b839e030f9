/* report/complete.h: whether a written report shows what it promises. A table column
 * that is "-" in every row, or a plot that drew no data in a panel or left out what its
 * caption promises (a floor, a roof, a rung without a point), is a gap: the reference
 * run lacks what the report is built from. `attnladder report --check` fails on one
 * (what `make test` runs), and writing a report lists them. */
#ifndef ATTNLADDER_REPORT_COMPLETE_H
#define ATTNLADDER_REPORT_COMPLETE_H
#include <stdio.h>

/* Every markdown table of dir/README.md and dir/phases/<x>.md, and every dir/plots/<x>.svg
 * (its <desc>, written by plots.c: "attnladder report: N data points in P panels", then
 * "; empty: ..." and "; missing: ..." when there are such). One line per gap to f, naming
 * the file, the table (its heading) and column, or the plot and what it lacks. Returns
 * the number of gaps, or -1 when dir cannot be read. */
long report_check_complete(const char *dir, FILE *f);

#endif
