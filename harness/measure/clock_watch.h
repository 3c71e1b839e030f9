/* measure/clock_watch.h: the SM clock and the clock-event (throttle) reasons read through
 * NVML (the driver's libnvidia-ml.so.1, loaded at run time) after every timed sample, so a
 * sample taken while the GPU held its clocks down can be discarded and counted instead of
 * averaged in; and, in the run's snapshots (device_info.h), NVML's violation counters,
 * which add up how long each limit held the clocks down where an instant's reasons can
 * miss it (evidence/SCHEMA.md, Clocks). */
#ifndef ATTNLADDER_MEASURE_CLOCK_WATCH_H
#define ATTNLADDER_MEASURE_CLOCK_WATCH_H
#include <stddef.h>
#include <jansson.h>

typedef struct clock_watch clock_watch;

/* The limits whose violation counters a snapshot reads, in clock_violation_name order. */
enum { CLOCK_LIMIT_POWER, CLOCK_LIMIT_THERMAL, CLOCK_LIMIT_BOARD, CLOCK_LIMIT_RELIABILITY, CLOCK_LIMITS };

typedef struct {
    unsigned sm_mhz, mem_mhz, temp_c;
    double power_w;
    unsigned long long reasons;    /* nvmlClocksEventReason* bits */
    /* NVML's violation counters: nanoseconds each limit has held the clocks below their
     * application clocks since the driver loaded. The reasons above are the instant the
     * snapshot is taken; two snapshots' counters say how long over the time between.
     * have_violation 0: the driver does not give them (the entry point or a limit). */
    int have_violation;
    unsigned long long violation_ns[CLOCK_LIMITS];
} clock_reading;

/* "power", "thermal", "board_limit", "reliability": the keys of a snapshot's
 * violation_ns; NULL past the last. */
const char *clock_violation_name(int limit);

/* NVML opened for the current CUDA device; NULL with `why` when it cannot be (no
 * libnvidia-ml.so.1, an entry point missing, a device NVML does not know). */
clock_watch *clock_watch_open(char *why, size_t len);
/* The SM clock and the reasons now (the two calls made after each sample). 0, or -1. */
int clock_watch_sample(clock_watch *w, unsigned *sm_mhz, unsigned long long *reasons);
/* Everything, for the run's before/after snapshot (the violation counters where the
 * driver gives them: have_violation). 0, or -1. */
int clock_watch_read(clock_watch *w, clock_reading *r);
void clock_watch_close(clock_watch *w);

/* What to do with a sample the clock watch saw throttled: a sample taken while a reason
 * in discard_mask held is discarded and counted; once more than discard_limit of the
 * samples taken (and at least 10) are discarded, sampling stops and the measurement is
 * marked throttled. watch NULL: the clock is not read. */
typedef struct {
    clock_watch *watch;
    unsigned long long discard_mask;
    double discard_limit;
} clock_policy;

/* The tally of one measurement. */
typedef struct {
    size_t discarded, power_capped;   /* power_capped: kept samples under the software power cap */
    unsigned long long seen;          /* every reason bit read */
} clock_tally;

/* Reads the clock after a sample: 1 to discard it (counted), 0 to keep it (its SM clock
 * in *mhz, 0 when not read). */
int clock_tally_sample(const clock_policy *p, clock_tally *t, unsigned *mhz);
/* The decision alone, on reasons read: 1 discard (counted), 0 keep. */
int clock_tally_add(const clock_policy *p, clock_tally *t, unsigned long long reasons);
/* 1 when the discards are past the policy's limit, with `kept` samples kept. */
int clock_tally_over(const clock_policy *p, const clock_tally *t, size_t kept);

/* The reason bits a discard policy names: "thermal" (hw_slowdown, sw_thermal, hw_thermal,
 * hw_power_brake: the GPU protecting itself), "power" (those and sw_power_cap), "none".
 * 0 and the mask, or -1 for another name. */
int clock_discard_parse(const char *name, unsigned long long *mask);
const char *clock_discard_name(unsigned long long mask);

/* The names of the reason bits set in mask, as a JSON array of strings (new reference). */
json_t *clock_reasons_json(unsigned long long mask);
/* The bit of one of those names ("sw_power_cap", ...): 0 and the bit, or -1 for a name
 * this build does not know. */
int clock_reason_parse(const char *name, unsigned long long *bit);
#endif
