/* report/ran_kernels.h: the registers, shared memory and spills of what an implementation
 * ran at a shape, for the ladder's columns. A shared object may hold many kernels (rung 10
 * holds rungs 06-09 whole) and its resources give the largest over all of them; the
 * kernels that ran at a shape are the profile's there. So: registers and shared memory
 * from the profile's launch figures at the shape, spills from the build's entry of each
 * kernel that ran (matched by name, kernel_names.h). Without a profile at the shape, the
 * largest over the object's kernels, marked as such. */
#ifndef ATTNLADDER_REPORT_RAN_KERNELS_H
#define ATTNLADDER_REPORT_RAN_KERNELS_H
#include <stddef.h>
#include "evidence/reader.h"

/* Figures above these are no kernel's (a register file, a block's shared memory, a
 * thread's local memory are far smaller): read as absent. */
#define RAN_MAX_REGISTERS 65536L
#define RAN_MAX_BYTES (1L << 30)
/* Distinct kernels that ran at one shape, matched by name at most (a profile row holds
 * at most 256; the committed runs 3): more, and no figure is claimed. */
#define RAN_MAX_KERNELS 256

typedef struct {
    int profiled;          /* 1: from the profile at the shape; 0: no profile there, the
                            * largest over the object's kernels */
    size_t n;              /* profiled: the distinct kernels that ran; else the object's
                            * kernels (0: the object does not list them) */
    long registers;        /* -1: unknown (a kernel's figure absent or not a count) */
    long smem_static;      /* of the kernel with the most shared memory; -1 unknown */
    long smem_dynamic;     /* its dynamic shared memory (profiled only); -1 unknown */
    long spills;           /* spill stores + loads, bytes; -1 unknown (a kernel that ran
                            * matches no entry alone, or its entry has no spills) */
    int spills_summed;     /* not profiled, kernels not listed: the object's total */
    int registers_vary, smem_vary, spills_vary;   /* profiled, n > 1: the kernels differ
                                                   * here, the figure is the largest */
} ran_resources;

/* What impl (of run r) ran at shape s. Never fails: what cannot be known is -1. */
void ran_resources_at(const run_data *r, const run_impl *im, const attn_shape *s, ran_resources *out);

#endif
