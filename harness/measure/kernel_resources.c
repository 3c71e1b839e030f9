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

void resources_free(kernel_resources *r)
{
    for (size_t i = 0; i < r->n_kernels; i++) free(r->kernels[i].name);
    free(r->kernels);
    memset(r, 0, sizeof *r);
}

/* A new kernel at the end of r->kernels, its name copied; NULL out of memory. */
static kernel_resource *kernel_add(kernel_resources *r, size_t *cap, const char *name)
{
    if (r->n_kernels == *cap) {
        size_t n = *cap ? 2 * *cap : 8;
        kernel_resource *k = realloc(r->kernels, n * sizeof *k);
        if (!k) return NULL;
        r->kernels = k;
        *cap = n;
    }
    char *copy = strdup(name);
    if (!copy) return NULL;
    kernel_resource *k = &r->kernels[r->n_kernels++];
    *k = (kernel_resource){ .name = copy, .stack_bytes = -1, .local_bytes = -1, .max_threads = -1,
                            .binary_version = -1 };
    return k;
}

int resources_parse(const char *report, const char *arch, kernel_resources *out)
{
    kernel_resources r = { .source = RESOURCES_PTXAS, .has_spills = 1 };
    size_t cap = 0;
    snprintf(r.arch, sizeof r.arch, "%s", arch);
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
            kernel_resource *k = kernel_add(&r, &cap, name);
            if (!k) {
                resources_free(&r);
                return -1;
            }
            k->registers = regs;
            k->smem_static = smem;
            k->stack_bytes = stack;
            k->has_spills = 1;
            k->spill_stores = st;
            k->spill_loads = ld;
            if (regs > r.registers) r.registers = regs;
            if (smem > r.smem_static) r.smem_static = smem;
            if (stack > r.stack_bytes) r.stack_bytes = stack;
            r.spill_stores += st;
            r.spill_loads += ld;
            in_arch = 0;
        }
    }
    if (r.n_kernels == 0) {
        resources_free(&r);
        return -1;
    }
    *out = r;
    return 0;
}

