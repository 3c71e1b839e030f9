/* profile.c: `attnladder profile`: Nsight Compute's command line over chosen
 * implementations and shapes. The harness re-executes itself as the profiled target
 * (`profile --target`), which runs the implementation once to warm up and once inside
 * cudaProfilerStart/Stop, so ncu (--profile-from-start off) sees exactly one run().
 * The metrics go into an existing evidence file (--into), rewritten atomically. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include "core/gz_read.h"
#include "core/args.h"
#include "core/files.h"
#include "cmd/commands.h"
#include "evidence/evidence_file.h"
#include "evidence/reader.h"
#include "evidence/writer.h"
#include "measure/inputs.h"
#include "measure/loader.h"
#include "measure/ncu_csv.h"
#include "core/shapes.h"

#define MAX_ITEMS 32

/* What the evidence keeps of ncu's raw page (names as ncu 2025 spells them). */
static const char *const KEEP[] = {
    "gpu__time_duration.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",          /* achieved occupancy */
    "sm__maximum_warps_per_active_cycle_pct",                      /* theoretical */
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__grid_size", "launch__block_size",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__average_warps_issue_stalled_*",
    NULL,
};

/* Named metrics, not sections: a section's raw page can leave out what we keep. The
 * first attempt asks for everything; a tool that refuses a name (older or newer ncu)
 * gets the second, shorter list. */
#define STALL(r) "smsp__average_warps_issue_stalled_" r "_per_issue_active.ratio,"
static const char NCU_METRICS_FULL[] =
    "gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,"
    "sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread,"
    "launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,"
    "launch__grid_size,launch__block_size,"
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,"
    "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
    "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
    "lts__throughput.avg.pct_of_peak_sustained_elapsed,"
    STALL("barrier") STALL("long_scoreboard") STALL("short_scoreboard") STALL("mio_throttle")
    STALL("math_pipe_throttle") STALL("wait") STALL("not_selected") STALL("lg_throttle")
    STALL("dispatch_stall") STALL("no_instruction") STALL("membar") STALL("branch_resolving")
    STALL("drain") STALL("imc_miss") STALL("sleeping") STALL("tex_throttle")
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
static const char NCU_METRICS_SHORT[] =
    "gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,"
    "launch__registers_per_thread,launch__grid_size,launch__block_size,"
    "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

/* ---- the profiled target ------------------------------------------------------------ */

/* One implementation, on the target's inputs: a warm-up run, then one run inside
 * cudaProfilerStart/Stop, after the marker's launch when there is one (ncu_csv.h). */
