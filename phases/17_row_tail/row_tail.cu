// row_tail.cu: this rung's path for the shapes tail_choice.cuh takes: each head's full
// 192-row blocks on rung 15's three-warpgroup kernel (two Q buffers), launched as rung 15
// launches it but over those blocks only, then each head's last rows (at most 64) on rung
// 09's one-warpgroup kernel, one 64-row block a head; through a table
// (rowtail_link::path) that attention.cu calls.
//
// The kernels, the choice and the launch of the full blocks are rung 15's, so this unit
// holds rung 15's q_ahead.cu whole (not changed), with this rung's include path: its rung
// 09 kernels, the one-warpgroup kernel among them, are built as rung 16 builds them (step
// descriptors), its two-Q-buffer kernels as rung 15 does. This unit stands in for rung 16's
// q_ahead.cu object: it defines the Q-ahead table (qahead_link) that rung 16's dispatch
// (rung16.cu) calls.
//
// What the two launches take from the kernels, unchanged: a looping block's work tile t
// is query block n_qblocks - 1 - (t mod n_qblocks) of head t / n_qblocks (tile_coords),
// so with n_qblocks the full blocks a head and n_work those of every head, the launch
// covers rows [0, 192 full) of each head; a one-warpgroup block reads its query block off
// its grid, n_qblocks - 1 - blockIdx.x, so with n_qblocks = ceil(seq_q / 64) and one block
// in x it takes each head's last 64-row block, rows [192 full, seq_q). Both store O only
// for rows below seq_q, and read Q through tensor maps that fill rows past seq_q with
// zeros.
#include "15_q_ahead/q_ahead.cu"
#include "row_tail.h"
#include "tail_choice.cuh"

namespace row_tail {

struct TailState {
    void *full;        // rung 09's state of the full blocks' launch (rung 13's init_rows)
    r9::State *tail;   // the one-warpgroup kernel's, whose launch is launch_tail's
};

char g_note[1024] = "not initialised";
enum { ERR_TAIL_STATE = 1701 };   // apart from every code of the rungs below (1-11, 101-, 601-, 1401-, 1501-)

// The one-warpgroup kernel's state for the tail: rung 09's init for that variant, its
// ragged-first kernel (not causal), as rung 09 would set it up for the whole shape.
int init_tail(r9::State **out, const attn_shape *s, const r9::State &full)
{
    using namespace r9;
    *out = nullptr;
    const Variant *v = nullptr;
    for (const Variant &x : VARIANTS)
        if (x.d == s->head_dim && x.ncons == 1) v = &x;
    const void *fn = v ? v->fn_first[3] : nullptr;
    if (!fn) return ERR_VARIANT;
    if ((g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, v->smem)) != cudaSuccess)
        return ERR_CUDA;
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    st->var = v;
    st->fn = fn;
    st->bm = 64;
    st->n_qblocks = (s->seq_q + 63) / 64;
    st->n_work = s->batch * s->heads;
    st->grid = st->n_work;
    st->encode = full.encode;
    *out = st;
    return 0;
}

// The tail's launch: rung 09's run for a one-warpgroup state, but one block in x (each
// head's last query block) where rung 09 launches all n_qblocks.
int launch_tail(r9::State &st, const attn_args *a)
{
    using namespace r9;
    const attn_shape &s = st.shape;
    const void *ptr[3] = {a->q, a->k, a->v};
    const int rows[3] = {s.seq_q, s.seq_kv, s.seq_kv};
    const int box[3] = {st.bm, st.var->keys, st.var->keys};
    for (int i = 0; i < 3; ++i) {
        if (ptr[i] == st.mapped[i]) continue;
        if (reinterpret_cast<uintptr_t>(ptr[i]) % 16) return ERR_ALIGN;
        if (!encode_map(st, &st.maps[i], ptr[i], rows[i], box[i])) {
            st.mapped[i] = nullptr;
            return ERR_TMAP;
        }
        st.mapped[i] = ptr[i];
    }
    if (reinterpret_cast<uintptr_t>(a->o) % 4) return ERR_ALIGN;
    Params p = {};
    p.o = static_cast<__half *>(a->o);
    p.o16 = reinterpret_cast<uintptr_t>(a->o) % 16 == 0;
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.n_qblocks = st.n_qblocks;
    p.n_work = st.n_work;
    p.scale_log2 = s.scale * LOG2E;
    p.n_kt = (s.seq_kv + st.var->keys - 1) / st.var->keys;
    void *args[] = {&st.maps[0], &st.maps[1], &st.maps[2], &p};
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1u, (unsigned)(s.batch * s.heads));
    cfg.blockDim = dim3((unsigned)st.var->threads);
    cfg.dynamicSmemBytes = (size_t)st.var->smem;
    cfg.stream = a->stream;
    // Programmatic dependent launch, as rung 09's: its blocks set up their barriers while the
    // full blocks' launch ends, and wait for it (griddepcontrol.wait) before reading or writing.
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    g_cuda = cudaLaunchKernelExC(&cfg, st.fn, args);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_CUDA;
}

