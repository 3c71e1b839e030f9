/* measure/l2_copies.c: the copies that keep a memory-bound point's inputs cold in L2
 * (l2_copies.h). */
#include "measure/l2_copies.h"

#include <string.h>
#include "core/shapes.h"

static const char *const STATE_NAMES[L2_STATE_COUNT] = { "resident", "rotated", "cold_by_size" };

const char *l2_state_name(l2_state s) { return s < L2_STATE_COUNT ? STATE_NAMES[s] : "?"; }

int l2_state_parse(const char *name)
{
    for (int i = 0; name && i < L2_STATE_COUNT; i++)
        if (strcmp(name, STATE_NAMES[i]) == 0) return i;
    return -1;
}

size_t l2_kv_bytes(const attn_shape *s)
{
    return 2 * (size_t)s->batch * (size_t)s->heads * (size_t)s->seq_kv * (size_t)s->head_dim * 2;
}

size_t l2_qkv_bytes(const attn_shape *s)
{
    return l2_kv_bytes(s) + (size_t)s->batch * (size_t)s->heads * (size_t)s->seq_q * (size_t)s->head_dim * 2;
}

int l2_memory_bound(const attn_shape *s)
{
    double bytes = shape_bytes(s);
    return bytes > 0 && shape_flops(s) / bytes < L2_MEMBOUND_FLOP_PER_BYTE;
}

l2_plan l2_plan_for(const attn_shape *s, size_t l2_bytes, size_t free_bytes)
{
    size_t one = l2_qkv_bytes(s);
    l2_plan p = { .state = L2_RESIDENT, .copies = 1, .copy_bytes = one, .l2_bytes = l2_bytes };
    if (!l2_bytes || !one || !l2_memory_bound(s)) return p;
    size_t want = (size_t)L2_COLD_FACTOR * l2_bytes;
    if (l2_kv_bytes(s) >= want) {
        p.state = L2_COLD_BY_SIZE;
        return p;
    }
    size_t copies = (want + one - 1) / one;
    if (copies < 2) copies = 2;
    size_t room = free_bytes / 4 < L2_COPIES_MAX_BYTES ? free_bytes / 4 : L2_COPIES_MAX_BYTES;
    /* past either bound the copies could not make the inputs cold: timed resident, and
     * recorded so, rather than rotated over too few */
    if (copies > L2_COPIES_MAX || (copies - 1) > room / one) return p;
    p.state = L2_ROTATED;
    p.copies = (int)copies;
    return p;
}

int l2_graph_inner(int inner, int copies)
{
    if (copies <= 1) return inner;
    if (inner < 1) inner = 1;
    return (inner + copies - 1) / copies * copies;
}

attn_args l2_launch_args(const attn_args *a, const l2_layout *lay, int i)
{
    attn_args r = *a;
    if (!lay || lay->copies <= 1) return r;
    size_t c = (size_t)(i % lay->copies);
    r.q = (const char *)a->q + c * lay->q_bytes;
    r.k = (const char *)a->k + c * lay->kv_bytes;
    r.v = (const char *)a->v + c * lay->kv_bytes;
    return r;
}