static int target_one(const loaded_impl *im, const loaded_impl *marker, const attn_shape *s,
                      const host_inputs *in, void *q, void *k, void *v, cudaStream_t st)
{
    void *o = NULL, *ws = NULL, *state = NULL, *mstate = NULL;
    const char *name = im->ph->name;
    size_t wsb = im->ph->workspace_bytes(s), no = in->nq * 2;
    int rc = EXIT_GATE;
    if (cudaMalloc(&o, no) || (wsb && cudaMalloc(&ws, wsb))) {
        fprintf(stderr, "attnladder profile: %s: allocating failed: %s\n", name,
                cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    if (im->ph->init(&state, s) || (marker && marker->ph->init(&mstate, s))) {
        fprintf(stderr, "attnladder profile: %s: init failed\n", name);
        goto done;
    }
    attn_args a = { q, k, v, o, ws, st };
    int r1 = im->ph->run(state, &a);
    cudaError_t e = cudaStreamSynchronize(st);
    cudaProfilerStart();
    int rm = marker ? marker->ph->run(mstate, &a) : 0;
    int r2 = im->ph->run(state, &a);
    cudaError_t e2 = cudaStreamSynchronize(st);
    cudaProfilerStop();
    if (r1 || r2 || rm || e || e2)
        fprintf(stderr, "attnladder profile: %s: run failed: %s\n", name,
                r1 ? im->ph->error_string(r1) : r2 ? im->ph->error_string(r2)
                : rm ? marker->ph->error_string(rm) : cudaGetErrorString(e ? e : e2));
    else
        rc = EXIT_OK;
done:
    if (state) im->ph->fini(state);
    if (mstate) marker->ph->fini(mstate);
    cudaFree(o);
    cudaFree(ws);
    return rc;
}

/* The profiled process: names (a comma list) run one after another on one set of inputs;
 * with marked, each after the launch floor's kernel, so that one ncu process can tell
 * their kernels apart (ncu_split_by_marker). */
static int profile_target(const char *build, const char *names, const attn_shape *s, int marked)
{
    char err[1024];
    loaded_impl *all;
    size_t n;
    if (loader_open_all(build, &all, &n, err, sizeof err)) {
        fprintf(stderr, "attnladder profile: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    const loaded_impl *chosen[MAX_ITEMS];
    size_t n_chosen = 0;
    char *list = strdup(names);
    int rc = EXIT_BAD_INPUT;
    for (char *t = list ? strtok(list, ",") : NULL; t; t = strtok(NULL, ",")) {
        const loaded_impl *im = loader_find(all, n, t);
        const char *why = im ? im->ph->unsupported(s) : "not found";
        if (why || n_chosen == MAX_ITEMS) {
            fprintf(stderr, "attnladder profile: %s: %s\n", t, why ? why : "too many implementations");
            free(list);
            loader_close_all(all, n);
            return EXIT_BAD_INPUT;
        }
        chosen[n_chosen++] = im;
    }
    free(list);
    const loaded_impl *marker = marked ? loader_find(all, n, "launch_floor") : NULL;
    if (marked && !marker) {
        fprintf(stderr, "attnladder profile: --marked: no launch_floor in %s\n", build);
        loader_close_all(all, n);
        return EXIT_BAD_INPUT;
    }
    host_inputs in = { 0 };
    void *q = NULL, *k = NULL, *v = NULL;
    cudaStream_t st = NULL;
    rc = EXIT_GATE;
    if (inputs_generate(&in, s, 1234, DIST_UNIFORM) || cudaMalloc(&q, in.nq * 2) || cudaMalloc(&k, in.nkv * 2) ||
        cudaMalloc(&v, in.nkv * 2) ||
        cudaMemcpy(q, in.q, in.nq * 2, cudaMemcpyHostToDevice) ||
        cudaMemcpy(k, in.k, in.nkv * 2, cudaMemcpyHostToDevice) ||
        cudaMemcpy(v, in.v, in.nkv * 2, cudaMemcpyHostToDevice) ||
        cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) {
        fprintf(stderr, "attnladder profile: setting up %s failed: %s\n", names,
                cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    rc = EXIT_OK;
    for (size_t i = 0; i < n_chosen && rc == EXIT_OK; i++) rc = target_one(chosen[i], marker, s, &in, q, k, v, st);
done:
    if (st) cudaStreamDestroy(st);
    cudaFree(q);
    cudaFree(k);
    cudaFree(v);
    inputs_free(&in);
    loader_close_all(all, n);
    return rc;
}

/* ---- the driver ---------------------------------------------------------------------- */

/* Runs argv[0] with argv (no shell: nothing in a path or a name is read as a command)
 * and returns what it wrote to stdout and stderr, at most 256 MiB; *status its exit
 * status (-1 when it could not run or was killed). NULL when it could not be started. */
static char *run_capture(char *const argv[], int *status)
{
    *status = -1;
    int fds[2];
    if (pipe(fds)) return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, STDIN_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t cap = 1 << 16, len = 0, max = (size_t)256 << 20;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && cap - len < 4096 && cap < max) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            } else {
                buf = grown;
                cap *= 2;
            }
        }
        char sink[4096];
        int keep = buf && cap - len > 1;
        ssize_t got = read(fds[0], keep ? buf + len : sink, keep ? cap - len - 1 : sizeof sink);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (keep) len += (size_t)got;   /* past the cap the rest is drained, not kept */
    }
    close(fds[0]);
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(wst)) *status = WEXITSTATUS(wst);
    if (buf) buf[len] = '\0';
    return buf;
}

/* The three largest stall reasons of a kernel's metrics. */
static json_t *top_stalls(json_t *metrics)
{
    const char *prefix = "smsp__average_warps_issue_stalled_";
    const char *names[3] = { 0 };
    double vals[3] = { -1, -1, -1 };
    const char *key;
    json_t *val;
    json_object_foreach(metrics, key, val) {
        if (strncmp(key, prefix, strlen(prefix)) || !json_is_number(val)) continue;
        if (strstr(key, "not_issued")) continue;
        double x = json_number_value(val);
        for (int i = 0; i < 3; i++)
            if (x > vals[i]) {
                for (int j = 2; j > i; j--) { vals[j] = vals[j - 1]; names[j] = names[j - 1]; }
                vals[i] = x;
                names[i] = key;
                break;
            }
    }
    json_t *arr = json_array();
    for (int i = 0; i < 3; i++) {
        if (!names[i]) continue;
        char reason[128];
        const char *r = names[i] + strlen(prefix);
        const char *suffix = strstr(r, "_per_issue_active");
        size_t len = suffix ? (size_t)(suffix - r) : strcspn(r, ".");
        snprintf(reason, sizeof reason, "%.*s", (int)len, r);
        json_array_append_new(arr, run_write_stall(&(run_stall){ reason, vals[i] }));
    }
    return arr;
}

/* Keeps ncu's own output for a reader who wants more than the evidence holds. */
static void save_raw(const char *dir, const char *impl, const char *shape, int attempt,
                     const char *text)
{
    char name[512], *path = NULL;
    snprintf(name, sizeof name, "ncu_%s_%s_%d.csv", impl, shape, attempt);   /* names and digits: short */
    for (char *p = name; *p; p++)
        if (*p == ',') *p = '-';
    if (asprintf(&path, "%s/%s", dir, name) < 0) return;
    size_t len = strlen(text);
    if (files_write(path, text, len)) fprintf(stderr, "attnladder profile: --raw-dir: %s not kept\n", path);
    free(path);
}

static int ncu_available(const char *ncu)
{
    char *argv[] = { (char *)ncu, "--version", NULL };
    int status;
    char *out = run_capture(argv, &status);
    free(out);
    return out && status == 0;
}

/* What one `profile` holds between its stages; profile_close is the one cleanup. */
typedef struct {
    const char *build, *into, *ncu, *names, *raw_dir;
    int target, marked;             /* --target: the profiled process; --marked: ncu_csv.h */
    attn_shape shapes[MAX_ITEMS];
    size_t n_shapes;
    json_t *doc;                   /* the run profiled into */
    loaded_impl *all;
    size_t n_all;
    const char *chosen[MAX_ITEMS];
    size_t n_chosen;
    char *names_copy;              /* chosen[] points into it */
} profile_session;

/* The options. 0, 1 (--help printed: exit OK), or -1 (refused, printed). */
static int profile_parse(profile_session *p, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--target")) { p->target = 1; continue; }
        if (!strcmp(a, "--marked")) { p->marked = 1; continue; }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: attnladder profile --into EVIDENCE.json [--impl A,B] [--shape S]... "
                   "[--ncu PATH] [--build DIR] [--raw-dir DIR]\n  one profiled process a shape (one an implementation where their kernels cannot be told apart);\n  default shapes: the headline shapes; default "
                   "implementations: every phase\n");
            return 1;
        }
        static const char *const with_value[] = { "--build", "--into", "--ncu", "--raw-dir", "--impl",
                                                  "--shape", NULL };
        if (!arg_known("profile", a, with_value, "--into, --impl, --shape, --ncu, --build, --raw-dir"))
            return -1;
        if (!(v = arg_value("profile", argc, argv, &i))) return -1;
        if (!strcmp(a, "--build")) p->build = v;
        else if (!strcmp(a, "--into")) p->into = v;
        else if (!strcmp(a, "--ncu")) {
            if (!v[0]) {
                fprintf(stderr, "attnladder profile: --ncu '': give the program\n");
                return -1;
            }
            p->ncu = v;
        }
        else if (!strcmp(a, "--raw-dir")) p->raw_dir = v;
        else if (!strcmp(a, "--impl")) {
            if (arg_list("profile", a, v, "implementation names")) return -1;
            p->names = v;
        } else if (!strcmp(a, "--shape")) {
            if (p->n_shapes == MAX_ITEMS) {
                fprintf(stderr, "attnladder profile: too many shapes\n");
                return -1;
            }
            if (arg_shape("profile", a, v, &p->shapes[p->n_shapes])) return -1;
            p->n_shapes++;
        } else {
            fprintf(stderr, "attnladder profile: unknown option '%s'; accepted: --into, --impl, "
                    "--shape, --ncu, --build\n", a);
            return -1;
        }
    }
    if (p->n_shapes == 0) {
        shape_point pts[4];
        size_t n = shapes_headline(pts, 4);
        for (size_t i = 0; i < n; i++) p->shapes[p->n_shapes++] = pts[i].s;
    }
    return 0;
}

