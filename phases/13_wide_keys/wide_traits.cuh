// wide_traits.cuh: what rung 09's kernel needs to run on 192-key K/V tiles at D = 64, given
// to its templates from outside (rung 09 is frozen): the S product 192 keys wide as one
// wgmma (m64n192k16, a valid N: a multiple of 8 up to 256) behind rung 09's S wrapper
// (mma_ss, specialised for N = 192); the tile sizes, shared memory and register split of
// the kernel (Cfg, specialised for two consumer warpgroups at D = 64); and no chaining of
// work tiles (chained(), specialised), which measured slower in the two-warpgroup kernel
// (README, round 1). Included after rung 09's kernel_traits.cuh, before its mainloop.cuh.
#pragma once

namespace hopper {

constexpr int WIDE_N = 192;

// D[64 x 192] (+)= A[64 x 16] * B[16 x 192], A and B K-major in shared memory.
template <bool FRESH>
__device__ __forceinline__ void mma_ss_wide(float (&d)[96], uint64_t a_desc, uint64_t b_desc, int accumulate)
{
    if constexpr (FRESH)
        asm volatile(
            "{\n .reg .pred p;\n setp.ne.b32 p, %98, 0;\n"
            " wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95},"
            " %96, %97, p, 1, 1, 0, 0;\n}\n"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]), "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]), "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31]), "=f"(d[32]), "=f"(d[33]), "=f"(d[34]), "=f"(d[35]), "=f"(d[36]), "=f"(d[37]), "=f"(d[38]), "=f"(d[39]), "=f"(d[40]), "=f"(d[41]), "=f"(d[42]), "=f"(d[43]), "=f"(d[44]), "=f"(d[45]), "=f"(d[46]), "=f"(d[47]), "=f"(d[48]), "=f"(d[49]), "=f"(d[50]), "=f"(d[51]), "=f"(d[52]), "=f"(d[53]), "=f"(d[54]), "=f"(d[55]), "=f"(d[56]), "=f"(d[57]), "=f"(d[58]), "=f"(d[59]), "=f"(d[60]), "=f"(d[61]), "=f"(d[62]), "=f"(d[63]), "=f"(d[64]), "=f"(d[65]), "=f"(d[66]), "=f"(d[67]), "=f"(d[68]), "=f"(d[69]), "=f"(d[70]), "=f"(d[71]), "=f"(d[72]), "=f"(d[73]), "=f"(d[74]), "=f"(d[75]), "=f"(d[76]), "=f"(d[77]), "=f"(d[78]), "=f"(d[79]), "=f"(d[80]), "=f"(d[81]), "=f"(d[82]), "=f"(d[83]), "=f"(d[84]), "=f"(d[85]), "=f"(d[86]), "=f"(d[87]), "=f"(d[88]), "=f"(d[89]), "=f"(d[90]), "=f"(d[91]), "=f"(d[92]), "=f"(d[93]), "=f"(d[94]), "=f"(d[95])
            : "l"(a_desc), "l"(b_desc), "n"(0));
    else
        asm volatile(
            "{\n .reg .pred p;\n setp.ne.b32 p, %98, 0;\n"
            " wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95},"
            " %96, %97, p, 1, 1, 0, 0;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
            : "l"(a_desc), "l"(b_desc), "r"(accumulate));
}

template <>
__device__ __forceinline__ void mma_ss<WIDE_N, false, 96>(float (&d)[96], uint64_t a_desc, uint64_t b_desc, int accumulate)
{
    mma_ss_wide<false>(d, a_desc, b_desc, accumulate);
}
template <>
__device__ __forceinline__ void mma_ss<WIDE_N, true, 96>(float (&d)[96], uint64_t a_desc, uint64_t b_desc, int accumulate)
{
    mma_ss_wide<true>(d, a_desc, b_desc, accumulate);
}

}  // namespace hopper

namespace {

constexpr int WK = hopper::WIDE_N;   // keys per K/V tile of this rung's kernel

// Rung 09's Cfg<D, NCONS, KN> for two consumer warpgroups at D = 64 on WK-key tiles: its
// rules (three K/V stages at D = 64; the producer keeps 40 registers, the consumers 232,
// as in rung 09's 176-key kernels, whose wide S leaves no room for 240), its KN check
// widened.
template <> struct Cfg<64, 2, WK> {
    static constexpr int BM = 128;
    static constexpr int THREADS = 384;
    static constexpr int STAGES = 3;
    static constexpr int CHUNKS = 1;
    static constexpr int Q_BYTES = BM * 64 * 2;
    static constexpr int KV_BYTES = WK * 64 * 2;
    static constexpr int TILE_BYTES = Q_BYTES + 2 * STAGES * KV_BYTES;
    static constexpr int BAR_BYTES = 8 * (2 + 4 * STAGES) + 8 + 32;
    static constexpr int SMEM = 1024 + TILE_BYTES + BAR_BYTES;
    static_assert(SMEM <= 227 * 1024, "fits the sm_90 per-block limit");
    template <bool DYN> static constexpr int REG_PRODUCER = 40;
    template <bool DYN> static constexpr int REG_CONSUMER = 232;
    static_assert((40 + 2 * 232) * 128 <= 65536, "register file");
};

// One P buffer (rung 09's rule for tiles other than 128 keys), and the work tiles not
// chained, so no split tail either (split_tail() is chained()).
template <> __host__ __device__ constexpr bool chained<64, 2, false, WK, true>() { return false; }

}  // namespace
