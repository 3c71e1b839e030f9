// delegate_choice.cuh: which rung below runs a shape the latency kernel does not take.
//
// Rung 06 where rung 09's choice is its one-warpgroup path and its grid of 64-row blocks
// would fill at most a quarter of the SMs, with at most 1024 keys at D = 64 and at most
// three key tiles of 128 at D = 128. There rung 06's table takes 16-row blocks whose four
// warps split the keys (wn = 4): a quarter of the rows a block and a quarter of the keys a
// warp, so each thread's serial softmax is an eighth of rung 09's (64 rows over 128 threads
// for every key). Measured (H100, graph mode, one process, build 4235e9b; rung 06 against
// rung 09 in the same run, us): D = 64 at 8-32 blocks, 300-1000 keys, both masks, rung 06
// faster at all eight shapes by 9-22% (1x8x1:300 4.07 / 4.49, 1x8x129:257 4.40 / 4.95,
// 1x8x1:500 4.65 / 5.35, 1x8x64:384 causal 4.43 / 5.29, 2x4x1:448 4.78 / 5.41, 1x8x1:1000
// 7.27 / 8.74, 1x2x1000 7.47 / 9.14, 1x4x256:384 4.19 / 4.78); at 48 and 64 blocks rung 09
// (1x8x384 causal 5.11 / 5.26, 1x4x1000 9.21 / 9.52). D = 128: rung 06 faster at three
// tiles (1x8x1:300 causal 5.34 / 5.50, 1x8x129:257 causal 5.51 / 5.64, 1x4x100:320 5.59 /
// 6.52), slower at four and eight (1x8x1:500 causal 7.09 / 6.57, 1x8x1:1000 11.80 / 11.03):
// its mma.sync tiles have half wgmma's rate, which the longer key ranges expose.
//
// Otherwise rung 09, except where its choice is its one-warpgroup path (64-row blocks, taken when
// 128-row blocks would be fewer than the SMs) and those blocks need more than one wave at
// the occupancy they have. Then the first of rung 07 (the same 64-row blocks) and rung 08
// (128-row blocks at D = 128, 192-row at D = 64) whose whole grid fits one wave runs it;
// when neither fits, rung 09 still does. The occupancy comes from the occupancy calculator
// on each rung's own kernel, so the rule follows the registers and shared memory the
// compiler gave them, not numbers written here.
//
// Why (ptxas reports of the build, the H100's 132 SMs with 64K registers and 228 KB of
// shared memory each; the reference runs of build 67feaed, graph mode, at 2x8x1000, whose
// 128-row blocks (128) are fewer than the SMs, so rung 09 runs 256 blocks of 64 rows):
// - D = 64: rung 09's one-warpgroup kernels hold 154 registers (non-causal, ragged keys
//   first) and 167 (causal) for 256 threads, 40K and 42K of the 64K: one block per SM,
//   though two would fit in shared memory (107672 B each); the 256 blocks run in two waves:
//   19.07 us (causal 16.92). Rung 07's kernel holds 127 registers (32K a block) and
//   107624 B: two blocks per SM, the 256 blocks in one wave: 14.21 us (causal 13.36).
// - D = 128: both rungs' 64-row blocks take 148.5 KB of shared memory, one per SM, two
//   waves (rung 09 26.34 us, causal 22.39; rung 07 28.31, 24.81). Rung 08's 128 blocks of
//   128 rows (164936 B, one per SM) are one wave: 19.58 us (causal 17.54).
// The H200 (132 SMs) measured the same: 18.59 / 17.37 against rung 07's 13.97 / 13.30 at
// D = 64, 25.86 / 22.43 against rung 08's 18.97 / 17.45 at D = 128.
#pragma once

namespace {

// The rungs below, by the number their directories carry.
enum { DELEGATE_06 = 6, DELEGATE_07 = 7, DELEGATE_08 = 8, DELEGATE_09 = 9 };

struct DelegateChoice {
    int rung = DELEGATE_09;
    // Rung 09's one-warpgroup variant, its grid, rows a block and blocks per SM (blocks09 =
    // 0: rung 09 keeps the shape).
    const char *variant09 = nullptr;
    long blocks09 = 0;
    int rows09 = 0, per_sm09 = 0;
    // The rung that runs the shape instead: its grid, rows a block and blocks per SM.
    long blocks = 0;
    int rows = 0, per_sm = 0;
};

// Blocks of fn (threads, smem bytes of dynamic shared memory) one SM holds at once. The
// opt-in above 48 KB first, as each rung's init sets it: without it the calculator answers
// 0 for these kernels.
cudaError_t blocks_per_sm(const void *fn, int threads, int smem, int *n)
{
    *n = 0;
    const cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    return e != cudaSuccess ? e : cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, fn, threads, (size_t)smem);
}