/* The run profiled into: named, plain, a file that may be rewritten, read by the one
 * reader. 0, or -1 (printed). */
static int profile_open_into(profile_session *p)
{
    char err[1024];
    if (!p->into) {
        fprintf(stderr, "attnladder profile: --into EVIDENCE.json is required (the run the "
                "metrics belong to)\n");
        return -1;
    }
    if (gz_is_named(p->into)) {   /* checked before the profiler runs: the file is rewritten */
        fprintf(stderr, "attnladder profile --into %s: a compressed run; profile into its plain form, "
                "then compress it again (ci/tools/compress_run.sh)\n", p->into);
        return -1;
    }
    /* rewritten in place: a link or a device there would be replaced, not written through */
    if (files_output_file("--into", p->into, NULL, 0, err, sizeof err)) {
        fprintf(stderr, "attnladder profile: %s\n", err);
        return -1;
    }
    p->doc = evidence_load(p->into, err, sizeof err);
    if (!p->doc) {
        fprintf(stderr, "attnladder profile: %s\n", err);
        return -1;
    }
    /* the file profiled into must be a run the one reader accepts, as it must be after */
    run_data into_run;
    if (run_from_doc(&into_run, p->doc, p->into, err, sizeof err)) {
        fprintf(stderr, "attnladder profile: %s\n", err);
        return -1;
    }
    run_close(&into_run);
    return 0;
}

