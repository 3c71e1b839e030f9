/* report/baseline_libs.h: which library stands behind each baseline of a run, and the
 * figures of an external baseline (PyTorch's backends, timed in PyTorch's process) as the
 * paired method gives them. */
#ifndef ATTNLADDER_REPORT_BASELINE_LIBS_H
#define ATTNLADDER_REPORT_BASELINE_LIBS_H
#include <stdio.h>
#include "report/model.h"

/* The C baseline of the sessions since the bridge, run on PyTorch's cuDNN in PyTorch's
 * process (ci/tools/torch_sdpa.py). */
#define REPORT_ON_TORCH_CUDNN "sdpa_cudnn_torch"

/* How an external row's figures were taken. */
typedef enum {
    EXTERNAL_PAIRED = 0,   /* ratio through a rung timed in both processes (the bridge) */
    EXTERNAL_OLD_METHOD,   /* paired with the C baseline in PyTorch's process, where it ran on
                              PyTorch's cuDNN: a ratio to that library, not to the run's */
    EXTERNAL_NO_RATIO      /* no ratio to the run's baseline */
} external_source;

external_source report_external_source(const run_data *r, const run_result *x);

/* An external row's time: the run baseline's graph median at its shape times its ratio to
 * the baseline (never its own process's clock). 0 and *us, or -1 where there is no such
 * ratio or baseline row. */
int report_external_time(const run_data *r, const run_result *x, double *us);

/* "cuDNN 9.14.0 (the machine's)": the library the run's own baseline loaded. */
void report_baseline_library(char *buf, size_t len, const run_data *r);

/* The GPU page's paragraph on the two cuDNNs: the run's baseline library and path, the
 * externals' library, why the gate judges against the machine's, and where the two cuDNNs
 * differ by more than 2% per shape (from REPORT_ON_TORCH_CUDNN's bridged ratios). */
void report_libraries_paragraph(FILE *f, const report_ctx *c, const run_data *r);

#endif
