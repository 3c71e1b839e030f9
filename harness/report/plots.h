/* report/plots.h: the report's SVG plots under <out>/plots, drawn by gnuplot from the
 * report model. */
#ifndef ATTNLADDER_REPORT_PLOTS_H
#define ATTNLADDER_REPORT_PLOTS_H
#include "report/model.h"

/* 0, or -1 after printing why to stderr. */
int report_plots_gpu(const report_ctx *c, const report_gpu *g);
int report_plot_history(const report_ctx *c, const char *phase);

#endif
