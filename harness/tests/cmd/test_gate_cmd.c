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
#include "fifo_set.h"

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

/* Every argument that can be checked without the evidence is checked before the accepted set
 * is read (three 8 MB runs on a GPU): a reference that is not there, an --evidence that is no
 * directory, a --json into a folder that is not there. The set here is a FIFO, refused by
 * name when it is read: each refusal must name the argument, never the FIFO. */
static void arguments_refused_before_the_accepted_set(void **st)
{
    (void)st;
    char root[64], err[4096], json[128], file[128];
    assert_int_equal(fifo_set_make(root), 0);
    snprintf(json, sizeof json, "%s_no_such_folder/verdicts.json", root);
    snprintf(file, sizeof file, "%s/" FIFO_SET_SLUG "/accepted.txt", root);
    const char *bad_json[] = { "gate", DATA "same.json", "--against", "accepted", "--evidence", root,
                               "--json", json, CFG };
    const char *bad_ref[] = { "gate", DATA "same.json", "--against", DATA "nope.json", "--evidence", root, CFG };
    const char *dir_ref[] = { "gate", DATA "same.json", "--against", DATA, "--evidence", root, CFG };
    const char *bad_root[] = { "gate", DATA "same.json", "--against", "accepted", "--evidence", file, CFG };
    fifo_set_refuses(cmd_gate, bad_json, 10, "--json");
    fifo_set_refuses(cmd_gate, bad_ref, 8, "nope.json");
    fifo_set_refuses(cmd_gate, dir_ref, 8, "--against");
    fifo_set_refuses(cmd_gate, bad_root, 8, "--evidence");
    /* and the set is read when the arguments are right: the FIFO refused by name */
    const char *good[] = { "gate", DATA "same.json", "--against", "accepted", "--evidence", root, CFG };
    assert_int_equal(fifo_set_run(cmd_gate, good, 8, err, sizeof err), EXIT_BAD_INPUT);
    assert_non_null(strstr(err, FIFO_SET_RUN));
    fifo_set_remove(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(command_exit_status_and_json),
        cmocka_unit_test(arguments_refused_before_the_accepted_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
