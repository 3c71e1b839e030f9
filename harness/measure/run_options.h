/* measure/run_options.h: the options of `attnladder run`, parsed strictly (fuzzed). */
#ifndef ATTNLADDER_RUN_OPTS_H
#define ATTNLADDER_RUN_OPTS_H
#include <stddef.h>
#include <stdint.h>
#include "core/shapes.h"
#include "measure/timing.h"

#define MAX_SHAPES 256
#define MAX_NAMES 64

typedef struct {
    const char *build_dir, *evidence_dir, *out_path, *external, *baseline;
    const char *names[MAX_NAMES];
    size_t n_names;
    shape_point shapes[MAX_SHAPES];
    size_t n_shapes;
    int want_headline, want_sweep, want_ragged, ceilings;
    int paired;                 /* ratios from the rotation (default); 0: --independent */
    int modes[MODE_COUNT], sweep_modes[MODE_COUNT];
    time_config tc;
    uint64_t seed;
    double full_ref_gflop;      /* CPU oracle alone: every row up to this */
    double cpu_check_gflop;     /* with the GPU oracle: the CPU rows checking it, all up to this */
    int no_gpu_ref;             /* --no-gpu-ref: the CPU oracle alone */
    const char *resume;         /* --resume FILE: the partial run this one continues */
    int n_measuring;            /* options given that change what is measured or how (all but
                                   --resume, --build, --evidence, --out, --device, --external) */
    long sample_rows, oracle_threads;
    int device;                    /* --device: index among the visible CUDA devices */
} run_opts;

/* 0 parsed, 1 help printed, -1 bad input (message printed to stderr). The argv strings
 * must outlive the options; names are copies freed by run_opts_free. */
int parse_run_opts(int argc, char **argv, run_opts *o);
void run_opts_free(run_opts *o);

extern const char RUN_USAGE[];

#endif
