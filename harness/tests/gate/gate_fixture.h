/* gate_fixture.h: for the gate's unit tests, the test copy of ci/gate.json and the
 * reference run of the synthetic evidence of harness/tests/data/gate/
 * (ci/tools/make_fixtures.py says what each file holds), opened before each test and
 * closed after it, with the run under test beside them. */
#ifndef ATTNLADDER_TESTS_GATE_FIXTURE_H
#define ATTNLADDER_TESTS_GATE_FIXTURE_H
#include <stdio.h>
#include <stdlib.h>
#include "gate/config.h"
#include "evidence/reader.h"

#define DATA "harness/tests/data/gate/"
#define CONFIG "harness/tests/data/gate_config.json"   /* ci/gate.json when the tests were written */

typedef struct {
    gate_config cfg;
    run_data ref;
    run_data run;        /* the run under test: the checks borrow its names */
} fixture;

static int setup(void **st)
{
    fixture *f = calloc(1, sizeof *f);
    char err[1024];
    if (!f || gate_config_load(CONFIG, &f->cfg, err, sizeof err) ||
        run_open(&f->ref, DATA "ref.json", err, sizeof err)) {
        fprintf(stderr, "setup: %s\n", err);
        return -1;
    }
    *st = f;
    return 0;
}

static int teardown(void **st)
{
    fixture *f = *st;
    run_close(&f->run);
    run_close(&f->ref);
    gate_config_free(&f->cfg);
    free(f);
    return 0;
}
#endif
