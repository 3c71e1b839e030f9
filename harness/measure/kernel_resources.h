/* measure/kernel_resources.h: per-kernel registers, static shared memory, stack and spills.
 *
 * Read from the loaded code: the shared object's own fatbinary (its .nv_fatbin section) is
 * handed to the driver, which picks the machine code it runs on this GPU (sm_90a's where
 * there is one), and every kernel's attributes are asked of it: registers, static shared
 * memory, local memory per thread (the stack frame, spills included), the block limit.
 * Spill bytes are no attribute of a loaded kernel: they come from the ptxas report
 * (-Xptxas -v) the build keeps beside each object, matched by kernel name, and a report
 * whose register counts disagree with the loaded code's is stale and is not used. */
#ifndef ATTNLADDER_RESOURCES_H
#define ATTNLADDER_RESOURCES_H
#include <stddef.h>

/* Where an object's resources come from: the ptxas report alone, or the loaded code. */
typedef enum { RESOURCES_PTXAS, RESOURCES_LOADED } resources_source;

/* One kernel. From the ptxas report: name, registers, smem_static, stack_bytes and its
 * spills. From the loaded code: name, registers, smem_static, local_bytes, max_threads,
 * binary_version, and the report's spills where has_spills. */
typedef struct {
    char *name;                           /* mangled; owned */
    long registers, smem_static;
    long stack_bytes;                     /* RESOURCES_PTXAS */
    long local_bytes, max_threads, binary_version;   /* RESOURCES_LOADED */
    int has_spills;                       /* spills known: always from the report */
    long spill_stores, spill_loads;
} kernel_resource;

/* An object's resources: registers and shared memory the maximum over kernels,
 * stack_bytes the largest stack frame (the report's) or local memory per thread (the
 * loaded code's), the spills the sum. evidence/writer.h's run_write_resources writes it. */
typedef struct {
    resources_source source;
    char arch[32];                        /* the target the kernels are of ("sm_90a") */
    long registers, smem_static, stack_bytes;
    const char *spills_from;              /* RESOURCES_LOADED: where the spills come from (static text) */
    int has_spills;                       /* spill totals known: always from the report */
    long spill_stores, spill_loads;
    kernel_resource *kernels;             /* n_kernels of them; owned */
    size_t n_kernels;
} kernel_resources;

/* Frees the kernels and zeroes r (a zeroed, never filled r is fine). */
void resources_free(kernel_resources *r);

/* Parses the report text for one target ("sm_90") into out (RESOURCES_PTXAS). Returns 0,
 * or -1 when the report holds no kernel for that target (or out of memory). */
int resources_parse(const char *report, const char *arch, kernel_resources *out);

/* Reads <so path without .so>.ptxas.txt: the architecture-specific target's kernels
 * (arch + "a", e.g. sm_90a) where the report has them, else arch's. -1 when absent. */
int resources_for_object(const char *so_path, const char *arch, kernel_resources *out);

/* The resources of the code the driver loads from so_path for the current device
 * (RESOURCES_LOADED): arch (the report's target where there is a report), the maxima,
 * spills_from, and each kernel's name, registers, smem_static, local_bytes, max_threads,
 * binary_version and, where the report matches, its spills (the totals too). -1, with
 * why, when the object has no fatbinary or the driver cannot load it; the caller then
 * uses the report alone. */
int resources_loaded(const char *so_path, const char *arch, kernel_resources *out, char *why, size_t len);

#endif
