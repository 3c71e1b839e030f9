/* test_clock_watch.c: which samples the clock watch discards (by the reasons NVML gives
 * after them), what it counts, and when a measurement is past its discard limit; the
 * reasons' names read back as their bits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "measure/clock_watch.h"
#include "measure/nvml_shim.h"

static clock_policy policy(const char *name, double limit)
{
    clock_policy p = { NULL, 0, limit };
    assert_int_equal(clock_discard_parse(name, &p.discard_mask), 0);
    return p;
}

static void thermal_discards_slowdowns_and_counts_the_power_cap(void **st)
{
    (void)st;
    clock_policy p = policy("thermal", 0.25);
    clock_tally t = { 0 };
    assert_int_equal(clock_tally_add(&p, &t, 0), 0);
    assert_int_equal(clock_tally_add(&p, &t, NVML_REASON_SW_POWER_CAP), 0);
    assert_int_equal(clock_tally_add(&p, &t, NVML_REASON_HW_SLOWDOWN), 1);
    assert_int_equal(clock_tally_add(&p, &t, NVML_REASON_SW_THERMAL | NVML_REASON_SW_POWER_CAP), 1);
    assert_int_equal(clock_tally_add(&p, &t, NVML_REASON_HW_THERMAL), 1);
    assert_int_equal(clock_tally_add(&p, &t, NVML_REASON_HW_POWER_BRAKE), 1);
    assert_int_equal(clock_tally_add(&p, &t, NVML_REASON_GPU_IDLE | NVML_REASON_APP_CLOCKS), 0);
    assert_int_equal(t.discarded, 4);
    assert_int_equal(t.power_capped, 1);   /* only kept samples count as power-capped */
    assert_true(t.seen & NVML_REASON_HW_POWER_BRAKE);
}

static void power_discards_the_cap_too_and_none_nothing(void **st)
{
    (void)st;
    clock_policy p = policy("power", 0.25), q = policy("none", 0.25);
    clock_tally t = { 0 }, u = { 0 };
    assert_int_equal(clock_tally_add(&p, &t, NVML_REASON_SW_POWER_CAP), 1);
    assert_int_equal(clock_tally_add(&q, &u, NVML_REASON_HW_SLOWDOWN), 0);
    assert_int_equal(u.discarded, 0);
    unsigned long long m;
    assert_int_equal(clock_discard_parse("throttled", &m), -1);
    assert_string_equal(clock_discard_name(p.discard_mask), "power");
    assert_string_equal(clock_discard_name(q.discard_mask), "none");
}

static void the_limit_needs_ten_discards_and_the_fraction(void **st)
{
    (void)st;
    clock_policy p = policy("thermal", 0.25);
    clock_tally t = { .discarded = 9 };
    assert_false(clock_tally_over(&p, &t, 0));      /* 9 of 9, but fewer than 10 */
    t.discarded = 10;
    assert_true(clock_tally_over(&p, &t, 29));      /* 10 of 39 > 25% */
    assert_false(clock_tally_over(&p, &t, 30));     /* 10 of 40 = 25%: not past it */
    assert_false(clock_tally_over(&p, &t, 100));
}

static void without_a_watch_nothing_is_read_or_discarded(void **st)
{
    (void)st;
    clock_policy p = policy("power", 0.25);
    clock_tally t = { 0 };
    unsigned mhz = 123;
    assert_int_equal(clock_tally_sample(&p, &t, &mhz), 0);
    assert_int_equal(mhz, 0);
    assert_int_equal(t.discarded, 0);
}

/* Every name the run writes reads back as its bit (a run's snapshots are read by these
 * names); another name is not a reason. */
static void reason_names_read_back(void **st)
{
    (void)st;
    for (unsigned b = 0; b < 64; b++) {
        json_t *names = clock_reasons_json(1ull << b);
        assert_non_null(names);
        if (json_array_size(names) == 1) {
            unsigned long long bit = 0;
            assert_int_equal(clock_reason_parse(json_string_value(json_array_get(names, 0)), &bit), 0);
            assert_true(bit == 1ull << b);
        }
        json_decref(names);
    }
    unsigned long long bit = 0;
    assert_int_equal(clock_reason_parse("sw_power_cap", &bit), 0);
    assert_true(bit == NVML_REASON_SW_POWER_CAP);
    assert_int_equal(clock_reason_parse("thermal", &bit), -1);
    assert_int_equal(clock_reason_parse("", &bit), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thermal_discards_slowdowns_and_counts_the_power_cap),
        cmocka_unit_test(power_discards_the_cap_too_and_none_nothing),
        cmocka_unit_test(the_limit_needs_ten_discards_and_the_fraction),
        cmocka_unit_test(without_a_watch_nothing_is_read_or_discarded),
        cmocka_unit_test(reason_names_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
