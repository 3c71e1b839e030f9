/* measure/kernel_resources.c: the resources of the loaded kernels, with the ptxas report's
 * spills (kernel_resources.h). */
#include "measure/kernel_resources.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/files.h"

static int line_int(const char *line, const char *after_word, long *v)
{
    /* the number before `after_word`, e.g. "Used 40 registers" -> 40 for "registers" */
    const char *p = strstr(line, after_word);
    if (!p) return 0;
    while (p > line && p[-1] == ' ') p--;
    while (p > line && p[-1] >= '0' && p[-1] <= '9') p--;
    return sscanf(p, "%ld", v) == 1;
}

json_t *resources_parse(const char *report, const char *arch)
{
    json_t *kernels = json_array();
    long max_regs = 0, max_smem = 0, max_stack = 0, spill_st = 0, spill_ld = 0;
    char name[512] = "";
    char want[32];
    snprintf(want, sizeof want, "for '%s'", arch);
    int in_arch = 0;
    long stack = 0, st = 0, ld = 0;
    const char *p = report;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl ? nl + 1 : NULL;

        const char *entry = strstr(line, "Compiling entry function '");
        if (entry) {
            in_arch = strstr(line, want) != NULL;
            const char *q = entry + strlen("Compiling entry function '");
            size_t n = strcspn(q, "'");
            if (n >= sizeof name) n = sizeof name - 1;
            memcpy(name, q, n);
            name[n] = '\0';
            stack = st = ld = 0;
            continue;
        }
        if (!in_arch) continue;
        if (strstr(line, "bytes stack frame")) {
            line_int(line, "bytes stack frame", &stack);
            line_int(line, "bytes spill stores", &st);
            line_int(line, "bytes spill loads", &ld);
            continue;
        }
        long regs = 0, smem = 0;
        if (strstr(line, "Used ") && line_int(line, "registers", &regs)) {
            line_int(line, "bytes smem", &smem);
            json_array_append_new(kernels, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}",
                "name", name, "registers", (json_int_t)regs, "smem_static", (json_int_t)smem,
                "stack_bytes", (json_int_t)stack, "spill_stores", (json_int_t)st,
                "spill_loads", (json_int_t)ld));
            if (regs > max_regs) max_regs = regs;
            if (smem > max_smem) max_smem = smem;
            if (stack > max_stack) max_stack = stack;
            spill_st += st;
            spill_ld += ld;
            in_arch = 0;
        }
    }
    if (json_array_size(kernels) == 0) {
        json_decref(kernels);
        return NULL;
    }
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o}", "arch", arch,
                     "registers", (json_int_t)max_regs, "smem_static", (json_int_t)max_smem,
                     "stack_bytes", (json_int_t)max_stack, "spill_stores", (json_int_t)spill_st,
                     "spill_loads", (json_int_t)spill_ld, "kernels", kernels);
}

json_t *resources_for_object(const char *so_path, const char *arch)
{
    char path[1024];
    size_t n = strlen(so_path);
    if (n > 3 && strcmp(so_path + n - 3, ".so") == 0) n -= 3;
    snprintf(path, sizeof path, "%.*s.ptxas.txt", (int)n, so_path);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size > 0 ? malloc((size_t)size + 1) : NULL;
    json_t *r = NULL;
    if (text && fread(text, 1, (size_t)size, f) == (size_t)size) {
        text[size] = '\0';
        /* an object with architecture-specific code for this GPU (sm_90a on sm_90) runs
         * that code, not its portable fallback: report the one that runs */
        char specific[32];
        snprintf(specific, sizeof specific, "%sa", arch);
        r = resources_parse(text, specific);
        if (!r) r = resources_parse(text, arch);
    }
    free(text);
    fclose(f);
    return r;
}

/* ---- from the loaded code ------------------------------------------------------------- */

typedef CUresult (*lib_load_fn)(CUlibrary *, const void *, CUjit_option *, void **, unsigned,
                                CUlibraryOption *, void **, unsigned);