// Whether a lower rung's grid of `rows`-row blocks fits one wave on `sms` SMs; records it
// in d when it does.
cudaError_t one_wave(const attn_shape *s, int sms, int rung, const void *fn, int threads, int smem, int rows,
                     DelegateChoice &d, bool &fits)
{
    fits = false;
    int per_sm = 0;
    const cudaError_t e = blocks_per_sm(fn, threads, smem, &per_sm);
    if (e != cudaSuccess) return e;
    const long blocks = (long)((s->seq_q + rows - 1) / rows) * s->batch * s->heads;
    if (per_sm < 1 || blocks > (long)sms * per_sm) return cudaSuccess;
    fits = true;
    d.rung = rung;
    d.blocks = blocks;
    d.rows = rows;
    d.per_sm = per_sm;
    return cudaSuccess;
}

// The rule above, for a shape rung 09's unsupported() admits on an sm_90a device.
cudaError_t delegate_choose(const attn_shape *s, int sms, DelegateChoice &d)
{
    d = DelegateChoice();
    rung09::Choice c;
    if (!rung09::choose(s, sms, c) || c.v->ncons != 1) return cudaSuccess;
    // The kernel rung 09's init launches for this choice (its init's selection).
    const rung09::Variant *v = c.v;
    const void *fn = c.dynamic ? v->fn_dyn : v->fn;
    if (c.first) fn = v->fn_first[c.width == v->keys ? 3 : c.width == 48 ? 0 : c.width == 96 ? 1 : 2];
    if (!fn) return cudaSuccess;   // rung 09's init reports it
    // Rung 06: rung 09's 64-row grid fills at most a quarter of the SMs, and the keys are in
    // the range measured faster (above).
    const int n_kt = (s->seq_kv + 127) / 128;
    if (c.n_work * 4 <= sms && (s->head_dim == 64 ? s->seq_kv <= 1024 : n_kt <= 3) && !rung06::unsupported(s)) {
        d.rung = DELEGATE_06;
        d.variant09 = v->name;
        d.blocks09 = c.n_work;
        d.rows09 = 64 * v->ncons;
        return cudaSuccess;
    }
    cudaError_t e = blocks_per_sm(fn, v->threads, v->smem, &d.per_sm09);
    if (e != cudaSuccess) return e;
    if (d.per_sm09 < 1 || c.n_work <= (long)sms * d.per_sm09) return cudaSuccess;   // one wave: rung 09's
    d.variant09 = v->name;
    d.blocks09 = c.n_work;
    d.rows09 = 64 * v->ncons;
    const bool d64 = s->head_dim == 64;
    bool fits = false;
    if (!rung07::unsupported(s)) {
        e = one_wave(s, sms, DELEGATE_07,
                     d64 ? reinterpret_cast<const void *>(&rung07::hopper_attention<64>)
                         : reinterpret_cast<const void *>(&rung07::hopper_attention<128>),
                     rung07::THREADS, d64 ? rung07::Cfg<64>::SMEM : rung07::Cfg<128>::SMEM, rung07::BM, d, fits);
        if (e != cudaSuccess || fits) return e;
    }
    if (!rung08::unsupported(s)) {
        e = one_wave(s, sms, DELEGATE_08,
                     d64 ? reinterpret_cast<const void *>(&rung08::hopper_attention<64>)
                         : reinterpret_cast<const void *>(&rung08::hopper_attention<128>),
                     d64 ? rung08::Cfg<64>::THREADS : rung08::Cfg<128>::THREADS,
                     d64 ? rung08::Cfg<64>::SMEM : rung08::Cfg<128>::SMEM,
                     d64 ? rung08::Cfg<64>::BM : rung08::Cfg<128>::BM, d, fits);
        if (e != cudaSuccess || fits) return e;
    }
    return cudaSuccess;   // neither fits one wave: rung 09's
}

// The init note of a shape passed on to rung 07 or 08: which rung, why, then its own note.
void delegate_note(char *out, size_t len, const DelegateChoice &d, int sms, const char *name,
                   const char *inner_note)
{
    if (d.rung == DELEGATE_06) {
        snprintf(out, len,
                 "%s, passed on for a short grid: 09_tile_scheduling's choice, %s, runs %ld blocks of %d rows "
                 "on %d SMs (at most a quarter); %s: %s",
                 name, d.variant09, d.blocks09, d.rows09, sms, name, inner_note ? inner_note : "");
        return;
    }
    const long waves09 = (d.blocks09 + (long)sms * d.per_sm09 - 1) / ((long)sms * d.per_sm09);
    snprintf(out, len,
             "%s, passed on by occupancy: 09_tile_scheduling's choice, %s, runs %ld blocks of %d rows "
             "at %d per SM, %ld waves on %d SMs; %s's %ld blocks of %d rows at %d per SM fit one wave; %s: %s",
             name, d.variant09, d.blocks09, d.rows09, d.per_sm09, waves09, sms, name, d.blocks, d.rows, d.per_sm, name,
             inner_note ? inner_note : "");
}

}  // namespace
