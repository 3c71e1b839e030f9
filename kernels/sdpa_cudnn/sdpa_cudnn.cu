// sdpa_cudnn: the SDPA baseline, cuDNN's fused flash attention called from C through
// the backend API (the path PyTorch's CUDNN_ATTENTION backend takes through cuDNN's
// frontend). init() builds the operation graph (sdpa_graph.c), lets cuDNN's heuristics
// pick the engine and finalizes the plan (sdpa_plan.c); run() only sets the stream and
// enqueues the plan, so it can be captured in a CUDA graph.
#include <cuda_runtime.h>
#include <cudnn_graph.h>
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <math.h>
#include <float.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attn_phase.h"

// The graph and plan code is plain C (unit-tested on its own by
// harness/tests/kernels/test_sdpa_cudnn.c) and is compiled into this translation unit, with
// internal linkage: the Makefile's kernel rule hands nvcc only this directory's *.cu
// files today, and if it later compiles the .c files as well, their copies stay unused
// instead of clashing with these.
#define SDPA_CUDNN_API static
#include "sdpa_graph.c"
#include "sdpa_plan.c"

namespace {

enum {
    ERR_CUDNN = 1,    // a cuDNN call failed
    ERR_NO_ENGINE,    // no engine configuration finalizes for this shape on this GPU
    ERR_CUDA,         // a CUDA runtime call or launch failed
    ERR_HOST,         // out of host memory
    ERR_ARGS          // bad pointers passed to run()
};

// error_string() has no state argument: the last failure and the last init's note
// live here (the harness uses one state at a time).
char g_err[1800];
int g_err_code;
char g_note[1400];

int fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    g_err_code = code;
    return code;
}

const sdpa_api *linked_api()
{
    static const sdpa_api api = { cudnnBackendCreateDescriptor, cudnnBackendDestroyDescriptor,
                                  cudnnBackendSetAttribute,     cudnnBackendGetAttribute,
                                  cudnnBackendFinalize,         cudnnGetLastErrorString };
    return &api;
}

