/* test_config.c: ci/gate.json parsing (gate/config.h): the committed file and the test
 * copy parse, and each malformed or retired field is refused with the field and the
 * file named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include "gate/config.h"

#define CONFIG "harness/tests/data/gate_config.json"   /* ci/gate.json when the tests were written */

static void config_parsing(void **st)
{
    (void)st;
    gate_config c;
    char err[512];
    /* the committed config parses; the numbers below are the test copy's */
    assert_int_equal(gate_config_load("ci/gate.json", &c, err, sizeof err), 0);
    gate_config_free(&c);
    assert_int_equal(gate_config_load(CONFIG, &c, err, sizeof err), 0);
    assert_string_equal(c.baseline, "sdpa_cudnn");
    assert_int_equal(c.n_headline, 2);
    assert_int_equal(c.headline[1].causal, 1);
    assert_non_null(gate_config_bound(&c, "06_tiling"));
    assert_null(gate_config_bound(&c, "07_none"));
    assert_int_equal(c.reg.all_shapes, 1);
    gate_config_free(&c);
    static const struct { const char *json, *words; } bad[] = {
        { "[]", "not a JSON object" },
        { "{\"headline\": [[1,8,512,512,64,0]], \"bounds\": {}}", "baseline" },
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512]], \"bounds\": {}}", "headline[0]" },
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512,512,64,0]], \"bounds\": {\"x\": {}}}",
          "bounds.x.ratio_max" },
        /* the two-run rule's own parameters are gone: a config naming one is refused */
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512,512,64,0]], \"bounds\": {},"
          " \"regression\": {\"method\": \"ratio_ci\"}}", "regression.method: no longer read" },
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512,512,64,0]], \"bounds\": {},"
          " \"regression\": {\"tolerance\": 0.05}}", "regression.tolerance: no longer read" },
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512,512,64,0]], \"bounds\": {},"
          " \"regression\": {\"ci_level\": 2}}", "regression.ci_level" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = json_loads(bad[i].json, 0, NULL);
        assert_non_null(j);
        assert_int_equal(gate_config_from_json(j, "cfg.json", &c, err, sizeof err), -1);
        if (!strstr(err, bad[i].words) || !strstr(err, "cfg.json")) fail_msg("'%s' -> '%s'", bad[i].json, err);
        json_decref(j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_parsing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
