/* The planted slowdown is a test-only switch: in a normal build ATTN_PLANT changes
 * nothing, the implementation is returned as it is and the evidence records no plant. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>
#include "measure/planted_slowdown.h"

static int run_stub(void *st, const attn_args *a) { (void)st; (void)a; return 0; }

static void inactive_in_normal_builds(void **st)
{
    (void)st;
    attn_phase ph = { 1, "01_scalar", "t", NULL, NULL, NULL, run_stub, NULL, NULL };
    setenv("ATTN_PLANT", "01_scalar:12000", 1);
    assert_ptr_equal(plant_wrap(&ph), &ph);
    assert_ptr_equal(plant_wrap(&ph)->run, run_stub);
    assert_null(plant_describe());
    unsetenv("ATTN_PLANT");
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(inactive_in_normal_builds) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
