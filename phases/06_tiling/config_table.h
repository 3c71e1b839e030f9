/* config_table.h: the tile configurations phase 06 compiles, which one each shape gets,
 * and the ATTN06_CONFIG tuning override. Plain C (static inline) so that the CPU unit test
 * (harness/tests/test_tiling_config.c) checks exactly what the kernel's init() uses.
 *
 * A configuration: BM query rows per CTA, BN keys per pipeline stage, `warps` warps, `stages`
 * K/V stages of cp.async in flight, `wn` warps sharing each query row over different keys of
 * every tile (merged through shared memory at the end), so warps / wn groups of 16 * wm rows
 * (wm in {1, 2}), and `split` CTAs sharing one query tile's keys (split-KV through the
 * workspace; the last of them to finish combines; only with wn = 1).
 * The table in choose_config() was derived from ci/tune_06.py's sweep, committed as
 * evidence/nvidia-h100-80gb-hbm3/tuning_06_tiling.json; phases/06_tiling/README.md says how. */
#ifndef TILING_CONFIG_TABLE_H
#define TILING_CONFIG_TABLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attn_phase.h"

typedef struct {
    int head_dim;
    int bm, bn, warps, stages;
    int split;
    int wn;
} tile_config;

/* The compiled kernel variants: X(D, BM, BN, WARPS, STAGES, WN). A configuration is usable
 * only if its (D, BM, BN, WARPS, STAGES, WN) is in this list; split is a run-time value. Kept
 * short because each entry is a kernel compiled for every target architecture. */
#define TILING_VARIANTS(X)          \
    X(64, 16, 64, 1, 2, 1)          \
    X(64, 32, 64, 2, 2, 1)          \
    X(64, 64, 64, 4, 2, 1)          \
    X(64, 64, 128, 4, 2, 1)         \
    X(64, 64, 64, 2, 2, 1)          \
    X(64, 128, 64, 4, 2, 1)         \
    X(64, 128, 128, 4, 2, 1)        \
    X(64, 128, 64, 4, 3, 1)         \
    X(64, 16, 128, 4, 2, 4)         \
    X(64, 32, 128, 4, 2, 2)         \
    X(64, 32, 128, 8, 2, 4)         \
    X(64, 64, 128, 8, 2, 2)         \
    X(64, 64, 128, 16, 2, 4)        \
    X(64, 64, 64, 8, 2, 2)          \
    X(128, 32, 64, 2, 2, 1)         \
    X(128, 64, 64, 4, 2, 1)         \
    X(128, 64, 32, 4, 2, 1)         \
    X(128, 128, 64, 8, 2, 1)        \
    X(128, 128, 64, 4, 2, 1)        \
    X(128, 128, 32, 4, 2, 1)        \
    X(128, 128, 32, 4, 3, 1)        \
    X(128, 128, 64, 4, 3, 1)        \
    X(128, 16, 64, 4, 2, 4)         \
    X(128, 32, 64, 4, 2, 2)         \
    X(128, 64, 64, 8, 2, 2)

#define TILING_MAX_SPLIT 8   /* MAX_SPLIT in flash_kernel.cuh */
/* Shared memory a block may opt into: sm_90 227 KB, sm_80 163 KB, sm_86/89 99 KB. The
 * caller passes the device's value; this is only the default for a caller that has none. */
#define TILING_SMEM_DEFAULT (99 * 1024)

static inline int tiling_cdiv(int a, int b) { return (a + b - 1) / b; }

static inline size_t tiling_smem_bytes(const tile_config *c)
{
    return (size_t)(c->bm + 2 * c->stages * c->bn) * (size_t)c->head_dim * 2u;
}

static inline int tiling_compiled(const tile_config *c)
{
#define TILING_MATCH(D, BM, BN, W, ST, WN)                                                  \
    if (c->head_dim == D && c->bm == BM && c->bn == BN && c->warps == W && c->stages == ST && \
        c->wn == WN)                                                                          \
        return 1;
    TILING_VARIANTS(TILING_MATCH)
#undef TILING_MATCH
    return 0;
}