typedef CUresult (*lib_unload_fn)(CUlibrary);
typedef CUresult (*lib_count_fn)(unsigned *, CUlibrary);
typedef CUresult (*lib_enum_fn)(CUkernel *, unsigned, CUlibrary);
typedef CUresult (*kern_name_fn)(const char **, CUkernel);
typedef CUresult (*kern_attr_fn)(int *, CUfunction_attribute, CUkernel, CUdevice);

typedef struct {
    lib_load_fn load;
    lib_unload_fn unload;
    lib_count_fn count;
    lib_enum_fn enumerate;
    kern_name_fn name;
    kern_attr_fn attr;
} driver_fns;

/* The driver's entry points through the runtime: the harness links no libcuda. */
static int driver_get(driver_fns *d)
{
    struct { const char *sym; void **fn; } want[] = {
        { "cuLibraryLoadData", (void **)&d->load }, { "cuLibraryUnload", (void **)&d->unload },
        { "cuLibraryGetKernelCount", (void **)&d->count }, { "cuLibraryEnumerateKernels", (void **)&d->enumerate },
        { "cuKernelGetName", (void **)&d->name }, { "cuKernelGetAttribute", (void **)&d->attr },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion(want[i].sym, want[i].fn, 12040, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !*want[i].fn)
            return -1;
    }
    return 0;
}

/* The .nv_fatbin section of an ELF64 file in memory: offset and size, or -1. */
static int fatbin_section(const unsigned char *f, size_t n, size_t *off, size_t *size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
    if (n < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > n ||
        (n - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
        return -1;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
    const Elf64_Shdr *strs = &sh[eh->e_shstrndx];
    if (strs->sh_offset > n || strs->sh_size > n - strs->sh_offset) return -1;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_name >= strs->sh_size) continue;
        const char *name = (const char *)f + strs->sh_offset + sh[i].sh_name;
        if (strnlen(name, strs->sh_size - sh[i].sh_name) == strs->sh_size - sh[i].sh_name) continue;
        if (strcmp(name, ".nv_fatbin") || sh[i].sh_offset > n || sh[i].sh_size > n - sh[i].sh_offset) continue;
        *off = sh[i].sh_offset;
        *size = sh[i].sh_size;
        return 0;
    }
    return -1;
}

/* A ptxas report's kernel of that name for the report's target (resources_parse), or NULL. */
static json_t *report_kernel(const json_t *report, const char *name)
{
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(report, "kernels"), i, k)
        if (!strcmp(json_string_value(json_object_get(k, "name")), name)) return k;
    return NULL;
}

/* Longer than a harness function should be: one walk over the object's fatbinaries, each
 * loaded, its kernels read and matched with the ptxas report, then the maxima and the
 * spills; the driver's library handle lives inside the walk. To be split when this object
 * is written as a typed value (issue 42). */
