/* core/half.h: IEEE binary16 <-> float conversion on the host.
 * The harness is C11 and cuda_fp16.h is C++ only, so the conversion lives here:
 * round-to-nearest-even, subnormals, infinities and NaN handled exactly. */
#ifndef ATTNLADDER_HALF_H
#define ATTNLADDER_HALF_H
#include <stdint.h>

uint16_t half_from_float(float f);
float half_to_float(uint16_t h);
/* the bit pattern the harness poisons outputs with (a quiet NaN) */
#define HALF_POISON ((uint16_t)0xFFFFu)

#endif
