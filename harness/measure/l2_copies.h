/* measure/l2_copies.h: memory-bound points timed with their inputs cold in L2.
 *
 * Why: a CUDA graph of back-to-back launches on one set of inputs reads them from L2 from
 * the second launch on when K and V fit there (1x32x1x4096x64's 33 MB in the H100's 50 MB
 * L2 ran at 3,536 GB/s against a measured copy ceiling of 2,993). A model's decode step
 * reads its K and V cold: the other layers' weights and caches pass through L2 between two
 * steps. So at a memory-bound point whose inputs would stay in L2, the point's Q, K and V
 * are copied (identical bits) until the copies together are at least L2_COLD_FACTOR times
 * the L2, and launch i of every graph reads copy i mod copies (every graph's launches a
 * multiple of the copies, so each replay reads every copy alike and a copy is read again
 * only after the others have passed through L2). Every implementation of the point, in its
 * own timing and in the point's rotation, is timed on the same copies, so the ratio stays
 * paired. O and the workspace are not copied: they are written, not read as inputs, and an
 * output buffer written each step is what a model has too.
 *
 * Where K and V alone are at least L2_COLD_FACTOR times the L2, each launch streams them
 * past it anyway: no copies ("cold by size"). A point that is not memory-bound, or whose
 * copies would not fit the memory bound or the launch bound below, is timed on one set
 * ("resident"). The evidence records which (results[].timing.l2, evidence/SCHEMA.md).
 *
 * The arithmetic is here, apart from the CUDA side, so that it is tested without a GPU
 * (harness/tests/measure/test_l2_copies.c). */
#ifndef ATTNLADDER_MEASURE_L2_COPIES_H
#define ATTNLADDER_MEASURE_L2_COPIES_H
#include <stddef.h>
#include "attn_phase.h"

/* The copies together are at least this many times the L2: a copy is read again only
 * after at least (factor - 1) L2s of other inputs have passed. */
#define L2_COLD_FACTOR 3
/* Memory-bound: fewer FLOPs per compulsory byte (core/shapes.h) than this. About a tenth
 * of an H100's ridge (990 TFLOP/s over 3.35 TB/s, ~300), so a point below it is timed by
 * its bytes; a decode point's is about its seq_q (1 to 16), the headline's 256. */
#define L2_MEMBOUND_FLOP_PER_BYTE 32.0
/* The copies' bytes beyond the first set: at most this, and at most a quarter of the free
 * device memory (an 80 GB H100 gives up at most 1 GiB; the need is 3 L2s, 150-180 MB). */
#define L2_COPIES_MAX_BYTES ((size_t)1 << 30)
/* At most this many copies: a graph's launches are a multiple of them, so each copy adds a
 * launch to every replay. A point that needs more is so small that its time is the launch,
 * not its bytes (1x8x1:300x64 reads 0.6 MB, 0.2 us of an H100's DRAM time in a launch of
 * about 5 us); it is timed resident, and says so. The validator holds evidence to it:
 * raise it, never lower it. */
#define L2_COPIES_MAX 64

typedef enum {
    L2_RESIDENT = 0,     /* one set of inputs: they may stay in L2 between launches */
    L2_ROTATED,          /* `copies` sets, launch i reading copy i mod copies */
    L2_COLD_BY_SIZE,     /* K and V alone are at least L2_COLD_FACTOR L2s */
    L2_STATE_COUNT
} l2_state;

const char *l2_state_name(l2_state s);      /* "resident", "rotated", "cold_by_size" */
int l2_state_parse(const char *name);       /* -1 when not one of them */

typedef struct {
    l2_state state;
    int copies;              /* 1 unless rotated */
    size_t copy_bytes;       /* Q, K and V of one set */
    size_t l2_bytes;         /* the device's L2 the plan was made for (0: unknown) */
} l2_plan;

/* Bytes of one set of Q, K and V (fp16), and of K and V alone. */
size_t l2_qkv_bytes(const attn_shape *s);
size_t l2_kv_bytes(const attn_shape *s);
/* FLOPs per compulsory byte below L2_MEMBOUND_FLOP_PER_BYTE. */
int l2_memory_bound(const attn_shape *s);

/* The plan for shape s on a device of l2_bytes of L2 with free_bytes of device memory
 * free: resident (not memory-bound, L2 unknown, or the copies do not fit the bounds above),
 * cold by size, or rotated over the fewest copies whose total is at least
 * L2_COLD_FACTOR * l2_bytes. */
l2_plan l2_plan_for(const attn_shape *s, size_t l2_bytes, size_t free_bytes);

/* A graph's launches: inner rounded up to a multiple of copies (copies <= 1: inner). */
int l2_graph_inner(int inner, int copies);

/* Where one set's tensors lie: copy c of q at q + c * q_bytes, of k and v at + c * kv_bytes.
 * copies <= 1: the one set. */
typedef struct {
    int copies;
    size_t q_bytes, kv_bytes;
} l2_layout;

/* a with its q, k and v moved to launch i's copy (i mod copies); o, workspace and stream
 * kept. */
attn_args l2_launch_args(const attn_args *a, const l2_layout *lay, int i);

#endif
