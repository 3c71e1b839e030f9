/* test_gate_cmd.c: the `gate` command (cmd_gate) on the synthetic evidence of
 * harness/tests/data/gate/: its exit status for a pass, a failure and each bad input, and
 * the JSON it writes with --json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>
#include "cmd/commands.h"

#define DATA "harness/tests/data/gate/"
#define CONFIG "harness/tests/data/gate_config.json"   /* ci/gate.json when the tests were written */

static int run_cmd(const char *const *args, int n)
{
    char *argv[16];
    for (int i = 0; i < n; i++) argv[i] = (char *)args[i];
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = cmd_gate(n, argv);
    fclose(stdout);
    stdout = saved;
    return rc;
}

static void command_exit_status_and_json(void **st)
{
    (void)st;
#define CFG "--config", CONFIG
    const char *pass[] = { "gate", DATA "same.json", "--against", DATA "ref.json", CFG };
    const char *fail[] = { "gate", DATA "slow.json", "--against", DATA "ref.json", "--brief", CFG };
    const char *bad1[] = { "gate", DATA "missing_baseline.json", CFG };
    const char *bad2[] = { "gate", DATA "other_gpu.json", "--against", DATA "ref.json", CFG };
    const char *bad3[] = { "gate", DATA "partial.json", CFG };
    const char *bad4[] = { "gate", DATA "ref.json", "--config", DATA "nope.json" };
    const char *bad5[] = { "gate", DATA "ref.json", "--frobnicate" };
    const char *okp[] = { "gate", DATA "partial.json", "--include-partial", CFG };
    assert_int_equal(run_cmd(pass, 6), EXIT_OK);
    assert_int_equal(run_cmd(fail, 7), EXIT_GATE);
    assert_int_equal(run_cmd(bad1, 4), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(bad2, 6), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(bad3, 4), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(bad4, 4), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(bad5, 3), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(okp, 5), EXIT_OK);
    char json[] = "/tmp/attn_gate_XXXXXX";
    int fd = mkstemp(json);
    assert_true(fd >= 0);
    close(fd);
    const char *withjson[] = { "gate", DATA "slow.json", "--against", DATA "ref.json", "--json", json, CFG };
    assert_int_equal(run_cmd(withjson, 8), EXIT_GATE);
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    unlink(json);
    assert_non_null(j);
    assert_true(json_is_false(json_object_get(j, "pass")));
    assert_true(json_integer_value(json_object_get(j, "failures")) > 0);
    json_t *reg = json_object_get(j, "regression");
    size_t i, slower = 0;
    json_t *v;
    json_array_foreach(reg, i, v) {
        const char *verdict = json_string_value(json_object_get(v, "verdict"));
        if (verdict && !strcmp(verdict, "slower")) {
            slower++;
            assert_string_equal(json_string_value(json_object_get(v, "phase")), "05_warp_specialized");
            assert_true(json_real_value(json_object_get(json_object_get(v, "change"), "ci_lo")) > 1.1);
        }
    }
    assert_true(slower > 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "rule"), "method")), "drift");
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(command_exit_status_and_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
