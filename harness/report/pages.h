/* report/pages.h: the markdown pages of the report: reports/README.md and one page per
 * phase, written from the report model. */
#ifndef ATTNLADDER_REPORT_PAGES_H
#define ATTNLADDER_REPORT_PAGES_H
#include "report/model.h"

/* 0, or -1 after printing why to stderr. */
int report_write_readme(const report_ctx *c);
int report_write_phase(const report_ctx *c, const char *phase);

#endif
