/* measure/loader.h: finding and dlopen-ing ABI v1 shared objects. */
#ifndef ATTNLADDER_LOADER_H
#define ATTNLADDER_LOADER_H
#include <stddef.h>
#include "attn_phase.h"

typedef enum { IMPL_PHASE, IMPL_BASELINE, IMPL_FLOOR } impl_kind;

/* The launch floor (kernels/launch_floor) exports the ABI's struct under this name instead
 * of attn_phase_entry: it writes no output and is no attention implementation. */
#define LOADER_FLOOR_SYMBOL "attn_launch_floor_entry"

/* The GPU fp64 oracle (kernels/oracle_gpu) is built beside the baselines but is no
 * implementation: loader_open_all leaves this file to measure/oracle_gpu.h. */
#define LOADER_REFERENCE_GPU_FILE "oracle_gpu.so"

typedef struct {
    char path[512];
    impl_kind kind;
    void *dl;
    const attn_phase *ph;
} loaded_impl;

const char *impl_kind_name(impl_kind k);   /* "phase", "baseline", "floor" */

/* Loads one shared object. 0, or -1 with err naming the file and what is wrong
 * (cannot be opened, lacks attn_phase_entry, wrong abi_version, missing entry point). */
int loader_open(const char *path, impl_kind kind, loaded_impl *out, char *err, size_t errlen);
void loader_close(loaded_impl *impl);

/* Loads every build_dir/phases/NAME.so (kind phase, sorted by name), every
 * build_dir/kernels/NAME.so (baseline; launch_floor.so is the floor; the GPU oracle's
 * object is not loaded). *impls is malloc'd.
 * -1 with err when build_dir or its phases/ directory cannot be read or a .so fails. */
int loader_open_all(const char *build_dir, loaded_impl **impls, size_t *n,
                    char *err, size_t errlen);
void loader_close_all(loaded_impl *impls, size_t n);

/* Another symbol the object exports (the launch floor's read stream), or NULL. */
void *loader_symbol(const loaded_impl *impl, const char *symbol);

/* The implementation of that name, or NULL. */
const loaded_impl *loader_find(const loaded_impl *impls, size_t n, const char *name);

#endif
