/* Loader: a good object loads; a wrong ABI version, a missing symbol, a NULL entry
 * point and a missing file are refused with a message naming the file and the fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "measure/loader.h"

static char path[512];

static const char *fixture(const char *name)
{
    const char *dir = getenv("ATTN_FIXTURES");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "build/fixtures", name);
    return path;
}

static void good_object_loads(void **st)
{
    (void)st;
    loaded_impl im;
    char err[512] = "";
    assert_int_equal(loader_open(fixture("good_phase.so"), IMPL_PHASE, &im, err, sizeof err), 0);
    assert_string_equal(im.ph->name, "fixture_good");
    attn_shape s = { 1, 1, 4, 4, 64, 0, 0.125f };
    assert_null(im.ph->unsupported(&s));
    s.head_dim = 96;
    assert_string_equal(im.ph->unsupported(&s), "only D=64");
    loader_close(&im);
    assert_null(im.dl);
}

static void refuses(const char *name, const char *words)
{
    loaded_impl im;
    char err[512] = "";
    assert_int_equal(loader_open(fixture(name), IMPL_PHASE, &im, err, sizeof err), -1);
    assert_non_null(strstr(err, name));
    assert_non_null(strstr(err, words));
}

static void wrong_version_refused(void **st) { (void)st; refuses("abi2_phase.so", "abi_version 2"); }
static void missing_symbol_refused(void **st) { (void)st; refuses("no_symbol.so", "does not export attn_phase_entry"); }
static void null_entry_refused(void **st) { (void)st; refuses("null_run.so", "attn_phase_entry.run is NULL"); }
static void missing_file_refused(void **st) { (void)st; refuses("absent.so", "cannot load"); }

/* The launch floor is loaded by its own symbol: an object that exports only the phase
 * symbol is no floor, and a phase loader never picks up the floor. */
static void floor_has_its_own_symbol(void **st)
{
    (void)st;
    loaded_impl im;
    char err[512];
    assert_int_equal(loader_open(fixture("good_phase.so"), IMPL_FLOOR, &im, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not export attn_launch_floor_entry"));
}

static void unreadable_build_dir(void **st)
{
    (void)st;
    loaded_impl *impls = NULL;
    size_t n = 7;
    char err[512] = "";
    assert_int_equal(loader_open_all("/nonexistent/build", &impls, &n, err, sizeof err), -1);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err, "/nonexistent/build/phases"));
    assert_non_null(strstr(err, "cannot read the build directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_object_loads),
        cmocka_unit_test(wrong_version_refused),
        cmocka_unit_test(missing_symbol_refused),
        cmocka_unit_test(null_entry_refused),
        cmocka_unit_test(missing_file_refused),
        cmocka_unit_test(floor_has_its_own_symbol),
        cmocka_unit_test(unreadable_build_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