/* NULL when c can run on a device whose blocks may have smem_limit bytes of shared memory,
 * else the reason. */
static inline const char *tiling_invalid(const tile_config *c, size_t smem_limit)
{
    if (c->head_dim != 64 && c->head_dim != 128) return "head_dim must be 64 or 128";
    if (c->wn < 1 || c->warps < 1 || c->warps % c->wn != 0) return "wn must divide warps";
    int groups = c->warps / c->wn;
    if (c->bm % (16 * groups) != 0) return "bm must be 16 * wm * (warps / wn)";
    int wm = c->bm / (16 * groups);
    if (wm != 1 && wm != 2) return "rows per warp must be 16 or 32";
    if (c->bn % (16 * c->wn) != 0) return "bn must be a multiple of 16 * wn";
    if (c->stages < 2) return "stages must be >= 2";
    if (c->split < 1 || c->split > TILING_MAX_SPLIT) return "split must be 1..8";
    if (c->wn > 1 && c->split > 1) return "split-KV across CTAs needs wn = 1";
    if (!tiling_compiled(c)) return "no compiled kernel for this (D, bm, bn, warps, stages)";
    if (tiling_smem_bytes(c) > smem_limit) return "needs more shared memory than the device allows";
    return NULL;
}

/* Query tiles times splits: the CTAs a launch has. */
static inline long tiling_ctas(const attn_shape *s, const tile_config *c)
{
    return (long)s->batch * s->heads * tiling_cdiv(s->seq_q, c->bm) * c->split;
}

/* Workspace for split-KV partials: fp32 O, then (row max, row sum) pairs. */
static inline size_t tiling_workspace_bytes(const attn_shape *s, const tile_config *c)
{
    if (c->split <= 1) return 0;
    size_t rows = (size_t)c->split * s->batch * s->heads * s->seq_q;
    return rows * (size_t)s->head_dim * 4u + rows * 8u;
}

/* Parses "bm=64,bn=64,w=4,st=2,split=4[,wn=2]" (any order; wn defaults to 1) into c;
 * head_dim is the shape's. Returns 0, or -1 for a malformed string. A tuning switch only. */
static inline int tiling_parse(const char *text, int head_dim, tile_config *c)
{
    tile_config r = { head_dim, 0, 0, 0, 0, 0, 1 };
    const char *p = text;
    int seen = 0;
    while (*p) {
        char key[8];
        size_t k = 0;
        while (*p && *p != '=' && k + 1 < sizeof key) key[k++] = *p++;
        key[k] = '\0';
        if (*p != '=') return -1;
        p++;
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1024) return -1;
        p = end;
        if (*p == ',') {
            if (!*++p) return -1;
        } else if (*p) {
            return -1;
        }
        if (!strcmp(key, "bm")) { r.bm = (int)v; seen |= 1; }
        else if (!strcmp(key, "bn")) { r.bn = (int)v; seen |= 2; }
        else if (!strcmp(key, "w")) { r.warps = (int)v; seen |= 4; }
        else if (!strcmp(key, "st")) { r.stages = (int)v; seen |= 8; }
        else if (!strcmp(key, "split")) { r.split = (int)v; seen |= 16; }
        else if (!strcmp(key, "wn") && !(seen & 32)) { r.wn = (int)v; seen |= 32; }
        else return -1;
    }
    if ((seen & 31) != 31) return -1;
    *c = r;
    return 0;
}

static inline void tiling_format(const tile_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "bm=%d,bn=%d,w=%d,st=%d,split=%d,wn=%d", c->bm, c->bn, c->warps,
             c->stages, c->split, c->wn);
}

/* The table's key: the CTAs the shape would make at 128 query rows per CTA,
 * B * H * ceil(Sq / 128), in buckets (ci/tune_06.py BUCKET_BOUNDS); few CTAs means the work
 * must be cut finer (smaller query tiles, keys shared among warps) to fill the GPU. */