json_t *resources_loaded(const char *so_path, const char *arch, char *why, size_t len)
{
    driver_fns drv;
    int dev = 0;
    if (driver_get(&drv) || cudaGetDevice(&dev) != cudaSuccess) {
        snprintf(why, len, "the driver has no cuLibrary entry points");
        return NULL;
    }
    size_t n = 0, off = 0, size = 0;
    unsigned char *f = (unsigned char *)files_read(so_path, &n);
    if (!f || fatbin_section(f, n, &off, &size)) {
        snprintf(why, len, "%s: no .nv_fatbin section", so_path);
        free(f);
        return NULL;
    }
    json_t *report = resources_for_object(so_path, arch);
    json_t *kernels = json_array();
    long max_regs = 0, max_smem = 0, max_local = 0, spill_st = 0, spill_ld = 0;
    int stale = 0, loaded = 0;
    /* one fatbinary per translation unit, each behind its 16-byte header, 8-byte aligned */
    for (size_t p = off; p + 16 <= off + size;) {
        uint32_t magic;
        uint16_t hsize;
        uint64_t fsize;
        memcpy(&magic, f + p, 4);
        if (magic != 0xBA55ED50u) {
            p += 8;
            continue;
        }
        memcpy(&hsize, f + p + 6, 2);
        memcpy(&fsize, f + p + 8, 8);
        if (fsize > off + size - p || hsize > off + size - p - fsize) break;
        CUlibrary lib;
        unsigned count = 0;
        if (drv.load(&lib, f + p, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS) {
            loaded++;
            if (drv.count(&count, lib) == CUDA_SUCCESS && count) {
                CUkernel *ks = calloc(count, sizeof *ks);
                if (ks && drv.enumerate(ks, count, lib) == CUDA_SUCCESS) {
                    for (unsigned i = 0; i < count; i++) {
                        const char *name = NULL;
                        int regs = 0, smem = 0, local = 0, threads = 0, bin = 0;
                        if (drv.name(&name, ks[i]) != CUDA_SUCCESS || !name ||
                            drv.attr(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, ks[i], dev) != CUDA_SUCCESS)
                            continue;   /* no code for this device in this unit */
                        drv.attr(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, ks[i], dev);
                        drv.attr(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, ks[i], dev);
                        drv.attr(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, ks[i], dev);
                        drv.attr(&bin, CU_FUNC_ATTRIBUTE_BINARY_VERSION, ks[i], dev);
                        json_t *k = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "name", name, "registers", regs,
                                              "smem_static", smem, "local_bytes", local, "max_threads", threads,
                                              "binary_version", bin);
                        json_t *rk = report ? report_kernel(report, name) : NULL;
                        if (rk && json_integer_value(json_object_get(rk, "registers")) != regs) stale = 1;
                        if (rk) {
                            json_object_set(k, "spill_stores", json_object_get(rk, "spill_stores"));
                            json_object_set(k, "spill_loads", json_object_get(rk, "spill_loads"));
                            spill_st += (long)json_integer_value(json_object_get(rk, "spill_stores"));
                            spill_ld += (long)json_integer_value(json_object_get(rk, "spill_loads"));
                        }
                        json_array_append_new(kernels, k);
                        if (regs > max_regs) max_regs = regs;
                        if (smem > max_smem) max_smem = smem;
                        if (local > max_local) max_local = local;
                    }
                }
                free(ks);
            }
            drv.unload(lib);
        }
        p += hsize + fsize;
        p = (p + 7) & ~(size_t)7;
    }
    free(f);
    if (json_array_size(kernels) == 0) {
        snprintf(why, len, "%s: the driver loaded %d fatbinar%s and found no kernel for this GPU", so_path,
                 loaded, loaded == 1 ? "y" : "ies");
        json_decref(kernels);
        json_decref(report);
        return NULL;
    }
    const char *spills_from = !report ? "none: no ptxas report beside the object"
                            : stale ? "none: the ptxas report beside the object is stale (its registers differ from the loaded code's)"
                                    : "ptxas report";
    if (stale) {
        size_t i;
        json_t *k;
        json_array_foreach(kernels, i, k) {
            json_object_del(k, "spill_stores");
            json_object_del(k, "spill_loads");
        }
    }
    json_t *r = json_pack("{s:s, s:s, s:I, s:I, s:I, s:s, s:o}", "source", "loaded",
                          "arch", report ? json_string_value(json_object_get(report, "arch")) : arch,
                          "registers", (json_int_t)max_regs, "smem_static", (json_int_t)max_smem,
                          "stack_bytes", (json_int_t)max_local, "spills_from", spills_from, "kernels", kernels);
    if (report && !stale) {   /* absent, not zero, when no report says */
        json_object_set_new(r, "spill_stores", json_integer(spill_st));
        json_object_set_new(r, "spill_loads", json_integer(spill_ld));
    }
    json_decref(report);
    return r;
}
