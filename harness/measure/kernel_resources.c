/* measure/kernel_resources.c: ptxas -v report parsing. */
#include "measure/kernel_resources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
