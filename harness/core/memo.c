/* core/memo.c: a memo of deterministic results (memo.h). A direct-mapped table of copies
 * of the keys: a slot taken by another key is replaced, a full byte budget stops adding. */
#include "core/memo.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4096                      /* a report asks for ~1400 distinct ratios */
#define MAX_BYTES ((size_t)64 << 20)    /* keys and results kept, in all */
#define MAX_OUT 72                      /* gate_change_ci's nine doubles */

typedef struct {
    uint64_t hash;
    unsigned char *key;   /* NULL: empty */
    size_t key_len, out_len;
    unsigned char out[MAX_OUT];
} slot;

static slot table[SLOTS];
static size_t bytes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* FNV-1a over the pieces and their lengths */
static uint64_t hash_of(const memo_part *key, size_t parts, size_t *len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    *len = 0;
    for (size_t i = 0; i < parts; i++) {
        uint64_t n = key[i].n;
        for (int b = 0; b < 8; b++) h = (h ^ ((n >> (8 * b)) & 0xff)) * 0x100000001b3ull;
        const unsigned char *p = key[i].p;
        for (size_t k = 0; k < key[i].n; k++) h = (h ^ p[k]) * 0x100000001b3ull;
        *len += sizeof n + key[i].n;
    }
    return h;
}

/* the key as stored: each piece's length, then its bytes */
static int same_key(const slot *s, const memo_part *key, size_t parts, size_t len)
{
    if (s->key_len != len) return 0;
    const unsigned char *q = s->key;
    for (size_t i = 0; i < parts; i++) {
        uint64_t n = key[i].n;
        if (memcmp(q, &n, sizeof n) || (n && memcmp(q + sizeof n, key[i].p, n))) return 0;
        q += sizeof n + n;
    }
    return 1;
}

int memo_get(const memo_part *key, size_t parts, void *out, size_t out_len)
{
    size_t len;
    uint64_t h = hash_of(key, parts, &len);
    int found = 0;
    pthread_mutex_lock(&lock);
    slot *s = &table[h % SLOTS];
    if (s->key && s->hash == h && s->out_len == out_len && same_key(s, key, parts, len)) {
        memcpy(out, s->out, out_len);
        found = 1;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void memo_put(const memo_part *key, size_t parts, const void *out, size_t out_len)
{
    if (out_len > MAX_OUT) return;
    size_t len;
    uint64_t h = hash_of(key, parts, &len);
    pthread_mutex_lock(&lock);
    slot *s = &table[h % SLOTS];
    size_t freed = s->key ? s->key_len : 0;
    unsigned char *copy = bytes - freed + len <= MAX_BYTES ? malloc(len ? len : 1) : NULL;
    if (copy) {
        unsigned char *q = copy;
        for (size_t i = 0; i < parts; i++) {
            uint64_t n = key[i].n;
            memcpy(q, &n, sizeof n);
            if (n) memcpy(q + sizeof n, key[i].p, n);
            q += sizeof n + n;
        }
        free(s->key);
        bytes = bytes - freed + len;
        s->hash = h;
        s->key = copy;
        s->key_len = len;
        s->out_len = out_len;
        memcpy(s->out, out, out_len);
    }
    pthread_mutex_unlock(&lock);
}
