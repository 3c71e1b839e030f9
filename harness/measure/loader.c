/* measure/loader.c: dlopen of phase and baseline shared objects, with a clear word on failure. */
#include "measure/loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/cublas_lib.h"

const char *impl_kind_name(impl_kind k)
{
    switch (k) {
    case IMPL_PHASE: return "phase";
    case IMPL_BASELINE: return "baseline";
    case IMPL_FLOOR: return "floor";
    }
    return "?";
}

int loader_open(const char *path, impl_kind kind, loaded_impl *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    /* cuBLAS resident before the first object loads, as it was while the harness linked
     * it: a phase that links it (02) would otherwise load and unload it (and the C++
     * runtime) with each open and close, and each unload leaks the exception-handling pool
     * the library allocates at load (LeakSanitizer reports it in check-cli). A command that
     * loads no phase does not pay for it. */
    cublas_lib_get(NULL, 0);
    /* RTLD_LOCAL: every object exports the same symbol name; each must keep its own. */
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        snprintf(err, errlen, "%s: cannot load: %s", path, dlerror());
        return -1;
    }
    /* The launch floor is timed like a phase but is no attention implementation: it exports
     * its own symbol, so a tool that loads every attn_phase_entry never mistakes it for one. */
    const char *symbol = kind == IMPL_FLOOR ? LOADER_FLOOR_SYMBOL : "attn_phase_entry";
    const attn_phase *ph = (const attn_phase *)dlsym(dl, symbol);
    if (!ph) {
        snprintf(err, errlen, "%s: does not export %s (%s)", path, symbol,
                 kind == IMPL_FLOOR ? "the launch floor's symbol" : "the ABI v1 symbol");
        dlclose(dl);
        return -1;
    }
    if (ph->abi_version != ATTN_PHASE_ABI_VERSION) {
        snprintf(err, errlen, "%s: abi_version %d, this harness loads version %d only",
                 path, ph->abi_version, ATTN_PHASE_ABI_VERSION);
        dlclose(dl);
        return -1;
    }
    const char *missing = !ph->name ? "name" : !ph->title ? "title"
        : !ph->unsupported ? "unsupported" : !ph->workspace_bytes ? "workspace_bytes"
        : !ph->init ? "init" : !ph->run ? "run" : !ph->fini ? "fini"
        : !ph->error_string ? "error_string" : NULL;
    if (missing) {
        snprintf(err, errlen, "%s: attn_phase_entry.%s is NULL", path, missing);
        dlclose(dl);
        return -1;
    }
    snprintf(out->path, sizeof out->path, "%s", path);
    out->kind = kind;
    out->dl = dl;
    out->ph = ph;
    return 0;
}

void loader_close(loaded_impl *impl)
{
    if (impl->dl) dlclose(impl->dl);
    memset(impl, 0, sizeof *impl);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted names of *.so files in dir; -1 with err when dir cannot be read. */
static int list_so(const char *dir, char ***names, size_t *n, int required,
                   char *err, size_t errlen)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (!required && errno == ENOENT) return 0;
        snprintf(err, errlen, "%s: cannot read the build directory: %s (build with `make`, "
                 "or pass --build DIR)", dir, strerror(errno));
        return -1;
    }
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0) continue;
        if (strcmp(e->d_name, LOADER_REFERENCE_GPU_FILE) == 0) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(*names, cap * sizeof **names);
            if (!grown) break;
            *names = grown;
        }
        (*names)[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*n) qsort(*names, *n, sizeof **names, cmp_str);
    return 0;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

int loader_open_all(const char *build_dir, loaded_impl **impls, size_t *n,
                    char *err, size_t errlen)
{
    static const struct { const char *sub; int required; } dirs[] = {
        { "phases", 1 }, { "kernels", 0 },
    };
    *impls = NULL;
    *n = 0;
    size_t cap = 0;
    for (size_t di = 0; di < sizeof dirs / sizeof dirs[0]; di++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", build_dir, dirs[di].sub);
        char **names;
        size_t count;
        if (list_so(dir, &names, &count, dirs[di].required, err, errlen) != 0) {
            loader_close_all(*impls, *n);
            *impls = NULL;
            *n = 0;
            return -1;
        }
        for (size_t i = 0; i < count; i++) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                loaded_impl *grown = realloc(*impls, cap * sizeof **impls);
                if (!grown) {
                    snprintf(err, errlen, "out of host memory");
                    free_names(names, count);
                    loader_close_all(*impls, *n);
                    return -1;
                }
                *impls = grown;
            }
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            impl_kind kind = di == 0 ? IMPL_PHASE
                : strcmp(names[i], "launch_floor.so") == 0 ? IMPL_FLOOR : IMPL_BASELINE;
            if (loader_open(path, kind, &(*impls)[*n], err, errlen) != 0) {
                free_names(names, count);
                loader_close_all(*impls, *n);
                *impls = NULL;
                *n = 0;
                return -1;
            }
            (*n)++;
        }
        free_names(names, count);
    }
    return 0;
}

void loader_close_all(loaded_impl *impls, size_t n)
{
    for (size_t i = 0; i < n; i++) loader_close(&impls[i]);
    free(impls);
}

void *loader_symbol(const loaded_impl *impl, const char *symbol)
{
    return impl && impl->dl ? dlsym(impl->dl, symbol) : NULL;
}

const loaded_impl *loader_find(const loaded_impl *impls, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(impls[i].ph->name, name) == 0) return &impls[i];
    return NULL;
}
