/* measure/kernel_resources.h: per-kernel registers, static shared memory, stack and spills, read from
 * the ptxas report (-Xptxas -v) that the build keeps beside each shared object. */
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

#endif
