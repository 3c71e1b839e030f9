/* test_baseline_lib.c: a run whose baseline library differs from its reference's is
 * "baseline changed" (never drift), one lacking the version is "unknown", and the drift
 * gate does not judge (nor count as slower) a run against a set of another library. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "gate/baseline_lib.h"
#include "gate/drift_gate.h"

static run_data run_with(long cudnn, char *path)
{
    run_data r;
    memset(&r, 0, sizeof r);
    r.ctx.cudnn = cudnn;
    r.path = path;
    return r;
}

static void the_same_library_is_same(void **st)
{
    (void)st;
    run_data now = run_with(91400, "now.json"), refs[2] = { run_with(91400, "a.json"), run_with(91400, "b.json") };
    baseline_lib b = baseline_lib_of(&now, refs, 2);
    assert_int_equal(b.verdict, BASELINE_LIB_SAME);
}

static void another_version_is_changed_and_names_both(void **st)
{
    (void)st;
    run_data now = run_with(91900, "now.json"), refs[2] = { run_with(91400, "a.json"), run_with(91400, "b.json") };
    baseline_lib b = baseline_lib_of(&now, refs, 2);
    assert_int_equal(b.verdict, BASELINE_LIB_CHANGED);
    assert_int_equal(b.now, 91900);
    assert_int_equal(b.ref, 91400);
    char text[512];
    baseline_lib_text(&b, text, sizeof text);
    assert_non_null(strstr(text, "baseline changed"));
    assert_non_null(strstr(text, "9.19.0"));
    assert_non_null(strstr(text, "9.14.0"));
    assert_non_null(strstr(text, "a.json"));
    /* one run of the set on another library is enough */
    refs[0].ctx.cudnn = 91900;
    assert_int_equal(baseline_lib_of(&now, refs, 2).verdict, BASELINE_LIB_CHANGED);
}

static void a_missing_version_is_unknown(void **st)
{
    (void)st;
    run_data now = run_with(-1, "now.json"), refs[1] = { run_with(91400, "a.json") };
    assert_int_equal(baseline_lib_of(&now, refs, 1).verdict, BASELINE_LIB_UNKNOWN);
    now.ctx.cudnn = 91400;
    refs[0].ctx.cudnn = -1;
    baseline_lib b = baseline_lib_of(&now, refs, 1);
    assert_int_equal(b.verdict, BASELINE_LIB_UNKNOWN);
    char text[512];
    baseline_lib_text(&b, text, sizeof text);
    assert_non_null(strstr(text, "baseline library unknown"));
    /* a known difference outweighs an unknown elsewhere in the set */
    run_data two[2] = { run_with(-1, "a.json"), run_with(90800, "b.json") };
    assert_int_equal(baseline_lib_of(&now, two, 2).verdict, BASELINE_LIB_CHANGED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_same_library_is_same),
        cmocka_unit_test(another_version_is_changed_and_names_both),
        cmocka_unit_test(a_missing_version_is_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