// Which libcudnn the loader bound (the GPU machine has one on the system path and
// another inside PyTorch's package; a process that imported torch first gets torch's).
int find_graph_lib(struct dl_phdr_info *info, size_t, void *out)
{
    if (info->dlpi_name && strstr(info->dlpi_name, "libcudnn_graph.so")) {
        snprintf((char *)out, PATH_MAX, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

void describe_library(char *buf, size_t n)
{
    Dl_info info;
    char real[PATH_MAX], graph[PATH_MAX] = "";
    const char *path = "an unknown path";
    if (dladdr((void *)&cudnnGetVersion, &info) && info.dli_fname)
        path = realpath(info.dli_fname, real) ? real : info.dli_fname;
    dl_iterate_phdr(find_graph_lib, graph);
    size_t v = cudnnGetVersion();
    snprintf(buf, n, "cuDNN %zu.%zu.%zu loaded from %s%s%s (built with %d.%d.%d)", v / 10000,
             v % 10000 / 100, v % 100, path, graph[0] ? ", graph library " : "", graph,
             CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
}

// A causal shape with seq_q > seq_kv: rows before q_row0 see no key and must be zero.
// The graph does not cover them (sdpa_graph.h), so this kernel writes them.
__global__ void zero_leading_rows(uint4 *o, long long head_stride, long long count,
                                  long long heads)
{
    for (long long hd = blockIdx.y; hd < heads; hd += gridDim.y)
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
             i += (long long)gridDim.x * blockDim.x)
            o[hd * head_stride + i] = make_uint4(0u, 0u, 0u, 0u);
}

struct State {
    cudnnHandle_t handle;
    sdpa_layout lay;
    sdpa_graph_kind kind;
    sdpa_graph graph;
    sdpa_plan plan;
    void *ws;                          // the plan's workspace, owned here (see workspace_bytes)
    cudnnBackendDescriptor_t vp;       // variant pack of the last pointers seen by run()
    const void *vp_key[4];
    float scale, mask_value;           // by-value scalars: the variant pack points at these
    int32_t seq_kv, seq_q;
};

const char *unsupported(const attn_shape *s)
{
    sdpa_layout l;
    const char *why = sdpa_layout_from_shape(s, &l);
    if (why) return why;
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
        major < 8)
        return "cuDNN's fused flash attention needs compute capability 8.0 or newer";
    cudaGetLastError();
    return nullptr;
}

// The plan's workspace is known only once its engine is chosen, after this is asked;
// init() allocates it and the state owns it.
size_t workspace_bytes(const attn_shape *) { return 0; }

void destroy_state(State *s)
{
    if (!s) return;
    if (s->vp) cudnnBackendDestroyDescriptor(s->vp);
    sdpa_plan_destroy(&s->plan);
    sdpa_graph_destroy(&s->graph);
    if (s->ws) cudaFree(s->ws);
    if (s->handle) cudnnDestroy(s->handle);
    free(s);
}

const char *kind_name(sdpa_graph_kind k)
{
    return k == SDPA_GRAPH_UNIFIED ? "unified SDPA_FWD operation" : "composite graph";
}

const char *mask_name(sdpa_mask m)
{
    return m == SDPA_MASK_NONE                  ? "no mask"
           : m == SDPA_MASK_CAUSAL_TOP_LEFT     ? "causal (row >= col)"
                                                : "causal (row + seq_kv - seq_q >= col)";
}

// The frontend's choice: the single SDPA_FWD operation where cuDNN has it (>= 9.13.1)
// and no mask is asked (masks on it need 9.21), else the composite graph.
// ATTN_SDPA_CUDNN_GRAPH=composite|unified overrides it, for comparisons.
sdpa_graph_kind choose_kind(const sdpa_layout &l, size_t version)
{
    const char *env = getenv("ATTN_SDPA_CUDNN_GRAPH");
    if (env && strcmp(env, "composite") == 0) return SDPA_GRAPH_COMPOSITE;
    if (l.mask != SDPA_MASK_NONE) return SDPA_GRAPH_COMPOSITE;
    if (env && strcmp(env, "unified") == 0) return SDPA_GRAPH_UNIFIED;
    return version >= 91301 ? SDPA_GRAPH_UNIFIED : SDPA_GRAPH_COMPOSITE;
}

// Graph and plan for one form. 0, or an error code with g_err set.
int build(State *s, sdpa_graph_kind kind)
{
    sdpa_graph_params p = { s->lay, kind, 1 };
    cudnnStatus_t st = sdpa_graph_build(&s->graph, linked_api(), &p, s->handle);
    if (st != CUDNN_STATUS_SUCCESS)
        return fail(sdpa_status_family(st) == 3000 ? ERR_NO_ENGINE : ERR_CUDNN,
                    "%s: %s", kind_name(kind), s->graph.err);
    st = sdpa_plan_build(&s->plan, linked_api(), s->graph.op_graph, s->handle);
    if (st != CUDNN_STATUS_SUCCESS)
        return fail(sdpa_status_family(st) == 3000 ? ERR_NO_ENGINE : ERR_CUDNN,
                    "%s: no engine plan finalized (%s): %s", kind_name(kind),
                    sdpa_status_name(st), s->plan.err);
    s->kind = kind;
    return 0;
}

int init(void **state, const attn_shape *shape)
{
    *state = nullptr;
    sdpa_layout lay;
    const char *why = sdpa_layout_from_shape(shape, &lay);
    if (why) return fail(ERR_ARGS, "%s", why);
    State *s = (State *)calloc(1, sizeof *s);
    if (!s) return fail(ERR_HOST, "out of host memory");
    s->lay = lay;
    s->scale = shape->scale;
    // cuDNN before 9.10 prefers the lowest float to -inf as the masked value (as the
    // frontend does); masked scores only ever meet exp(), so both give 0.
    size_t version = cudnnGetVersion();
    s->mask_value = version < 91000 ? -FLT_MAX : -INFINITY;
    s->seq_kv = (int32_t)lay.s_kv;
    s->seq_q = (int32_t)lay.s_q;

    cudnnStatus_t st = cudnnCreate(&s->handle);
    if (st != CUDNN_STATUS_SUCCESS) {
        char msg[600];
        sdpa_format_status(linked_api(), msg, sizeof msg, "cudnnCreate", st);
        destroy_state(s);
        return fail(ERR_CUDNN, "%s", msg);
    }
    sdpa_graph_kind kind = choose_kind(lay, version);
    int rc = build(s, kind);
    char fallback[700] = "";
    if (rc != 0 && kind == SDPA_GRAPH_UNIFIED) {
        // The single operation is new; where no engine takes it, the composite graph
        // is what older cuDNN uses for the same problem.
        snprintf(fallback, sizeof fallback, "; unified operation refused (%.560s), composite used",
                 g_err);
        sdpa_plan_destroy(&s->plan);
        sdpa_graph_destroy(&s->graph);
        rc = build(s, SDPA_GRAPH_COMPOSITE);
    }
    if (rc != 0) {
        destroy_state(s);
        return rc;
    }
    if (s->plan.workspace_bytes > 0) {
        cudaError_t e = cudaMalloc(&s->ws, (size_t)s->plan.workspace_bytes);
        if (e != cudaSuccess) {
            long long bytes = (long long)s->plan.workspace_bytes;
            destroy_state(s);
            return fail(ERR_CUDA, "cudaMalloc of the plan's %lld-byte workspace: %s", bytes,
                        cudaGetErrorString(e));
        }
    }
    char lib[700], plan[400];
    describe_library(lib, sizeof lib);
    sdpa_plan_describe(&s->plan, plan, sizeof plan);
    snprintf(g_note, sizeof g_note, "%s; %s, %s; %s%s%s", lib, kind_name(s->kind),
             mask_name(lay.mask), plan,
             lay.q_row0 ? "; leading all-masked rows zeroed by a kernel" : "", fallback);
    *state = s;
    return 0;
}

// The variant pack is finalized once per set of buffers: a new one only when run()
// sees different pointers (never inside a timed loop or a captured graph).
int update_variant_pack(State *s, const attn_args *a)
{
    const void *key[4] = { a->q, a->k, a->v, a->o };
    if (s->vp && memcmp(key, s->vp_key, sizeof key) == 0) return 0;
    if (s->vp) cudnnBackendDestroyDescriptor(s->vp);
    s->vp = nullptr;
    const size_t row0 = (size_t)(s->lay.q_row0 * s->lay.d) * 2;
    void *ptrs[SDPA_MAX_UIDS];
    for (int i = 0; i < s->graph.n_uids; i++) {
        switch (s->graph.uids[i]) {
        case SDPA_UID_Q: ptrs[i] = (char *)a->q + row0; break;
        case SDPA_UID_K: ptrs[i] = (void *)a->k; break;
        case SDPA_UID_V: ptrs[i] = (void *)a->v; break;
        case SDPA_UID_O: ptrs[i] = (char *)a->o + row0; break;
        case SDPA_UID_SCALE: ptrs[i] = &s->scale; break;
        case SDPA_UID_MASK_VALUE: ptrs[i] = &s->mask_value; break;
        case SDPA_UID_SEQ_KV: ptrs[i] = &s->seq_kv; break;
        case SDPA_UID_SEQ_Q: ptrs[i] = &s->seq_q; break;
        default: return fail(ERR_ARGS, "tensor uid %lld has no buffer", (long long)s->graph.uids[i]);
        }
    }
    char err[700];
    cudnnStatus_t st = sdpa_variant_pack(linked_api(), s->graph.n_uids, s->graph.uids, ptrs, s->ws,
                                         &s->vp, err, sizeof err);
    if (st != CUDNN_STATUS_SUCCESS) return fail(ERR_CUDNN, "%s", err);
    memcpy(s->vp_key, key, sizeof key);
    return 0;
}

int run(void *state, const attn_args *a)
{
    State *s = (State *)state;
    if (!s) return fail(ERR_ARGS, "run() without a successful init()");
    if (!a->q || !a->k || !a->v || !a->o) return fail(ERR_ARGS, "a null q, k, v or o pointer");
    if (((uintptr_t)a->q | (uintptr_t)a->k | (uintptr_t)a->v | (uintptr_t)a->o) & 15)
        return fail(ERR_ARGS, "q, k, v and o must be 16-byte aligned for cuDNN's engines");
    cudnnStatus_t st = cudnnSetStream(s->handle, a->stream);
    if (st != CUDNN_STATUS_SUCCESS) {
        char msg[600];
        sdpa_format_status(linked_api(), msg, sizeof msg, "cudnnSetStream", st);
        return fail(ERR_CUDNN, "%s", msg);
    }
    int rc = update_variant_pack(s, a);
    if (rc) return rc;
    if (s->lay.q_row0 > 0) {
        const long long per_row = s->lay.d / 8;   // uint4 per row
        const long long count = s->lay.q_row0 * per_row, heads = s->lay.b * s->lay.h;
        long long bx = (count + 255) / 256;
        dim3 grid((unsigned)(bx < 1024 ? bx : 1024), (unsigned)(heads < 65535 ? heads : 65535));
        zero_leading_rows<<<grid, 256, 0, a->stream>>>((uint4 *)a->o, s->lay.q_rows * per_row,
                                                       count, heads);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return fail(ERR_CUDA, "zero_leading_rows launch: %s", cudaGetErrorString(e));
    }
    st = cudnnBackendExecute(s->handle, s->plan.plan, s->vp);
    if (st != CUDNN_STATUS_SUCCESS) {
        char msg[600];
        sdpa_format_status(linked_api(), msg, sizeof msg, "cudnnBackendExecute", st);
        return fail(ERR_CUDNN, "%s", msg);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return fail(ERR_CUDA, "after cudnnBackendExecute: %s", cudaGetErrorString(e));
    return 0;
}

void fini(void *state) { destroy_state((State *)state); }

const char *error_string(int code)
{
    if (code == 0) return g_note[0] ? g_note : "sdpa_cudnn: no successful init yet";
    if (code == g_err_code && g_err[0]) return g_err;
    switch (code) {
    case ERR_CUDNN: return "a cuDNN call failed";
    case ERR_NO_ENGINE: return "no cuDNN engine serves this shape on this GPU";
    case ERR_CUDA: return "a CUDA runtime call failed";
    case ERR_HOST: return "out of host memory";
    case ERR_ARGS: return "bad arguments";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "sdpa_cudnn", "cuDNN fused flash attention (SDPA, backend API)", unsupported,
    workspace_bytes, init, run, fini, error_string,
};
