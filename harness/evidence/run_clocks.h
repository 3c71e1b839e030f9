/* evidence/run_clocks.h: what a run's clocks say of its numbers, read when a run is opened
 * (reader.c): run_data.clocks and cap_basis from context.throttled, the clock snapshots (a
 * resumed run's segments' too), NVML's violation counters between them (violation_s) and
 * the per-sample clock watch of every measurement (watched, watched_capped,
 * sample_reasons). The rules are clock_state's, in run_clocks.c; SCHEMA.md, Clocks. */
#ifndef ATTNLADDER_EVIDENCE_RUN_CLOCKS_H
#define ATTNLADDER_EVIDENCE_RUN_CLOCKS_H
#include <jansson.h>
#include "evidence/reader.h"

/* Fills r's clock fields from its document (r->doc) and context ctx; r->results and
 * r->throttled are read first (a throttled result makes the run throttled). */
void run_read_clocks(run_data *r, json_t *ctx);

#endif
