/* The CPU side of kernels/sdpa_cudnn: how shapes map onto the graph, the descriptors and
 * attributes of both graph forms, the engine choice and the error messages, against a
 * recording fake of cuDNN's backend API (every call can be inspected or made to fail);
 * then the same graphs through the real libcudnn where it loads, which needs no GPU up
 * to the operation graph.
 *
 * The kernel's C sources are compiled into this test directly, so the test rule needs
 * nothing beyond the harness objects; the real library is reached through dlopen. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../kernels/sdpa_cudnn/sdpa_graph.c"
#include "../../../kernels/sdpa_cudnn/sdpa_plan.c"
#undef TRY
#undef SET

/* after the kernel sources: cmocka defines a fail() macro */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

/* ---- a recording fake of the backend API ------------------------------------------- */

typedef struct {
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int64_t count;
    unsigned char val[256];
} fake_attr;

typedef struct {
    cudnnBackendDescriptorType_t type;
    int alive, finalized, tag, n_attrs;
    fake_attr attrs[24];
} fake_desc;

static struct {
    fake_desc pool[1024];
    int n, creates, destroys, calls;
    int fail_at;                 /* 1-based count over create/set/finalize; 0: none */
    cudnnStatus_t fail_status;
    int heur_results;            /* engine configurations the fake heuristics offers */
    int plan_ok_from;            /* first configuration whose plan finalizes; -1: none */
    int64_t workspace;
} F;

static void fake_reset(void)
{
    memset(&F, 0, sizeof F);
    F.heur_results = 3;
    F.plan_ok_from = 0;
    F.workspace = 4096;
}

static int failing_now(void) { return ++F.calls == F.fail_at; }

static size_t elem_size(cudnnBackendAttributeType_t t)
{
    switch (t) {
    case CUDNN_TYPE_BOOLEAN: case CUDNN_TYPE_CHAR: return 1;
    case CUDNN_TYPE_INT64: case CUDNN_TYPE_DOUBLE: case CUDNN_TYPE_VOID_PTR:
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: case CUDNN_TYPE_HANDLE: return 8;
    default: return 4;   /* enums, float */
    }
}

static fake_desc *D(cudnnBackendDescriptor_t d) { return (fake_desc *)d; }

