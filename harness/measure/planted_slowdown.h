/* measure/planted_slowdown.h: the gate's planted slowdown, a test-only switch.
 * Only a harness built with -DATTN_TEST_SWITCHES (build/attnladder-test, never the
 * attnladder that `make run` uses) reads ATTN_PLANT="NAME:NANOSECONDS": every timed
 * run() of implementation NAME is followed by a spin kernel of that many nanoseconds
 * (build/testing/plant_delay.so). It measures whether the regression gate catches a
 * real slowdown of known size. */
#ifndef ATTNLADDER_PLANT_H
#define ATTNLADDER_PLANT_H
#include "attn_phase.h"

/* ph itself, or (test builds, when ATTN_PLANT names ph) a copy whose run adds the delay. */
const attn_phase *plant_wrap(const attn_phase *ph);
/* The active switch as text for the evidence, or NULL (always NULL in normal builds). */
const char *plant_describe(void);

#endif