size_t workspace_bytes(const attn_shape *s) { return q_ahead::workspace_bytes(s); }

void fini(void *state)
{
    TailState *st = static_cast<TailState *>(state);
    if (!st) return;
    r9::fini(st->full);
    r9::fini(st->tail);
    free(st);
}

// The note: rung 13's note of the full blocks' launch (init_rows), its head replaced, and the tail's.
void write_note(const attn_shape *s, const Cut &cut, const r9::State &tail)
{
    static const char was[] = "row blocks: ";
    const char *full = r9::g_chosen;
    if (!strncmp(full, was, sizeof was - 1)) full += sizeof was - 1;
    cudaFuncAttributes fa = {};
    const int regs = cudaFuncGetAttributes(&fa, tail.fn) == cudaSuccess ? fa.numRegs : -1;
    snprintf(g_note, sizeof g_note,
             "row tail: rows 0-%d of each head: Q ahead: %s; rows %d-%d: %s: 1 consumer warpgroup, BM=64 BN=%d, "
             "ragged keys first, %d B shared memory, %d registers at entry, one block a head (%d CTAs of %d threads), "
             "after the full blocks",
             cut.full * FULL_ROWS - 1, full, cut.full * FULL_ROWS, s->seq_q - 1, tail.var->name, tail.var->keys,
             tail.var->smem, regs, s->batch * s->heads, tail.var->threads);
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    int sms = 0;
    Cut cut;
    if (r9::unsupported(s) || rung13::device_sms(&sms) || !choose(s, sms, cut)) return r9::ERR_SHAPE;
    TailState *st = static_cast<TailState *>(calloc(1, sizeof(TailState)));
    if (!st) return r9::ERR_ALLOC;
    int rc = rung13::init_rows(&st->full, s, sms, cut.c);
    if (rc) {
        free(st);
        return rc;
    }
    r9::State &full = *static_cast<r9::State *>(st->full);
    full.n_qblocks = cut.full;   // the tile order over each head's full blocks (cut.c.n_work: all heads')
    rc = init_tail(&st->tail, s, full);
    if (rc) {
        fini(st);
        return rc;
    }
    write_note(s, cut, *st->tail);
    *state = st;
    return 0;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_TAIL_STATE;
    const TailState &st = *static_cast<const TailState *>(state);
    const int rc = r9::run(st.full, a);
    return rc ? rc : launch_tail(*st.tail, a);
}

const char *error_string(int code)
{
    if (code == 0) return g_note;
    if (code == ERR_TAIL_STATE) return "run without a state (init failed or was not called)";
    return r9::error_string(code);
}

}  // namespace row_tail

namespace rowtail_link {
const attn_phase path = {
    1, "09_tile_scheduling", "rung 15's three-warpgroup kernel over the full row blocks, the row tail apart",
    rung13::rung09::unsupported, row_tail::workspace_bytes, row_tail::init, row_tail::run,
    row_tail::fini, row_tail::error_string,
};
bool takes(const attn_shape *s) { return row_tail::takes(s); }
}  // namespace rowtail_link