/* The implementations profiled (--impl, else every phase) and the profiler. 0, or -1
 * (printed). */
static int profile_choose(profile_session *p)
{
    char err[1024];
    if (loader_open_all(p->build, &p->all, &p->n_all, err, sizeof err)) {
        fprintf(stderr, "attnladder profile: %s\n", err);
        return -1;
    }
    p->names_copy = p->names ? strdup(p->names) : NULL;
    for (char *t = p->names_copy ? strtok(p->names_copy, ",") : NULL; t && p->n_chosen < MAX_ITEMS;
         t = strtok(NULL, ",")) {
        if (!loader_find(p->all, p->n_all, t)) {
            fprintf(stderr, "attnladder profile: unknown implementation '%s'\n", t);
            return -1;
        }
        p->chosen[p->n_chosen++] = t;
    }
    for (size_t i = 0; !p->names && i < p->n_all && p->n_chosen < MAX_ITEMS; i++)
        if (p->all[i].kind == IMPL_PHASE) p->chosen[p->n_chosen++] = p->all[i].ph->name;
    if (!ncu_available(p->ncu)) {
        fprintf(stderr, "attnladder profile: --ncu '%s': cannot run it (install Nsight Compute, or name it "
                "with --ncu); no profiler metrics recorded\n", p->ncu);
        return -1;
    }
    return 0;
}

/* The kernels of one implementation at one shape, with their top stalls; said. */
static json_t *finish_kernels(json_t *kernels, const char *impl, const char *text)
{
    size_t k;
    json_t *kv;
    json_array_foreach(kernels, k, kv)
        json_object_set_new(kv, "stall_top", top_stalls(json_object_get(kv, "metrics")));
    printf("profile: %-22s %-24s %zu kernel(s)\n", impl, text, json_array_size(kernels));
    return kernels;
}

/* ncu over `self profile --target` for impls (a comma list) at one shape, the full metric
 * set, then the short one; marked: one process for them all (ncu_csv.h's markers). The
 * parsed page, or NULL; *status is ncu's exit status. */
static json_t *ncu_page(const profile_session *p, const char *self, const char *impls, const attn_shape *sh,
                        int marked, int attempt, int *status)
{
    char shape_arg[96];
    snprintf(shape_arg, sizeof shape_arg, "%d,%d,%d,%d,%d,%d", sh->batch, sh->heads,
             sh->seq_q, sh->seq_kv, sh->head_dim, sh->causal);
    char *args[] = { (char *)p->ncu, "--csv", "--page", "raw", "--profile-from-start", "off",
                     "--metrics", (char *)(attempt == 0 ? NCU_METRICS_FULL : NCU_METRICS_SHORT),
                     (char *)self, "profile", "--target", "--build", (char *)p->build, "--impl",
                     (char *)impls, "--shape", shape_arg, marked ? "--marked" : NULL, NULL };
    char *outp = run_capture(args, status);
    if (outp && p->raw_dir) save_raw(p->raw_dir, marked ? "all" : impls, shape_arg, attempt, outp);
    json_t *kernels = outp ? ncu_parse_raw_csv(outp, KEEP) : NULL;
    if (!kernels || json_array_size(kernels) == 0) {
        const char *line = outp ? strstr(outp, "==ERROR==") : NULL;
        if (attempt == 1)
            printf("profile: %s at %s: ncu gave no metrics (%.*s)\n", marked ? "one process" : impls, shape_arg,
                   line ? (int)strcspn(line, "\n") : 24, line ? line : "no output");
        json_decref(kernels);
        kernels = NULL;
    }
    free(outp);
    return kernels;
}

