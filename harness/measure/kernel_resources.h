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
#include <jansson.h>

/* Parses the report text for one target ("sm_90"). Returns the evidence object
 * {arch, registers, smem_static, stack_bytes, spill_stores, spill_loads, kernels[]}
 * (registers and shared memory: the maximum over kernels; spills: the sum), or NULL
 * when the report holds no kernel for that target. */
json_t *resources_parse(const char *report, const char *arch);

/* Reads <so path without .so>.ptxas.txt: the architecture-specific target's kernels
 * (arch + "a", e.g. sm_90a) where the report has them, else arch's. NULL when absent. */
json_t *resources_for_object(const char *so_path, const char *arch);

/* The resources of the code the driver loads from so_path for the current device:
 * {source: "loaded", arch, registers, smem_static, stack_bytes, spill_stores, spill_loads,
 * spills_from, kernels[]} with each kernel's name, registers, smem_static, local_bytes,
 * max_threads and, where the report matches, its spills. NULL, with why, when the object
 * has no fatbinary or the driver cannot load it; the caller then uses the report alone. */
json_t *resources_loaded(const char *so_path, const char *arch, char *why, size_t len);

#endif
