// row_tail.cu: this rung's path for the shapes tail_choice.cuh takes: each head's rows cut
// into 192 a + 128 b, the last 192 a on rung 15's three-warpgroup kernel and the first
// 128 b on its two-warpgroup ping-pong (both with two Q buffers), two launches, nothing
// padded, side by side on two streams, each on its share of the SMs; through a table
// (rowtail_link::path) that attention.cu calls.
//
// The kernels, the choice and the launches are rung 15's, so this unit holds rung 15's
// q_ahead.cu whole (not changed), with this rung's include path (rung 16's build of it:
// its rung 09 kernels with step descriptors, its two-Q-buffer kernels as rung 15 builds
// them). This unit stands in for rung 16's q_ahead.cu object: it defines the Q-ahead table
// (qahead_link) that rung 16's dispatch (rung16.cu) calls.
//
// What the two launches take from the kernels, unchanged: a looping block's work tile t is
// query block n_qblocks - 1 - (t mod n_qblocks) of head t / n_qblocks (tile_coords), its
// rows from q0 = that block x its rows; Q is read through a tensor map of seq_q rows a head
// from the Q pointer, and O stored at o + (head x seq_q + row) x D for rows below seq_q.
//   - the ping-pong, n_qblocks = b: rows [0, 128 b) of each head;
//   - the three-warpgroup kernel, n_qblocks = a, with Q and O 128 b rows on (seq_q and so
//     each head's stride unchanged): rows [128 b, seq_q) of each head. Its blocks end
//     exactly at the head's last row, so no row it reads or stores is past it: the rows
//     of its tensor map past 192 a (the next head's first) are never loaded.
#include "15_q_ahead/q_ahead.cu"
#include "row_tail.h"
#include "tail_choice.cuh"

namespace row_tail {

struct CutState {
    void *full;   // rung 09's state of the three-warpgroup launch (rung 13's init_rows)
    void *pp;     // and of the ping-pong launch
    size_t skip;  // bytes of a head's first 128 b rows: where the full blocks' rows begin
    size_t part;  // workspace bytes of the three-warpgroup launch's split pieces: the ping-pong's follow
    cudaStream_t side;          // the ping-pong's stream
    cudaEvent_t fork, join;     // side waits for the caller's stream, and the caller for side
};

char g_note[1024] = "not initialised";
enum { ERR_CUT_STATE = 1701 };   // apart from every code of the rungs below (1-11, 101-, 601-, 1401-, 1501-)

size_t workspace_bytes(const attn_shape *s) { return q_ahead::workspace_bytes(s); }

void fini(void *state)
{
    CutState *st = static_cast<CutState *>(state);
    if (!st) return;
    r9::fini(st->full);
    r9::fini(st->pp);
    if (st->fork) cudaEventDestroy(st->fork);
    if (st->join) cudaEventDestroy(st->join);
    if (st->side) cudaStreamDestroy(st->side);
    free(st);
}

// init_rows's note ("row blocks: <kernel>: ..."), its head dropped, into dst.
void kernel_note(char *dst, size_t len)
{
    static const char was[] = "row blocks: ";
    const char *note = r9::g_chosen;
    if (!strncmp(note, was, sizeof was - 1)) note += sizeof was - 1;
    const size_t n = strnlen(note, len - 1);   // cut to fit, as snprintf would
    memcpy(dst, note, n);
    dst[n] = '\0';
}

// One launch's state: rung 13's init_rows for the choice c on `sms` SMs (its persistent grid
// and split plan), its tile order then cut to `blocks` query blocks a head (c.n_work: those
// of every head).
int init_launch(void **state, const attn_shape *s, int sms, const r9::Choice &c, int blocks, char *note, size_t len)
{
    const int rc = rung13::init_rows(state, s, sms, c);
    if (rc) return rc;
    static_cast<r9::State *>(*state)->n_qblocks = blocks;
    kernel_note(note, len);
    return 0;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    int sms = 0;
    Cut cut;
    if (r9::unsupported(s) || rung13::device_sms(&sms) || !choose(s, sms, cut)) return r9::ERR_SHAPE;
    CutState *st = static_cast<CutState *>(calloc(1, sizeof(CutState)));
    if (!st) return r9::ERR_ALLOC;
    st->skip = (size_t)PP_ROWS * cut.b * s->head_dim * sizeof(__half);
    char full_note[448], pp_note[448];   // with the rest, within g_note
    int rc = init_launch(&st->full, s, cut.sms_full, cut.full, cut.a, full_note, sizeof full_note);
    if (!rc) rc = init_launch(&st->pp, s, cut.sms_pp, cut.pp, cut.b, pp_note, sizeof pp_note);
    if (!rc) {
        st->part = static_cast<r9::State *>(st->full)->split.part_bytes;
        if ((r9::g_cuda = cudaStreamCreateWithFlags(&st->side, cudaStreamNonBlocking)) != cudaSuccess ||
            (r9::g_cuda = cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming)) != cudaSuccess ||
            (r9::g_cuda = cudaEventCreateWithFlags(&st->join, cudaEventDisableTiming)) != cudaSuccess)
            rc = r9::ERR_CUDA;
    }
    if (rc) {
        fini(st);
        return rc;
    }
    const int split = PP_ROWS * cut.b;
    snprintf(g_note, sizeof g_note,
             "row tail, two launches side by side: rows 0-%d of each head: Q ahead: %s; rows %d-%d: Q ahead: %s",
             split - 1, pp_note, split, s->seq_q - 1, full_note);
    *state = st;
    return 0;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_CUT_STATE;
    const CutState &st = *static_cast<const CutState *>(state);
    attn_args full = *a;   // the same buffers, 128 b rows on
    full.q = static_cast<const unsigned char *>(a->q) + st.skip;
    full.o = static_cast<unsigned char *>(a->o) + st.skip;
    attn_args pp = *a;     // on the side stream, its split pieces after the other launch's
    pp.stream = st.side;
    if (a->workspace) pp.workspace = static_cast<unsigned char *>(a->workspace) + st.part;
    // Fork: the side stream starts after what the caller's stream holds; join: the caller's
    // stream goes on after both launches (a CUDA graph captures both as dependencies).
    if ((r9::g_cuda = cudaEventRecord(st.fork, a->stream)) != cudaSuccess ||
        (r9::g_cuda = cudaStreamWaitEvent(st.side, st.fork, 0)) != cudaSuccess)
        return r9::ERR_CUDA;
    int rc = r9::run(st.full, &full);
    const int rc_pp = r9::run(st.pp, &pp);
    if (!rc) rc = rc_pp;
    // The join is recorded whatever happened, so the caller's stream never runs ahead of side.
    if ((r9::g_cuda = cudaEventRecord(st.join, st.side)) != cudaSuccess ||
        (r9::g_cuda = cudaStreamWaitEvent(a->stream, st.join, 0)) != cudaSuccess)
        return r9::ERR_CUDA;
    return rc;
}

const char *error_string(int code)
{
    if (code == 0) return g_note;
    if (code == ERR_CUT_STATE) return "run without a state (init failed or was not called)";
    return r9::error_string(code);
}

}  // namespace row_tail

namespace rowtail_link {
const attn_phase path = {
    1, "09_tile_scheduling", "rung 15's Q-ahead kernels over each head's rows cut into 192- and 128-row blocks",
    rung13::rung09::unsupported, row_tail::workspace_bytes, row_tail::init, row_tail::run,
    row_tail::fini, row_tail::error_string,
};
bool takes(const attn_shape *s) { return row_tail::takes(s); }
}  // namespace rowtail_link