#define TILING_BUCKETS 6
static const int TILING_BUCKET_BOUNDS[TILING_BUCKETS - 1] = { 16, 32, 64, 128, 256 };

static inline int tiling_bucket(const attn_shape *s)
{
    long t = (long)s->batch * s->heads * tiling_cdiv(s->seq_q, 128);
    int b = 0;
    while (b < TILING_BUCKETS - 1 && t > TILING_BUCKET_BOUNDS[b]) b++;
    return b;
}

/* [D == 128][causal][bucket] = { D, bm, bn, warps, stages, split, wn }: for each bucket the
 * configuration with the smallest geometric mean of (time / best time) over the bucket's
 * tuned shapes on the H100, from evidence/nvidia-h100-80gb-hbm3/tuning_06_tiling.json;
 * `python3 ci/tune_06.py --derive <that file>` prints these rows, with the shapes behind each
 * and its loss against each shape's own best. Cross-CTA split-KV won no bucket: where the
 * grid is short of CTAs, warps sharing rows (wn > 1) were faster at every tuned shape. */
static const tile_config TILING_TABLE[2][2][TILING_BUCKETS] = {
    { /* D = 64 */
      { { 64, 16, 128, 4, 2, 1, 4 }, { 64, 32, 128, 4, 2, 1, 2 }, { 64, 64, 128, 4, 2, 1, 1 },
        { 64, 64, 128, 8, 2, 1, 2 }, { 64, 128, 128, 4, 2, 1, 1 }, { 64, 128, 128, 4, 2, 1, 1 } },
      { { 64, 16, 128, 4, 2, 1, 4 }, { 64, 32, 128, 4, 2, 1, 2 }, { 64, 32, 128, 4, 2, 1, 2 },
        { 64, 64, 128, 8, 2, 1, 2 }, { 64, 64, 128, 4, 2, 1, 1 }, { 64, 128, 128, 4, 2, 1, 1 } } },
    { /* D = 128 */
      { { 128, 16, 64, 4, 2, 1, 4 }, { 128, 16, 64, 4, 2, 1, 4 }, { 128, 64, 64, 8, 2, 1, 2 },
        { 128, 64, 64, 4, 2, 1, 1 }, { 128, 128, 64, 4, 2, 1, 1 }, { 128, 128, 64, 4, 2, 1, 1 } },
      { { 128, 16, 64, 4, 2, 1, 4 }, { 128, 16, 64, 4, 2, 1, 4 }, { 128, 64, 64, 8, 2, 1, 2 },
        { 128, 64, 64, 8, 2, 1, 2 }, { 128, 64, 64, 4, 2, 1, 1 }, { 128, 128, 64, 4, 2, 1, 1 } } },
};

/* The configuration for s on a device with sm_count SMs and smem_limit bytes of shared
 * memory per block. sm_count is not a key yet: the table was tuned on one 132-SM part. */
static inline tile_config choose_config(const attn_shape *s, int sm_count, size_t smem_limit)
{
    (void)sm_count;
    tile_config c = TILING_TABLE[s->head_dim == 128][s->causal != 0][tiling_bucket(s)];
    c.head_dim = s->head_dim;
    /* A split never outnumbers the key tiles. */
    int kv_tiles = tiling_cdiv(s->seq_kv, c.bn);
    if (c.split > kv_tiles) c.split = kv_tiles;
    /* A device with less shared memory than the table assumes: fewer stages, then smaller
     * KV tiles, then the plain 64-row tile. */
    while (tiling_invalid(&c, smem_limit)) {
        if (c.stages > 2) c.stages = 2;
        else if (c.bn > 32 && c.head_dim == 128 && c.wn == 1 && c.bm == 128) c.bn = 32;
        else if (c.bm != 64 || c.bn != 64 || c.warps != 4 || c.wn != 1) {
            c.bm = 64; c.bn = 64; c.warps = 4; c.wn = 1; c.split = 1;
        } else break;
    }
    return c;
}

#endif /* TILING_CONFIG_TABLE_H */
