/* core/half.c: binary16 <-> binary32 by bit manipulation, so the result is the same on every
 * host and compiler (no reliance on _Float16 or F16C being available). */
#include "core/half.h"

#include <string.h>

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Rounds m >> shift to nearest, ties to even. */
static uint32_t shift_rne(uint32_t m, unsigned shift)
{
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    return q + (rem > half || (rem == half && (q & 1u)));
}

uint16_t half_from_float(float f)
{
    uint32_t x = bits_of(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t a = x & 0x7fffffffu;

    if (a >= 0x7f800000u) {                       /* Inf, or NaN kept NaN (quieted) */
        if (a == 0x7f800000u) return sign | 0x7c00u;
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    }
    if (a >= 0x477ff000u) return sign | 0x7c00u;  /* >= 65520: ties to even give 2^16 */
    if (a >= 0x38800000u) {                       /* normal half: rebias, round 13 bits */
        /* a carry out of the mantissa correctly bumps the exponent */
        return (uint16_t)(sign | shift_rne(a - 0x38000000u, 13));
    }
    if (a <= 0x33000000u) return sign;            /* <= 2^-25 rounds to (signed) zero */
    /* subnormal half: value / 2^-24, rounded; 0x400 (the smallest normal) may result */
    uint32_t m = (a & 0x7fffffu) | 0x800000u;
    unsigned e = a >> 23;                          /* 102 .. 112 here */
    return (uint16_t)(sign | shift_rne(m, 126u - e));
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return float_of(sign | 0x7f800000u | (m << 13));   /* Inf, NaN */
    if (e == 0) {                                                      /* zero, subnormal */
        float v = (float)m * 0x1.0p-24f;                               /* exact */
        return sign ? -v : v;
    }
    return float_of(sign | ((e + 112u) << 23) | (m << 13));
}
