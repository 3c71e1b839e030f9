/* sdpa_graph.c: the SDPA forward operation graph as backend descriptors (see
 * sdpa_graph.h). The op list and the data types follow what cuDNN's frontend emits for
 * SDPA inference: the fused flash-attention engines recognise the graph by its pattern,
 * so a different but equivalent graph can fall back to slow engines or to none. */
#include "sdpa_graph.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- shapes ------------------------------------------------------------------------ */

SDPA_CUDNN_API const char *sdpa_layout_from_shape(const attn_shape *s, sdpa_layout *out)
{
    if (s->batch < 1 || s->heads < 1 || s->seq_q < 1 || s->seq_kv < 1)
        return "batch, heads and both sequence lengths must be >= 1";
    if (s->causal != 0 && s->causal != 1) return "causal must be 0 or 1";
    /* cuDNN's fp16 flash engines: head_dim a multiple of 8, at most 256 (and 16-byte
     * aligned rows, which a multiple of 8 halves gives). */
    if (s->head_dim < 8 || s->head_dim % 8 != 0 || s->head_dim > 256)
        return "cuDNN's fused attention needs head_dim a multiple of 8 in [8, 256]";
    sdpa_layout l = { s->batch, s->heads, s->seq_q, s->seq_kv, s->head_dim, s->seq_q, 0,
                      SDPA_MASK_NONE };
    if (s->causal) {
        if (s->seq_q > s->seq_kv) {
            l.q_row0 = s->seq_q - s->seq_kv;
            l.s_q = s->seq_kv;
            l.mask = SDPA_MASK_CAUSAL_TOP_LEFT;
        } else {
            l.mask = s->seq_q == s->seq_kv ? SDPA_MASK_CAUSAL_TOP_LEFT
                                           : SDPA_MASK_CAUSAL_BOTTOM_RIGHT;
        }
    }
    *out = l;
    return NULL;
}

/* ---- statuses ---------------------------------------------------------------------- */

#define NAME(x) { x, #x }
static const struct { cudnnStatus_t st; const char *name; } STATUS_NAMES[] = {
    NAME(CUDNN_STATUS_SUCCESS),
    NAME(CUDNN_STATUS_NOT_INITIALIZED),
    NAME(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH),
    NAME(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH),
    NAME(CUDNN_STATUS_DEPRECATED),
    NAME(CUDNN_STATUS_LICENSE_ERROR),
    NAME(CUDNN_STATUS_RUNTIME_IN_PROGRESS),
    NAME(CUDNN_STATUS_RUNTIME_FP_OVERFLOW),
    NAME(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED),
    NAME(CUDNN_STATUS_BAD_PARAM),
    NAME(CUDNN_STATUS_BAD_PARAM_NULL_POINTER),
    NAME(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER),
    NAME(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED),
    NAME(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND),
    NAME(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT),
    NAME(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH),
    NAME(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH),
    NAME(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES),
    NAME(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE),
    NAME(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH),
    NAME(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE),
    NAME(CUDNN_STATUS_NOT_SUPPORTED),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_SHAPE),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_PADDING),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API),
    NAME(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE),
    NAME(CUDNN_STATUS_INTERNAL_ERROR),
    NAME(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED),
    NAME(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE),
    NAME(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED),
    NAME(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED),
    NAME(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM),
    NAME(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED),
    NAME(CUDNN_STATUS_EXECUTION_FAILED),
    NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER),
    NAME(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS),
    NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDART),
    NAME(CUDNN_STATUS_EXECUTION_FAILED_CURAND),
};
#undef NAME

SDPA_CUDNN_API int sdpa_status_family(cudnnStatus_t st)
{
    int c = (int)st;
    if (c == 0) return 0;
    if (c >= 1000 && c < 6000) return c / 1000 * 1000;
    return -1;
}

SDPA_CUDNN_API const char *sdpa_status_name(cudnnStatus_t st)
{
    for (size_t i = 0; i < sizeof STATUS_NAMES / sizeof STATUS_NAMES[0]; i++)
        if (STATUS_NAMES[i].st == st) return STATUS_NAMES[i].name;
    /* A code newer than these headers: name its family, whose meaning is stable. */
    switch (sdpa_status_family(st)) {
    case 1000: return "CUDNN_STATUS_NOT_INITIALIZED (family)";
    case 2000: return "CUDNN_STATUS_BAD_PARAM (family)";
    case 3000: return "CUDNN_STATUS_NOT_SUPPORTED (family)";
    case 4000: return "CUDNN_STATUS_INTERNAL_ERROR (family)";
    case 5000: return "CUDNN_STATUS_EXECUTION_FAILED (family)";
    default: return "unknown cuDNN status";
    }
}