/* One implementation at one shape, a process of its own: its kernels, or NULL (said). */
static json_t *profile_one(const profile_session *p, const char *self, const char *impl, const attn_shape *sh)
{
    char text[96];
    shape_format(sh, text, sizeof text);
    json_t *kernels = NULL;
    for (int attempt = 0; attempt < 2 && !kernels; attempt++) {
        int status;
        kernels = ncu_page(p, self, impl, sh, 0, attempt, &status);
    }
    return kernels ? finish_kernels(kernels, impl, text) : NULL;
}

/* n implementations at one shape in one profiled process: an array of n kernel arrays, or
 * NULL when the process failed or its kernels cannot be told apart (said). Each process
 * costs ncu's start, a CUDA context and the inputs: about 2.5 s an item when every
 * implementation had its own (39 processes, ~100 s of a session on an H200). */
static json_t *profile_group(const profile_session *p, const char *self, const char *const *impls, size_t n,
                             const attn_shape *sh)
{
    char list[MAX_ITEMS * 64] = "", text[96];
    shape_format(sh, text, sizeof text);
    for (size_t i = 0; i < n; i++) {
        if (strlen(list) + strlen(impls[i]) + 2 > sizeof list) return NULL;
        if (i) strcat(list, ",");
        strcat(list, impls[i]);
    }
    json_t *groups = NULL;
    for (int attempt = 0; attempt < 2 && !groups; attempt++) {
        int status;
        json_t *kernels = ncu_page(p, self, list, sh, 1, attempt, &status);
        if (kernels && status == 0) groups = ncu_split_by_marker(kernels, n);
        json_decref(kernels);
    }
    if (!groups) {
        printf("profile: %s: the implementations' kernels not told apart in one process; one process each\n", text);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) finish_kernels(json_array_get(groups, i), impls[i], text);
    return groups;
}

/* Every chosen implementation at every shape it supports, one profiled process a shape
 * (one an implementation where that fails), appended to the run's profile rows in the
 * order of implementations, then shapes. */
static void profile_all(profile_session *p)
{
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    self[sl > 0 ? sl : 0] = '\0';
    json_t *prof = json_object_get(p->doc, "profile");
    if (!json_is_array(prof)) {
        prof = json_array();
        json_object_set_new(p->doc, "profile", prof);
    }
    static json_t *found[MAX_ITEMS][MAX_ITEMS];   /* [implementation][shape] */
    memset(found, 0, sizeof found);
    for (size_t s = 0; s < p->n_shapes; s++) {
        const attn_shape *sh = &p->shapes[s];
        const char *names[MAX_ITEMS];
        size_t idx[MAX_ITEMS], m = 0;
        for (size_t i = 0; i < p->n_chosen; i++)
            if (!loader_find(p->all, p->n_all, p->chosen[i])->ph->unsupported(sh)) {
                names[m] = p->chosen[i];
                idx[m++] = i;
            }
        json_t *groups = m > 1 ? profile_group(p, self, names, m, sh) : NULL;
        for (size_t j = 0; j < m; j++)
            found[idx[j]][s] = groups ? json_incref(json_array_get(groups, j)) : profile_one(p, self, names[j], sh);
        json_decref(groups);
    }
    for (size_t i = 0; i < p->n_chosen; i++)
        for (size_t s = 0; s < p->n_shapes; s++)
            if (found[i][s])
                json_array_append_new(prof, run_write_profile(p->chosen[i], &p->shapes[s], "ncu", found[i][s]));
}

static void profile_close(profile_session *p)
{
    free(p->names_copy);
    loader_close_all(p->all, p->n_all);
    json_decref(p->doc);
}

int cmd_profile(int argc, char **argv)
{
    profile_session p = { .build = "build", .ncu = "ncu" };
    int parsed = profile_parse(&p, argc, argv);
    if (parsed) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.target) {
        if (!p.names || p.n_shapes != 1) {
            fprintf(stderr, "attnladder profile --target: needs --impl and one --shape\n");
            return EXIT_BAD_INPUT;
        }
        return profile_target(p.build, p.names, &p.shapes[0], p.marked);
    }
    int rc = EXIT_OK;
    if (profile_open_into(&p) || profile_choose(&p)) {
        rc = EXIT_BAD_INPUT;
    } else {
        char err[1024];
        profile_all(&p);
        if (evidence_write_atomic(p.doc, p.into, err, sizeof err)) {
            fprintf(stderr, "attnladder profile: %s\n", err);
            rc = EXIT_GATE;
        }
    }
    profile_close(&p);
    return rc;
}