static cudnnStatus_t fake_create(cudnnBackendDescriptorType_t t, cudnnBackendDescriptor_t *out)
{
    if (failing_now()) return F.fail_status;
    assert_true(F.n < 1024);
    fake_desc *d = &F.pool[F.n++];
    memset(d, 0, sizeof *d);
    d->type = t;
    d->alive = 1;
    F.creates++;
    *out = (cudnnBackendDescriptor_t)d;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fake_destroy(cudnnBackendDescriptor_t d)
{
    assert_true(D(d)->alive);
    D(d)->alive = 0;
    F.destroys++;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fake_set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                              cudnnBackendAttributeType_t type, int64_t count, const void *v)
{
    if (failing_now()) return F.fail_status;
    fake_desc *f = D(d);
    assert_true(f->alive);
    assert_false(f->finalized);
    assert_true(f->n_attrs < 24);
    size_t bytes = elem_size(type) * (size_t)count;
    assert_true(bytes <= sizeof f->attrs[0].val);
    fake_attr *a = &f->attrs[f->n_attrs++];
    a->name = name;
    a->type = type;
    a->count = count;
    memcpy(a->val, v, bytes);
    return CUDNN_STATUS_SUCCESS;
}

static const fake_attr *attr(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name)
{
    for (int i = 0; i < D(d)->n_attrs; i++)
        if (D(d)->attrs[i].name == name) return &D(d)->attrs[i];
    return NULL;
}

static int64_t attr_i64(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, int i)
{
    const fake_attr *a = attr(d, name);
    assert_non_null(a);
    int64_t v;
    memcpy(&v, a->val + 8 * i, 8);
    return v;
}

static int attr_enum(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name)
{
    const fake_attr *a = attr(d, name);
    assert_non_null(a);
    int v;
    memcpy(&v, a->val, 4);
    return v;
}

static cudnnBackendDescriptor_t attr_desc(cudnnBackendDescriptor_t d,
                                          cudnnBackendAttributeName_t name)
{
    const fake_attr *a = attr(d, name);
    if (!a) return NULL;
    cudnnBackendDescriptor_t v;
    memcpy(&v, a->val, sizeof v);
    return v;
}

static cudnnStatus_t fake_finalize(cudnnBackendDescriptor_t d)
{
    if (failing_now()) return F.fail_status;
    fake_desc *f = D(d);
    assert_true(f->alive);
    if (f->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR) {
        cudnnBackendDescriptor_t cfg = attr_desc(d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
        assert_non_null(cfg);
        if (F.plan_ok_from < 0 || D(cfg)->tag < F.plan_ok_from)
            return CUDNN_STATUS_NOT_SUPPORTED_SHAPE;
    }
    f->finalized = 1;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fake_get(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                              cudnnBackendAttributeType_t type, int64_t want, int64_t *count,
                              void *out)
{
    (void)type;
    fake_desc *f = D(d);
    assert_true(f->alive);
    switch (name) {
    case CUDNN_ATTR_ENGINEHEUR_RESULTS:
        assert_true(f->finalized);
        *count = want == 0 ? F.heur_results : (want < F.heur_results ? want : F.heur_results);
        for (int64_t i = 0; want && i < *count; i++) {
            fake_desc *c = D(((cudnnBackendDescriptor_t *)out)[i]);
            assert_int_equal(c->type, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
            c->tag = (int)i;
            c->finalized = 1;
        }
        return CUDNN_STATUS_SUCCESS;
    case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
        *count = 1;
        memcpy(out, &F.workspace, 8);
        return CUDNN_STATUS_SUCCESS;
    case CUDNN_ATTR_ENGINECFG_ENGINE:
        *count = 1;
        D(((cudnnBackendDescriptor_t *)out)[0])->tag = 1000 + f->tag;
        return CUDNN_STATUS_SUCCESS;
    case CUDNN_ATTR_ENGINE_GLOBAL_INDEX: {
        int64_t idx = f->tag - 1000 + 7;
        *count = 1;
        memcpy(out, &idx, 8);
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_ATTR_ENGINECFG_KNOB_CHOICES:
        *count = want < 2 ? want : 2;
        return CUDNN_STATUS_SUCCESS;
    case CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE: {
        int t = CUDNN_KNOB_TYPE_TILE_SIZE;
        memcpy(out, &t, 4);
        *count = 1;
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE: {
        int64_t v = 5;
        memcpy(out, &v, 8);
        *count = 1;
        return CUDNN_STATUS_SUCCESS;
    }
    default:
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
}

static void fake_last_error(char *buf, size_t n) { snprintf(buf, n, "fake detail\nsecond line"); }

static const sdpa_api FAKE = { fake_create, fake_destroy, fake_set, fake_get, fake_finalize,
                               fake_last_error };

/* ---- helpers ----------------------------------------------------------------------- */

static sdpa_layout layout(int b, int h, int sq, int skv, int d, int causal)
{
    attn_shape s = { b, h, sq, skv, d, causal, 0.125f };
    sdpa_layout l;
    const char *why = sdpa_layout_from_shape(&s, &l);
    if (why) fail_msg("layout refused %d,%d,%d,%d,%d,%d: %s", b, h, sq, skv, d, causal, why);
    return l;
}

static cudnnBackendDescriptor_t tensor_by_uid(const sdpa_graph *g, int64_t uid)
{
    for (int i = 0; i < g->n_descs; i++) {
        cudnnBackendDescriptor_t d = g->descs[i];
        if (D(d)->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR &&
            attr_i64(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, 0) == uid)
            return d;
    }
    fail_msg("no tensor with uid %lld", (long long)uid);
    return NULL;
}

static void expect_dims(cudnnBackendDescriptor_t t, const int64_t dim[4], const int64_t str[4])
{
    for (int i = 0; i < 4; i++) {
        assert_int_equal(attr_i64(t, CUDNN_ATTR_TENSOR_DIMENSIONS, i), dim[i]);
        assert_int_equal(attr_i64(t, CUDNN_ATTR_TENSOR_STRIDES, i), str[i]);
    }
}

static int is_set_bool(cudnnBackendDescriptor_t t, cudnnBackendAttributeName_t name)
{
    const fake_attr *a = attr(t, name);
    return a && a->val[0];
}

/* Checks what every graph must satisfy; counts the ops by type (pointwise, reduction, matmul). */
static void common_checks(const sdpa_graph *g, int *pw, int *red, int *mm)
{
    *pw = *red = *mm = 0;
    int64_t seen[128];
    int n_seen = 0;
    for (int i = 0; i < g->n_descs; i++) {
        cudnnBackendDescriptor_t d = g->descs[i];
        assert_true(D(d)->finalized);
        if (D(d)->type != CUDNN_BACKEND_TENSOR_DESCRIPTOR) continue;
        int64_t uid = attr_i64(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, 0);
        for (int j = 0; j < n_seen; j++)
            if (seen[j] == uid) fail_msg("uid %lld used twice", (long long)uid);
        seen[n_seen++] = uid;
        assert_int_equal(attr_i64(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 0), 16);
        int virt = is_set_bool(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL);
        int byval = is_set_bool(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE);
        assert_false(virt && byval);
        assert_int_equal(virt, uid >= SDPA_UID_VIRTUAL);
        assert_int_equal(byval, uid >= SDPA_UID_SCALE && uid < SDPA_UID_VIRTUAL);
    }
    for (int i = 0; i < g->n_ops; i++) {
        switch (D(g->ops[i])->type) {
        case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: (*pw)++; break;
        case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: (*red)++; break;
        case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: (*mm)++; break;
        default: break;
        }
    }
    assert_non_null(g->op_graph);
    const fake_attr *ops = attr(g->op_graph, CUDNN_ATTR_OPERATIONGRAPH_OPS);
    assert_non_null(ops);
    assert_int_equal(ops->count, g->n_ops);
    assert_int_equal(F.creates, g->n_descs);
}

/* the pointwise op of a given mode, the k-th of that mode */
static cudnnBackendDescriptor_t pointwise_op(const sdpa_graph *g, cudnnPointwiseMode_t mode, int k)
{
    for (int i = 0; i < g->n_ops; i++) {
        cudnnBackendDescriptor_t op = g->ops[i];
        if (D(op)->type != CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR) continue;
        cudnnBackendDescriptor_t pw = attr_desc(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR);
        if (attr_enum(pw, CUDNN_ATTR_POINTWISE_MODE) == (int)mode && k-- == 0) return op;
    }
    fail_msg("no pointwise op of mode %d", (int)mode);
    return NULL;
}

static int pw_math(cudnnBackendDescriptor_t op)
{
    return attr_enum(attr_desc(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR),
                     CUDNN_ATTR_POINTWISE_MATH_PREC);
}

/* ---- tests: shapes ----------------------------------------------------------------- */

static void layouts_follow_the_abi(void **st)
{
    (void)st;
    sdpa_layout l = layout(1, 8, 512, 512, 64, 0);
    assert_int_equal(l.mask, SDPA_MASK_NONE);
    assert_int_equal(l.q_row0, 0);
    l = layout(1, 8, 512, 512, 64, 1);
    assert_int_equal(l.mask, SDPA_MASK_CAUSAL_TOP_LEFT);
    l = layout(1, 2, 129, 257, 128, 1);
    assert_int_equal(l.mask, SDPA_MASK_CAUSAL_BOTTOM_RIGHT);
    assert_int_equal(l.s_q, 129);
    /* more queries than keys: the leading rows see nothing and are cut off */
    l = layout(2, 3, 300, 100, 64, 1);
    assert_int_equal(l.mask, SDPA_MASK_CAUSAL_TOP_LEFT);
    assert_int_equal(l.s_q, 100);
    assert_int_equal(l.q_rows, 300);
    assert_int_equal(l.q_row0, 200);
    l = layout(2, 3, 300, 100, 64, 0);
    assert_int_equal(l.mask, SDPA_MASK_NONE);
    assert_int_equal(l.s_q, 300);
    assert_int_equal(l.q_row0, 0);

    static const struct { attn_shape s; const char *words; } bad[] = {
        { { 1, 1, 64, 64, 60, 0, 1 }, "multiple of 8" },
        { { 1, 1, 64, 64, 264, 0, 1 }, "multiple of 8" },
        { { 0, 1, 64, 64, 64, 0, 1 }, ">= 1" },
        { { 1, 1, 64, 0, 64, 0, 1 }, ">= 1" },
        { { 1, 1, 64, 64, 64, 2, 1 }, "causal" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *why = sdpa_layout_from_shape(&bad[i].s, &l);
        assert_non_null(why);
        if (!strstr(why, bad[i].words)) fail_msg("case %zu: '%s'", i, why);
    }
}

/* ---- tests: error mapping ---------------------------------------------------------- */

static void statuses_are_named(void **st)
{
    (void)st;
    assert_string_equal(sdpa_status_name(CUDNN_STATUS_SUCCESS), "CUDNN_STATUS_SUCCESS");
    assert_string_equal(sdpa_status_name(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN),
                        "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN");
    assert_string_equal(sdpa_status_name(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED),
                        "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED");
    assert_string_equal(sdpa_status_name(CUDNN_STATUS_EXECUTION_FAILED_CUDART),
                        "CUDNN_STATUS_EXECUTION_FAILED_CUDART");
    /* codes newer than the headers keep their family's meaning */
    assert_string_equal(sdpa_status_name((cudnnStatus_t)3099),
                        "CUDNN_STATUS_NOT_SUPPORTED (family)");
    assert_string_equal(sdpa_status_name((cudnnStatus_t)4077), "CUDNN_STATUS_INTERNAL_ERROR (family)");
    assert_string_equal(sdpa_status_name((cudnnStatus_t)77), "unknown cuDNN status");
    assert_int_equal(sdpa_status_family(CUDNN_STATUS_NOT_SUPPORTED_SHAPE), 3000);
    assert_int_equal(sdpa_status_family(CUDNN_STATUS_BAD_PARAM), 2000);
    assert_int_equal(sdpa_status_family(CUDNN_STATUS_SUCCESS), 0);
    assert_int_equal(sdpa_status_family((cudnnStatus_t)9000), -1);

    char buf[256];
    sdpa_format_status(&FAKE, buf, sizeof buf, "cudnnBackendFinalize(x)",
                       CUDNN_STATUS_NOT_SUPPORTED_SHAPE);
    assert_string_equal(buf, "cudnnBackendFinalize(x): CUDNN_STATUS_NOT_SUPPORTED_SHAPE (3002): "
                             "fake detail second line");
    sdpa_format_status(NULL, buf, sizeof buf, "cudnnCreate", CUDNN_STATUS_NOT_INITIALIZED);
    assert_string_equal(buf, "cudnnCreate: CUDNN_STATUS_NOT_INITIALIZED (1001)");
}

/* ---- tests: the composite graph ---------------------------------------------------- */

static void composite_without_mask(void **st)
{
    (void)st;
    fake_reset();
    sdpa_graph g;
    sdpa_graph_params p = { layout(2, 3, 77, 77, 64, 0), SDPA_GRAPH_COMPOSITE, 1 };
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
    int pw, red, mm;
    common_checks(&g, &pw, &red, &mm);
    /* matmul, scale, max, sub, exp, sum, log, add, div, matmul */
    assert_int_equal(g.n_ops, 10);
    assert_int_equal(mm, 2);
    assert_int_equal(red, 2);
    assert_int_equal(pw, 6);
    assert_int_equal(g.n_uids, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(g.uids[i], SDPA_UID_Q + i);
    assert_null(attr(g.op_graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE));

    const int64_t q_dim[4] = { 2, 3, 77, 64 }, q_str[4] = { 3 * 77 * 64, 77 * 64, 64, 1 };
    const int64_t kt_dim[4] = { 2, 3, 64, 77 }, kt_str[4] = { 3 * 77 * 64, 77 * 64, 1, 64 };
    const int64_t one[4] = { 1, 1, 1, 1 };
    expect_dims(tensor_by_uid(&g, SDPA_UID_Q), q_dim, q_str);
    expect_dims(tensor_by_uid(&g, SDPA_UID_K), kt_dim, kt_str);
    expect_dims(tensor_by_uid(&g, SDPA_UID_V), q_dim, q_str);
    expect_dims(tensor_by_uid(&g, SDPA_UID_O), q_dim, q_str);
    expect_dims(tensor_by_uid(&g, SDPA_UID_SCALE), one, one);
    assert_int_equal(attr_enum(tensor_by_uid(&g, SDPA_UID_SCALE), CUDNN_ATTR_TENSOR_DATA_TYPE),
                     CUDNN_DATA_FLOAT);

    /* bmm1: Q x K^T into fp32; bmm2: P (fp16) x V into O */
    cudnnBackendDescriptor_t bmm1 = g.ops[0], bmm2 = g.ops[g.n_ops - 1];
    assert_int_equal(D(bmm1)->type, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    assert_ptr_equal(attr_desc(bmm1, CUDNN_ATTR_OPERATION_MATMUL_ADESC), tensor_by_uid(&g, SDPA_UID_Q));
    assert_ptr_equal(attr_desc(bmm1, CUDNN_ATTR_OPERATION_MATMUL_BDESC), tensor_by_uid(&g, SDPA_UID_K));
    cudnnBackendDescriptor_t s = attr_desc(bmm1, CUDNN_ATTR_OPERATION_MATMUL_CDESC);
    assert_int_equal(attr_enum(s, CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_DATA_FLOAT);
    cudnnBackendDescriptor_t mmd = attr_desc(bmm1, CUDNN_ATTR_OPERATION_MATMUL_DESC);
    assert_int_equal(attr_enum(mmd, CUDNN_ATTR_MATMUL_COMP_TYPE), CUDNN_DATA_FLOAT);
    cudnnBackendDescriptor_t P = attr_desc(bmm2, CUDNN_ATTR_OPERATION_MATMUL_ADESC);
    assert_int_equal(attr_enum(P, CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_DATA_HALF);
    assert_true(is_set_bool(P, CUDNN_ATTR_TENSOR_IS_VIRTUAL));
    assert_ptr_equal(attr_desc(bmm2, CUDNN_ATTR_OPERATION_MATMUL_BDESC), tensor_by_uid(&g, SDPA_UID_V));
    assert_ptr_equal(attr_desc(bmm2, CUDNN_ATTR_OPERATION_MATMUL_CDESC), tensor_by_uid(&g, SDPA_UID_O));

    /* the scale multiplies S by the by-value scalar; the reductions produce [b,h,s_q,1] */
    cudnnBackendDescriptor_t mul = pointwise_op(&g, CUDNN_POINTWISE_MUL, 0);
    assert_ptr_equal(attr_desc(mul, CUDNN_ATTR_OPERATION_POINTWISE_XDESC), s);
    assert_ptr_equal(attr_desc(mul, CUDNN_ATTR_OPERATION_POINTWISE_BDESC),
                     tensor_by_uid(&g, SDPA_UID_SCALE));
    for (int i = 0; i < g.n_ops; i++) {
        if (D(g.ops[i])->type != CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR) continue;
        const int64_t r_dim[4] = { 2, 3, 77, 1 }, r_str[4] = { 3 * 77, 77, 1, 1 };
        expect_dims(attr_desc(g.ops[i], CUDNN_ATTR_OPERATION_REDUCTION_YDESC), r_dim, r_str);
    }
    assert_null(attr(pointwise_op(&g, CUDNN_POINTWISE_EXP, 0), CUDNN_ATTR_OPERATION_POINTWISE_BDESC));

    sdpa_graph_destroy(&g);
    assert_int_equal(F.destroys, F.creates);
}

static void composite_causal_square(void **st)
{
    (void)st;
    fake_reset();
    sdpa_graph g;
    sdpa_graph_params p = { layout(1, 8, 512, 512, 64, 1), SDPA_GRAPH_COMPOSITE, 1 };
    int dummy = 1;
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, (cudnnHandle_t)&dummy), CUDNN_STATUS_SUCCESS);
    int pw, red, mm;
    common_checks(&g, &pw, &red, &mm);
    assert_int_equal(g.n_ops, 14);   /* + row index, col index, compare, select */
    assert_int_equal(g.n_uids, 6);
    assert_int_equal(g.uids[5], SDPA_UID_MASK_VALUE);
    assert_non_null(attr(g.op_graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE));

    cudnnBackendDescriptor_t rows = pointwise_op(&g, CUDNN_POINTWISE_GEN_INDEX, 0);
    cudnnBackendDescriptor_t cols = pointwise_op(&g, CUDNN_POINTWISE_GEN_INDEX, 1);
    assert_int_equal(attr_i64(attr_desc(rows, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR),
                              CUDNN_ATTR_POINTWISE_AXIS, 0), 2);
    assert_int_equal(attr_i64(attr_desc(cols, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR),
                              CUDNN_ATTR_POINTWISE_AXIS, 0), 3);
    cudnnBackendDescriptor_t row_t = attr_desc(rows, CUDNN_ATTR_OPERATION_POINTWISE_YDESC);
    assert_int_equal(attr_enum(row_t, CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_DATA_INT32);

    cudnnBackendDescriptor_t cmp = pointwise_op(&g, CUDNN_POINTWISE_CMP_GE, 0);
    assert_int_equal(pw_math(cmp), CUDNN_DATA_BOOLEAN);
    assert_ptr_equal(attr_desc(cmp, CUDNN_ATTR_OPERATION_POINTWISE_XDESC), row_t);
    assert_ptr_equal(attr_desc(cmp, CUDNN_ATTR_OPERATION_POINTWISE_BDESC),
                     attr_desc(cols, CUDNN_ATTR_OPERATION_POINTWISE_YDESC));
    cudnnBackendDescriptor_t keep = attr_desc(cmp, CUDNN_ATTR_OPERATION_POINTWISE_YDESC);
    assert_int_equal(attr_enum(keep, CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_DATA_BOOLEAN);

    /* select(S, mask value, keep): T carries the condition */
    cudnnBackendDescriptor_t sel = pointwise_op(&g, CUDNN_POINTWISE_BINARY_SELECT, 0);
    assert_ptr_equal(attr_desc(sel, CUDNN_ATTR_OPERATION_POINTWISE_BDESC),
                     tensor_by_uid(&g, SDPA_UID_MASK_VALUE));
    assert_ptr_equal(attr_desc(sel, CUDNN_ATTR_OPERATION_POINTWISE_TDESC), keep);
    /* the max reduction reads the masked scores */
    for (int i = 0; i < g.n_ops; i++)
        if (D(g.ops[i])->type == CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR) {
            assert_ptr_equal(attr_desc(g.ops[i], CUDNN_ATTR_OPERATION_REDUCTION_XDESC),
                             attr_desc(sel, CUDNN_ATTR_OPERATION_POINTWISE_YDESC));
            break;
        }
    sdpa_graph_destroy(&g);
    assert_int_equal(F.destroys, F.creates);
}

static void composite_causal_bottom_right(void **st)
{
    (void)st;
    fake_reset();
    sdpa_graph g;
    sdpa_graph_params p = { layout(1, 2, 129, 257, 128, 1), SDPA_GRAPH_COMPOSITE, 1 };
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
    int pw, red, mm;
    common_checks(&g, &pw, &red, &mm);
    assert_int_equal(g.n_ops, 16);   /* + row + seq_kv, - seq_q */
    assert_int_equal(g.n_uids, 8);
    for (int64_t u = SDPA_UID_SEQ_KV; u <= SDPA_UID_SEQ_Q; u++)
        assert_int_equal(attr_enum(tensor_by_uid(&g, u), CUDNN_ATTR_TENSOR_DATA_TYPE),
                         CUDNN_DATA_INT32);
    cudnnBackendDescriptor_t add = pointwise_op(&g, CUDNN_POINTWISE_ADD, 0);
    cudnnBackendDescriptor_t sub = pointwise_op(&g, CUDNN_POINTWISE_SUB, 0);
    assert_int_equal(pw_math(add), CUDNN_DATA_INT32);
    assert_int_equal(pw_math(sub), CUDNN_DATA_INT32);
    assert_ptr_equal(attr_desc(add, CUDNN_ATTR_OPERATION_POINTWISE_XDESC),
                     attr_desc(pointwise_op(&g, CUDNN_POINTWISE_GEN_INDEX, 0),
                               CUDNN_ATTR_OPERATION_POINTWISE_YDESC));
    assert_ptr_equal(attr_desc(add, CUDNN_ATTR_OPERATION_POINTWISE_BDESC),
                     tensor_by_uid(&g, SDPA_UID_SEQ_KV));
    assert_ptr_equal(attr_desc(sub, CUDNN_ATTR_OPERATION_POINTWISE_XDESC),
                     attr_desc(add, CUDNN_ATTR_OPERATION_POINTWISE_YDESC));
    assert_ptr_equal(attr_desc(sub, CUDNN_ATTR_OPERATION_POINTWISE_BDESC),
                     tensor_by_uid(&g, SDPA_UID_SEQ_Q));
    assert_ptr_equal(attr_desc(pointwise_op(&g, CUDNN_POINTWISE_CMP_GE, 0),
                               CUDNN_ATTR_OPERATION_POINTWISE_XDESC),
                     attr_desc(sub, CUDNN_ATTR_OPERATION_POINTWISE_YDESC));
    sdpa_graph_destroy(&g);
    assert_int_equal(F.destroys, F.creates);
}

static void causal_more_queries_than_keys_slices_q(void **st)
{
    (void)st;
    fake_reset();
    sdpa_graph g;
    sdpa_graph_params p = { layout(2, 3, 300, 100, 64, 1), SDPA_GRAPH_COMPOSITE, 1 };
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
    assert_int_equal(g.n_ops, 14);   /* square now: no offset ops */
    /* 100 rows, addressed with the caller's 300-row heads */
    const int64_t q_dim[4] = { 2, 3, 100, 64 }, q_str[4] = { 3 * 300 * 64, 300 * 64, 64, 1 };
    const int64_t v_dim[4] = { 2, 3, 100, 64 }, v_str[4] = { 3 * 100 * 64, 100 * 64, 64, 1 };
    expect_dims(tensor_by_uid(&g, SDPA_UID_Q), q_dim, q_str);
    expect_dims(tensor_by_uid(&g, SDPA_UID_O), q_dim, q_str);
    expect_dims(tensor_by_uid(&g, SDPA_UID_V), v_dim, v_str);
    sdpa_graph_destroy(&g);
    assert_int_equal(F.destroys, F.creates);
}

static void without_stats_ops(void **st)
{
    (void)st;
    fake_reset();
    sdpa_graph g;
    sdpa_graph_params p = { layout(1, 8, 512, 512, 64, 0), SDPA_GRAPH_COMPOSITE, 0 };
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
    assert_int_equal(g.n_ops, 8);
    sdpa_graph_destroy(&g);
}

/* ---- tests: the unified graph ------------------------------------------------------ */

static void unified_single_operation(void **st)
{
    (void)st;
    fake_reset();
    sdpa_graph g;
    sdpa_graph_params p = { layout(4, 16, 4096, 4096, 128, 0), SDPA_GRAPH_UNIFIED, 1 };
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
    assert_int_equal(g.n_ops, 1);
    cudnnBackendDescriptor_t op = g.ops[0];
    assert_int_equal(D(op)->type, CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
    assert_int_equal(g.n_uids, 5);
    /* K as stored: the operation transposes it itself */
    const int64_t k_dim[4] = { 4, 16, 4096, 128 },
                  k_str[4] = { 16LL * 4096 * 128, 4096 * 128, 128, 1 };
    expect_dims(tensor_by_uid(&g, SDPA_UID_K), k_dim, k_str);
    assert_ptr_equal(attr_desc(op, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC), tensor_by_uid(&g, SDPA_UID_K));
    assert_ptr_equal(attr_desc(op, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC),
                     tensor_by_uid(&g, SDPA_UID_SCALE));
    assert_null(attr(op, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC));
    sdpa_graph_destroy(&g);
    assert_int_equal(F.destroys, F.creates);

    fake_reset();
    p.lay = layout(1, 8, 512, 512, 64, 1);
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    assert_non_null(strstr(g.err, "9.21"));
    sdpa_graph_destroy(&g);
}

/* ---- tests: failures at every call -------------------------------------------------- */

static void every_failure_is_named_and_cleaned_up(void **st)
{
    (void)st;
    sdpa_graph g;
    for (int kind = 0; kind < 2; kind++) {
        sdpa_graph_params p = { layout(1, 2, 129, 257, 128, kind == 0), (sdpa_graph_kind)kind, 1 };
        fake_reset();
        assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
        int total = F.calls;
        sdpa_graph_destroy(&g);
        for (int k = 1; k <= total; k++) {
            fake_reset();
            F.fail_at = k;
            F.fail_status = CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN;
            assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL),
                             CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN);
            if (!strstr(g.err, "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN (3001): fake detail") ||
                !strstr(g.err, "cudnnBackend"))
                fail_msg("failure at call %d: '%s'", k, g.err);
            sdpa_graph_destroy(&g);
            assert_int_equal(F.destroys, F.creates);
        }
    }
    /* a few messages name the exact place */
    sdpa_graph_params p = { layout(1, 8, 512, 512, 64, 1), SDPA_GRAPH_COMPOSITE, 1 };
    fake_reset();
    F.fail_at = 1;
    F.fail_status = CUDNN_STATUS_BAD_PARAM;
    sdpa_graph_build(&g, &FAKE, &p, NULL);
    assert_non_null(strstr(g.err, "cudnnBackendCreateDescriptor(tensor Q)"));
    sdpa_graph_destroy(&g);
    fake_reset();
    F.fail_at = 3;   /* create, data type, dimensions */
    F.fail_status = CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND;
    sdpa_graph_build(&g, &FAKE, &p, NULL);
    assert_non_null(strstr(g.err, "cudnnBackendSetAttribute(tensor Q, CUDNN_ATTR_TENSOR_DIMENSIONS)"));
    sdpa_graph_destroy(&g);
}

/* ---- tests: the plan --------------------------------------------------------------- */

static void plan_takes_the_first_engine_that_finalizes(void **st)
{
    (void)st;
    sdpa_graph g;
    sdpa_plan pl;
    char text[400];
    sdpa_graph_params p = { layout(1, 8, 512, 512, 64, 0), SDPA_GRAPH_COMPOSITE, 1 };

    fake_reset();
    F.plan_ok_from = 1;
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
    int dummy;
    assert_int_equal(sdpa_plan_build(&pl, &FAKE, g.op_graph, (cudnnHandle_t)&dummy),
                     CUDNN_STATUS_SUCCESS);
    assert_int_equal(pl.choice, 1);
    assert_int_equal(pl.mode, CUDNN_HEUR_MODE_A);
    assert_int_equal(pl.engine_index, 8);
    assert_int_equal(pl.workspace_bytes, 4096);
    assert_int_equal(attr_enum(pl.heur, CUDNN_ATTR_ENGINEHEUR_MODE), CUDNN_HEUR_MODE_A);
    assert_ptr_equal(attr_desc(pl.heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH), g.op_graph);
    assert_ptr_equal(attr_desc(pl.plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE), (void *)&dummy);
    sdpa_plan_describe(&pl, text, sizeof text);
    assert_string_equal(text, "engine 8 (heuristics A, choice 2 of 3), knobs [2=5 2=5], "
                              "workspace 4096 B");
    sdpa_plan_destroy(&pl);
    sdpa_graph_destroy(&g);
    assert_int_equal(F.destroys, F.creates);

    /* no configuration finalizes: both modes tried, every answer reported */
    fake_reset();
    F.plan_ok_from = -1;
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
    assert_int_equal(sdpa_plan_build(&pl, &FAKE, g.op_graph, NULL), CUDNN_STATUS_NOT_SUPPORTED_SHAPE);
    assert_non_null(strstr(pl.err, "heuristics A, configuration 1 of 3: plan: "
                                    "CUDNN_STATUS_NOT_SUPPORTED_SHAPE (3002)"));
    assert_non_null(strstr(pl.err, "heuristics A, configuration 3 of 3"));
    assert_non_null(strstr(pl.err, "heuristics FALLBACK, configuration 3 of 3"));
    sdpa_plan_destroy(&pl);
    sdpa_graph_destroy(&g);
    assert_int_equal(F.destroys, F.creates);

    /* heuristics with nothing to offer */
    fake_reset();
    F.heur_results = 0;
    assert_int_equal(sdpa_graph_build(&g, &FAKE, &p, NULL), CUDNN_STATUS_SUCCESS);
    assert_int_equal(sdpa_plan_build(&pl, &FAKE, g.op_graph, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    assert_non_null(strstr(pl.err, "heuristics A: no engine configuration"));
    sdpa_plan_destroy(&pl);
    sdpa_graph_destroy(&g);
    assert_int_equal(F.destroys, F.creates);
}

static void variant_pack_holds_uids_pointers_and_workspace(void **st)
{
    (void)st;
    fake_reset();
    int64_t uids[3] = { 1, 2, 5 };
    float scale = 0.125f;
    char buf[64];
    void *ptrs[3] = { buf, buf + 16, &scale };
    cudnnBackendDescriptor_t vp = NULL;
    char err[256];
    assert_int_equal(sdpa_variant_pack(&FAKE, 3, uids, ptrs, buf + 32, &vp, err, sizeof err),
                     CUDNN_STATUS_SUCCESS);
    assert_true(D(vp)->finalized);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(attr_i64(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, i), uids[i]);
        assert_int_equal(attr_i64(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, i), (int64_t)(intptr_t)ptrs[i]);
    }
    assert_int_equal(attr_i64(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, 0), (int64_t)(intptr_t)(buf + 32));
    fake_destroy(vp);

    fake_reset();
    F.fail_at = 5;   /* the finalize */
    F.fail_status = CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    assert_int_equal(sdpa_variant_pack(&FAKE, 3, uids, ptrs, NULL, &vp, err, sizeof err),
                     CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    assert_non_null(strstr(err, "cudnnBackendFinalize(VARIANT_PACK): CUDNN_STATUS_BAD_PARAM_NULL_POINTER"));
    assert_int_equal(F.destroys, F.creates);
}

/* ---- tests: the real library, where it loads ---------------------------------------- */

static void *g_lib;
static sdpa_api g_real;

static int load_real(void)
{
    if (g_lib) return 1;
    g_lib = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
    if (!g_lib) return 0;
    void *f[6] = { dlsym(g_lib, "cudnnBackendCreateDescriptor"),
                   dlsym(g_lib, "cudnnBackendDestroyDescriptor"),
                   dlsym(g_lib, "cudnnBackendSetAttribute"), dlsym(g_lib, "cudnnBackendGetAttribute"),
                   dlsym(g_lib, "cudnnBackendFinalize"), dlsym(g_lib, "cudnnGetLastErrorString") };
    for (int i = 0; i < 5; i++)
        if (!f[i]) return 0;
    memcpy(&g_real.create, &f[0], sizeof f[0]);
    memcpy(&g_real.destroy, &f[1], sizeof f[1]);
    memcpy(&g_real.set, &f[2], sizeof f[2]);
    memcpy(&g_real.get, &f[3], sizeof f[3]);
    memcpy(&g_real.finalize, &f[4], sizeof f[4]);
    memcpy(&g_real.last_error, &f[5], sizeof f[5]);
    return 1;
}

/* Without a GPU, cuDNN (>= 9.8) still validates and finalizes every tensor and operation
 * and the operation graph itself: what the descriptors say is checked by the library. */
static void real_library_finalizes_every_graph(void **st)
{
    (void)st;
    if (!load_real()) {
        print_message("libcudnn.so.9 not loadable here (%s); skipped\n", dlerror());
        skip();
    }
    size_t (*version)(void) = NULL;
    void *fv = dlsym(g_lib, "cudnnGetVersion");
    memcpy(&version, &fv, sizeof fv);
    size_t v = version ? version() : 0;
    print_message("real cuDNN %zu\n", v);
    static const struct { int b, h, sq, skv, d, causal; sdpa_graph_kind kind; } cases[] = {
        { 1, 8, 512, 512, 64, 0, SDPA_GRAPH_COMPOSITE },
        { 1, 8, 512, 512, 64, 1, SDPA_GRAPH_COMPOSITE },
        { 1, 2, 129, 257, 128, 1, SDPA_GRAPH_COMPOSITE },
        { 2, 3, 300, 100, 64, 1, SDPA_GRAPH_COMPOSITE },
        { 1, 2, 1, 300, 128, 0, SDPA_GRAPH_COMPOSITE },
        { 4, 16, 4096, 4096, 128, 0, SDPA_GRAPH_UNIFIED },
        { 1, 2, 129, 257, 128, 0, SDPA_GRAPH_UNIFIED },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sdpa_graph g;
        sdpa_graph_params p = { layout(cases[i].b, cases[i].h, cases[i].sq, cases[i].skv,
                                       cases[i].d, cases[i].causal),
                                cases[i].kind, 1 };
        if (cases[i].kind == SDPA_GRAPH_UNIFIED && v < 91301) continue;
        cudnnStatus_t s = sdpa_graph_build(&g, &g_real, &p, NULL);
        if (s != CUDNN_STATUS_SUCCESS)
            fail_msg("case %zu: %s", i, g.err);
        sdpa_graph_destroy(&g);
    }
}

/* A failure inside the real library reaches the message with its status and cuDNN's own
 * explanation. */
static void real_library_errors_are_named(void **st)
{
    (void)st;
    if (!load_real()) skip();
    cudnnBackendDescriptor_t t = NULL;
    assert_int_equal(g_real.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t), CUDNN_STATUS_SUCCESS);
    /* finalizing a tensor with no dimensions fails with a named status */
    cudnnStatus_t s = g_real.finalize(t);
    assert_int_not_equal(s, CUDNN_STATUS_SUCCESS);
    char buf[600];
    sdpa_format_status(&g_real, buf, sizeof buf, "cudnnBackendFinalize(tensor)", s);
    print_message("%s\n", buf);
    assert_non_null(strstr(buf, "CUDNN_STATUS_"));
    g_real.destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layouts_follow_the_abi),
        cmocka_unit_test(statuses_are_named),
        cmocka_unit_test(composite_without_mask),
        cmocka_unit_test(composite_causal_square),
        cmocka_unit_test(composite_causal_bottom_right),
        cmocka_unit_test(causal_more_queries_than_keys_slices_q),
        cmocka_unit_test(without_stats_ops),
        cmocka_unit_test(unified_single_operation),
        cmocka_unit_test(every_failure_is_named_and_cleaned_up),
        cmocka_unit_test(plan_takes_the_first_engine_that_finalizes),
        cmocka_unit_test(variant_pack_holds_uids_pointers_and_workspace),
        cmocka_unit_test(real_library_finalizes_every_graph),
        cmocka_unit_test(real_library_errors_are_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