int resources_for_object(const char *so_path, const char *arch, kernel_resources *out)
{
    char path[1024];
    size_t n = strlen(so_path);
    if (n > 3 && strcmp(so_path + n - 3, ".so") == 0) n -= 3;
    snprintf(path, sizeof path, "%.*s.ptxas.txt", (int)n, so_path);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size > 0 ? malloc((size_t)size + 1) : NULL;
    int rc = -1;
    if (text && fread(text, 1, (size_t)size, f) == (size_t)size) {
        text[size] = '\0';
        /* an object with architecture-specific code for this GPU (sm_90a on sm_90) runs
         * that code, not its portable fallback: report the one that runs */
        char specific[32];
        snprintf(specific, sizeof specific, "%sa", arch);
        rc = resources_parse(text, specific, out);
        if (rc) rc = resources_parse(text, arch, out);
    }
    free(text);
    fclose(f);
    return rc;
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

/* A ptxas report's kernel of that name (the first), or NULL. */
static const kernel_resource *report_kernel(const kernel_resources *report, const char *name)
{
    for (size_t i = 0; i < report->n_kernels; i++)
        if (!strcmp(report->kernels[i].name, name)) return &report->kernels[i];
    return NULL;
}

/* The kernels of one fatbinary the driver loads (those with code for this device),
 * appended to r, its maxima raised. 0 (loaded counted when the driver loaded it), or -1
 * out of memory. */
static int library_kernels(const driver_fns *drv, int dev, const void *image, kernel_resources *r, size_t *cap,
                           int *loaded)
{
    CUlibrary lib;
    unsigned count = 0;
    if (drv->load(&lib, image, NULL, NULL, 0, NULL, NULL, 0) != CUDA_SUCCESS) return 0;
    (*loaded)++;
    int rc = 0;
    CUkernel *ks = NULL;
    if (drv->count(&count, lib) == CUDA_SUCCESS && count && (ks = calloc(count, sizeof *ks)) &&
        drv->enumerate(ks, count, lib) == CUDA_SUCCESS) {
        for (unsigned i = 0; i < count; i++) {
            const char *name = NULL;
            int regs = 0, smem = 0, local = 0, threads = 0, bin = 0;
            if (drv->name(&name, ks[i]) != CUDA_SUCCESS || !name ||
                drv->attr(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, ks[i], dev) != CUDA_SUCCESS)
                continue;   /* no code for this device in this unit */
            drv->attr(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, ks[i], dev);
            drv->attr(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, ks[i], dev);
            drv->attr(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, ks[i], dev);
            drv->attr(&bin, CU_FUNC_ATTRIBUTE_BINARY_VERSION, ks[i], dev);
            kernel_resource *k = kernel_add(r, cap, name);
            if (!k) {
                rc = -1;
                break;
            }
            k->registers = regs;
            k->smem_static = smem;
            k->local_bytes = local;
            k->max_threads = threads;
            k->binary_version = bin;
            if (regs > r->registers) r->registers = regs;
            if (smem > r->smem_static) r->smem_static = smem;
            if (local > r->stack_bytes) r->stack_bytes = local;
        }
    }
    free(ks);
    drv->unload(lib);
    return rc;
}

/* The ptxas report's spills (report NULL: none beside the object) on the loaded kernels,
 * matched by name, and their sums; none when the report is stale (a kernel's registers
 * differ from the loaded code's). r's arch becomes the report's target. */
static void spills_from_report(kernel_resources *r, const kernel_resources *report)
{
    if (!report) {
        r->spills_from = "none: no ptxas report beside the object";
        return;
    }
    memcpy(r->arch, report->arch, sizeof r->arch);
    for (size_t i = 0; i < r->n_kernels; i++) {
        const kernel_resource *rk = report_kernel(report, r->kernels[i].name);
        if (rk && rk->registers != r->kernels[i].registers) {
            r->spills_from = "none: the ptxas report beside the object is stale (its registers differ from the "
                             "loaded code's)";
            return;
        }
    }
    for (size_t i = 0; i < r->n_kernels; i++) {
        kernel_resource *k = &r->kernels[i];
        const kernel_resource *rk = report_kernel(report, k->name);
        if (!rk) continue;
        k->has_spills = 1;
        k->spill_stores = rk->spill_stores;
        k->spill_loads = rk->spill_loads;
        r->spill_stores += rk->spill_stores;
        r->spill_loads += rk->spill_loads;
    }
    r->has_spills = 1;   /* absent, not zero, when no report says */
    r->spills_from = "ptxas report";
}

int resources_loaded(const char *so_path, const char *arch, kernel_resources *out, char *why, size_t len)
{
    driver_fns drv;
    int dev = 0;
    if (driver_get(&drv) || cudaGetDevice(&dev) != cudaSuccess) {
        snprintf(why, len, "the driver has no cuLibrary entry points");
        return -1;
    }
    size_t n = 0, off = 0, size = 0;
    unsigned char *f = (unsigned char *)files_read(so_path, &n);
    if (!f || fatbin_section(f, n, &off, &size)) {
        snprintf(why, len, "%s: no .nv_fatbin section", so_path);
        free(f);
        return -1;
    }
    kernel_resources r = { .source = RESOURCES_LOADED };
    snprintf(r.arch, sizeof r.arch, "%s", arch);
    size_t cap = 0;
    int loaded = 0, rc = 0;
    /* one fatbinary per translation unit, each behind its 16-byte header, 8-byte aligned */
    for (size_t p = off; rc == 0 && p + 16 <= off + size;) {
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
        rc = library_kernels(&drv, dev, f + p, &r, &cap, &loaded);
        p += hsize + fsize;
        p = (p + 7) & ~(size_t)7;
    }
    free(f);
    if (rc) snprintf(why, len, "%s: out of memory reading the loaded kernels", so_path);
    else if (r.n_kernels == 0)
        snprintf(why, len, "%s: the driver loaded %d fatbinar%s and found no kernel for this GPU", so_path, loaded,
                 loaded == 1 ? "y" : "ies");
    if (rc || r.n_kernels == 0) {
        resources_free(&r);
        return -1;
    }
    kernel_resources report = { 0 };
    int have_report = resources_for_object(so_path, arch, &report) == 0;
    spills_from_report(&r, have_report ? &report : NULL);
    resources_free(&report);
    *out = r;
    return 0;
}