SDPA_CUDNN_API void sdpa_format_status(const sdpa_api *api, char *buf, size_t n, const char *what,
                        cudnnStatus_t st)
{
    char detail[512] = "";
    if (api && api->last_error && st != CUDNN_STATUS_SUCCESS) {
        api->last_error(detail, sizeof detail);
        detail[sizeof detail - 1] = '\0';
        /* one line: the harness puts this in a table cell and a JSON string */
        for (char *c = detail; *c; c++)
            if (*c == '\n' || *c == '\r') *c = ' ';
    }
    snprintf(buf, n, "%s: %s (%d)%s%s", what, sdpa_status_name(st), (int)st,
             detail[0] ? ": " : "", detail);
}

/* ---- descriptor building ----------------------------------------------------------- */

static cudnnStatus_t fail(sdpa_graph *g, cudnnStatus_t st, const char *fmt_what, const char *a,
                          const char *b)
{
    char what[256];
    snprintf(what, sizeof what, fmt_what, a, b);
    sdpa_format_status(g->api, g->err, sizeof g->err, what, st);
    return st;
}

static cudnnStatus_t make(sdpa_graph *g, cudnnBackendDescriptorType_t type, const char *label,
                          cudnnBackendDescriptor_t *out)
{
    if (g->n_descs == SDPA_MAX_DESCS)
        return fail(g, CUDNN_STATUS_INTERNAL_ERROR, "%s%s: more descriptors than SDPA_MAX_DESCS",
                    label, "");
    cudnnBackendDescriptor_t d = NULL;
    cudnnStatus_t st = g->api->create(type, &d);
    if (st != CUDNN_STATUS_SUCCESS)
        return fail(g, st, "cudnnBackendCreateDescriptor(%s)%s", label, "");
    g->descs[g->n_descs++] = d;
    *out = d;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_attr(sdpa_graph *g, cudnnBackendDescriptor_t d, const char *label,
                              cudnnBackendAttributeName_t name, const char *name_text,
                              cudnnBackendAttributeType_t type, int64_t count, const void *v)
{
    cudnnStatus_t st = g->api->set(d, name, type, count, v);
    if (st != CUDNN_STATUS_SUCCESS)
        return fail(g, st, "cudnnBackendSetAttribute(%s, %s)", label, name_text);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t finalize(sdpa_graph *g, cudnnBackendDescriptor_t d, const char *label)
{
    cudnnStatus_t st = g->api->finalize(d);
    if (st != CUDNN_STATUS_SUCCESS) return fail(g, st, "cudnnBackendFinalize(%s)%s", label, "");
    return CUDNN_STATUS_SUCCESS;
}

#define TRY(call)                                                                       \
    do {                                                                                \
        cudnnStatus_t st_ = (call);                                                     \
        if (st_ != CUDNN_STATUS_SUCCESS) return st_;                                    \
    } while (0)
#define SET(d, label, name, type, count, v) TRY(set_attr(g, d, label, name, #name, type, count, v))

typedef struct {
    cudnnBackendDescriptor_t desc;
    int64_t uid;
} tensor;

static cudnnStatus_t make_tensor(sdpa_graph *g, const char *label, int64_t uid,
                                 cudnnDataType_t dt, const int64_t dim[4], const int64_t stride[4],
                                 bool is_virtual, bool by_value, tensor *out)
{
    cudnnBackendDescriptor_t d = NULL;
    int64_t align = 16;   /* tensor-core engines need 16-byte aligned real tensors */
    TRY(make(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR, label, &d));
    SET(d, label, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    SET(d, label, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dim);
    SET(d, label, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, stride);
    SET(d, label, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SET(d, label, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    if (is_virtual) SET(d, label, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
    if (by_value) SET(d, label, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value);
    TRY(finalize(g, d, label));
    out->desc = d;
    out->uid = uid;
    if (!is_virtual) {
        if (g->n_uids == SDPA_MAX_UIDS)
            return fail(g, CUDNN_STATUS_INTERNAL_ERROR, "%s%s: more real tensors than SDPA_MAX_UIDS",
                        label, "");
        g->uids[g->n_uids++] = uid;
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t add_op(sdpa_graph *g, cudnnBackendDescriptor_t op, const char *label)
{
    if (g->n_ops == SDPA_MAX_OPS)
        return fail(g, CUDNN_STATUS_INTERNAL_ERROR, "%s%s: more operations than SDPA_MAX_OPS", label,
                    "");
    g->ops[g->n_ops++] = op;
    return CUDNN_STATUS_SUCCESS;
}

/* y = mode(x [, b [, t]]) computed in `math`. */
static cudnnStatus_t pointwise(sdpa_graph *g, const char *label, cudnnPointwiseMode_t mode,
                               cudnnDataType_t math, int64_t axis, const tensor *x,
                               const tensor *b, const tensor *t, const tensor *y)
{
    cudnnBackendDescriptor_t pw = NULL, op = NULL;
    char l[96];
    snprintf(l, sizeof l, "pointwise '%s'", label);
    TRY(make(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, l, &pw));
    SET(pw, l, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    SET(pw, l, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &math);
    if (mode == CUDNN_POINTWISE_GEN_INDEX)
        SET(pw, l, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    TRY(finalize(g, pw, l));

    snprintf(l, sizeof l, "pointwise op '%s'", label);
    float alpha = 1.0f;
    TRY(make(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, l, &op));
    SET(op, l, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
    SET(op, l, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x->desc);
    if (b) SET(op, l, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b->desc);
    if (t) SET(op, l, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t->desc);
    SET(op, l, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y->desc);
    SET(op, l, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &alpha);
    SET(op, l, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &alpha);
    TRY(finalize(g, op, l));
    return add_op(g, op, l);
}

static cudnnStatus_t reduction(sdpa_graph *g, const char *label, cudnnReduceTensorOp_t mode,
                               const tensor *x, const tensor *y)
{
    cudnnBackendDescriptor_t rd = NULL, op = NULL;
    cudnnDataType_t math = CUDNN_DATA_FLOAT;
    char l[96];
    snprintf(l, sizeof l, "reduction '%s'", label);
    TRY(make(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, l, &rd));
    SET(rd, l, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &math);
    SET(rd, l, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode);
    TRY(finalize(g, rd, l));
    snprintf(l, sizeof l, "reduction op '%s'", label);
    TRY(make(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, l, &op));
    SET(op, l, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rd);
    SET(op, l, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x->desc);
    SET(op, l, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y->desc);
    TRY(finalize(g, op, l));
    return add_op(g, op, l);
}

static cudnnStatus_t matmul(sdpa_graph *g, const char *label, const tensor *a, const tensor *b,
                            const tensor *c)
{
    cudnnBackendDescriptor_t mm = NULL, op = NULL;
    cudnnDataType_t math = CUDNN_DATA_FLOAT;
    char l[96];
    snprintf(l, sizeof l, "matmul '%s'", label);
    TRY(make(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR, l, &mm));
    SET(mm, l, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &math);
    TRY(finalize(g, mm, l));
    snprintf(l, sizeof l, "matmul op '%s'", label);
    TRY(make(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, l, &op));
    SET(op, l, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a->desc);
    SET(op, l, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b->desc);
    SET(op, l, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->desc);
    SET(op, l, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
    TRY(finalize(g, op, l));
    return add_op(g, op, l);
}

/* ---- the two graph forms ------------------------------------------------------------ */

typedef struct {
    tensor q, k, v, o, scale;
} io_tensors;

/* Q and O are addressed with the caller's row count per head (q_rows), which differs
 * from the graph's s_q when leading all-masked rows are cut off. */
static cudnnStatus_t io(sdpa_graph *g, const sdpa_layout *l, bool k_transposed, io_tensors *t)
{
    const int64_t b = l->b, h = l->h, sq = l->s_q, skv = l->s_kv, d = l->d, qr = l->q_rows;
    const int64_t q_dim[4] = { b, h, sq, d }, q_str[4] = { h * qr * d, qr * d, d, 1 };
    const int64_t kv_dim[4] = { b, h, skv, d }, kv_str[4] = { h * skv * d, skv * d, d, 1 };
    /* K^T without a copy: swap K's last two dimensions and their strides */
    const int64_t kt_dim[4] = { b, h, d, skv }, kt_str[4] = { h * skv * d, skv * d, 1, d };
    const int64_t one[4] = { 1, 1, 1, 1 };
    TRY(make_tensor(g, "tensor Q", SDPA_UID_Q, CUDNN_DATA_HALF, q_dim, q_str, false, false, &t->q));
    if (k_transposed)
        TRY(make_tensor(g, "tensor K^T", SDPA_UID_K, CUDNN_DATA_HALF, kt_dim, kt_str, false, false,
                        &t->k));
    else
        TRY(make_tensor(g, "tensor K", SDPA_UID_K, CUDNN_DATA_HALF, kv_dim, kv_str, false, false,
                        &t->k));
    TRY(make_tensor(g, "tensor V", SDPA_UID_V, CUDNN_DATA_HALF, kv_dim, kv_str, false, false, &t->v));
    TRY(make_tensor(g, "tensor O", SDPA_UID_O, CUDNN_DATA_HALF, q_dim, q_str, false, false, &t->o));
    TRY(make_tensor(g, "scalar scale", SDPA_UID_SCALE, CUDNN_DATA_FLOAT, one, one, false, true,
                    &t->scale));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t build_unified(sdpa_graph *g, const sdpa_layout *l)
{
    io_tensors t;
    cudnnBackendDescriptor_t op = NULL;
    const char *lb = "sdpa_fwd op";
    TRY(io(g, l, false, &t));
    TRY(make(g, CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, lb, &op));
    SET(op, lb, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t.q.desc);
    SET(op, lb, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t.k.desc);
    SET(op, lb, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t.v.desc);
    SET(op, lb, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t.o.desc);
    SET(op, lb, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        &t.scale.desc);
    TRY(finalize(g, op, lb));
    return add_op(g, op, lb);
}

static cudnnStatus_t build_composite(sdpa_graph *g, const sdpa_layout *l, int stats_ops)
{
    const int64_t b = l->b, h = l->h, sq = l->s_q, skv = l->s_kv;
    const int64_t s_dim[4] = { b, h, sq, skv }, s_str[4] = { h * sq * skv, sq * skv, skv, 1 };
    const int64_t r_dim[4] = { b, h, sq, 1 }, r_str[4] = { h * sq, sq, 1, 1 };
    const int64_t one[4] = { 1, 1, 1, 1 };
    const cudnnDataType_t F = CUDNN_DATA_FLOAT, I = CUDNN_DATA_INT32;
    int64_t vid = SDPA_UID_VIRTUAL;
    io_tensors t;
    tensor s, ss, m, z, e, sum, p;
    TRY(io(g, l, true, &t));

#define VIRT(label, dt, dim, str, out) \
    TRY(make_tensor(g, "virtual " label, vid++, dt, dim, str, true, false, out))

    VIRT("S = Q K^T", F, s_dim, s_str, &s);
    TRY(matmul(g, "bmm1", &t.q, &t.k, &s));
    VIRT("S * scale", F, s_dim, s_str, &ss);
    TRY(pointwise(g, "attn_scale", CUDNN_POINTWISE_MUL, F, 0, &s, &t.scale, NULL, &ss));

    tensor last = ss;
    if (l->mask != SDPA_MASK_NONE) {
        tensor row, col, keep, masked, mask_value;
        TRY(make_tensor(g, "scalar mask value", SDPA_UID_MASK_VALUE, F, one, one, false, true,
                        &mask_value));
        VIRT("row index", I, s_dim, s_str, &row);
        TRY(pointwise(g, "gen_row_index", CUDNN_POINTWISE_GEN_INDEX, F, 2, &ss, NULL, NULL, &row));
        VIRT("col index", I, s_dim, s_str, &col);
        TRY(pointwise(g, "gen_col_index", CUDNN_POINTWISE_GEN_INDEX, F, 3, &ss, NULL, NULL, &col));
        if (l->mask == SDPA_MASK_CAUSAL_BOTTOM_RIGHT) {
            /* row + seq_kv - seq_q >= col, the offset as two by-value int32 scalars in the
             * order the frontend emits them */
            tensor seq_kv, seq_q, row_skv, row_shift;
            TRY(make_tensor(g, "scalar seq_kv", SDPA_UID_SEQ_KV, I, one, one, false, true, &seq_kv));
            TRY(make_tensor(g, "scalar seq_q", SDPA_UID_SEQ_Q, I, one, one, false, true, &seq_q));
            VIRT("row + seq_kv", I, s_dim, s_str, &row_skv);
            TRY(pointwise(g, "row+skv", CUDNN_POINTWISE_ADD, I, 0, &row, &seq_kv, NULL, &row_skv));
            VIRT("row + seq_kv - seq_q", I, s_dim, s_str, &row_shift);
            TRY(pointwise(g, "row+skv-sq", CUDNN_POINTWISE_SUB, I, 0, &row_skv, &seq_q, NULL,
                          &row_shift));
            row = row_shift;
        }
        VIRT("keep = row >= col", CUDNN_DATA_BOOLEAN, s_dim, s_str, &keep);
        TRY(pointwise(g, "row>=col", CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, 0, &row, &col,
                      NULL, &keep));
        VIRT("masked S", F, s_dim, s_str, &masked);
        TRY(pointwise(g, "binary_select", CUDNN_POINTWISE_BINARY_SELECT, F, 0, &ss, &mask_value,
                      &keep, &masked));
        last = masked;
    }

    VIRT("row max", F, r_dim, r_str, &m);
    TRY(reduction(g, "max", CUDNN_REDUCE_TENSOR_MAX, &last, &m));
    VIRT("S - max", F, s_dim, s_str, &z);
    TRY(pointwise(g, "sub", CUDNN_POINTWISE_SUB, F, 0, &last, &m, NULL, &z));
    VIRT("exp(S - max)", F, s_dim, s_str, &e);
    TRY(pointwise(g, "exp", CUDNN_POINTWISE_EXP, F, 0, &z, NULL, NULL, &e));
    VIRT("row sum", F, r_dim, r_str, &sum);
    TRY(reduction(g, "sum", CUDNN_REDUCE_TENSOR_ADD, &e, &sum));
    if (stats_ops) {
        tensor lg, stats;
        VIRT("log(sum)", F, r_dim, r_str, &lg);
        TRY(pointwise(g, "log", CUDNN_POINTWISE_LOG, F, 0, &sum, NULL, NULL, &lg));
        VIRT("stats", F, r_dim, r_str, &stats);
        TRY(pointwise(g, "stats", CUDNN_POINTWISE_ADD, F, 0, &m, &lg, NULL, &stats));
    }
    /* P in the io type: the second matmul takes its A operand as fp16 */
    VIRT("P", CUDNN_DATA_HALF, s_dim, s_str, &p);
    TRY(pointwise(g, "div", CUDNN_POINTWISE_DIV, F, 0, &e, &sum, NULL, &p));
    TRY(matmul(g, "bmm2", &p, &t.v, &t.o));
#undef VIRT
    return CUDNN_STATUS_SUCCESS;
}

SDPA_CUDNN_API cudnnStatus_t sdpa_graph_build(sdpa_graph *g, const sdpa_api *api, const sdpa_graph_params *p,
                               cudnnHandle_t handle)
{
    memset(g, 0, sizeof *g);
    g->api = api;
    if (p->kind == SDPA_GRAPH_UNIFIED && p->lay.mask != SDPA_MASK_NONE)
        return fail(g, CUDNN_STATUS_NOT_SUPPORTED,
                    "unified SDPA_FWD graph%s%s: masks need cuDNN >= 9.21 (use the composite graph)",
                    "", "");
    TRY(p->kind == SDPA_GRAPH_UNIFIED ? build_unified(g, &p->lay)
                                      : build_composite(g, &p->lay, p->stats_ops));
    const char *l = "operation graph";
    TRY(make(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, l, &g->op_graph));
    SET(g->op_graph, l, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, g->n_ops,
        g->ops);
    if (handle)
        SET(g->op_graph, l, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    TRY(finalize(g, g->op_graph, l));
    return CUDNN_STATUS_SUCCESS;
}

SDPA_CUDNN_API void sdpa_graph_destroy(sdpa_graph *g)
{
    if (!g->api) return;
    for (int i = g->n_descs - 1; i >= 0; i--) g->api->destroy(g->descs[i]);
    g->n_descs = g->n_ops = g->n_uids = 0;
    g->op_graph = NULL;
}

#undef TRY
#undef SET
