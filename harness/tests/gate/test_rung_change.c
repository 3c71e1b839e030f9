/* test_rung_change.c: which rungs count as changed from the records beside their binaries
 * (a rung's own sources, its binary alone, a toolchain change that moves every binary, a
 * shared header, a missing record), and malformed records refused with the file named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "gate/rung_change.h"

#define H(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
static const char *const PATHS[4] = { "base/11.so.sha256", "head/11.so.sha256", "base/11.sources.sha256",
                                      "head/11.sources.sha256" };
#define SO_A H("a") "  11_split_keys.so\n"
#define SO_B H("b") "  11_split_keys.so\n"
#define SRC_A H("1") "  harness/include/attn_phase.h\n" H("2") "  phases/11_split_keys/split_choice.cuh\n"
#define SRC_RULE H("1") "  harness/include/attn_phase.h\n" H("3") "  phases/11_split_keys/split_choice.cuh\n"
#define SRC_ABI H("4") "  harness/include/attn_phase.h\n" H("2") "  phases/11_split_keys/split_choice.cuh\n"

static rung_change classify(const char *bso, const char *hso, const char *bsrc, const char *hsrc)
{
    rung_change c;
    char err[512] = "";
    int rc = rung_change_of_texts(bso, hso, bsrc, hsrc, PATHS, "11_split_keys", &c, err, sizeof err);
    if (rc) fail_msg("refused: %s", err);
    return c;
}

static void own_source_is_a_sweep(void **st)
{
    (void)st;
    rung_change c[2] = { classify(SO_A, SO_B, SRC_A, SRC_RULE), classify(SO_A, SO_A, SRC_A, SRC_A) };
    assert_int_equal(c[0].kind, RUNG_OWN_SOURCES);
    assert_string_equal(c[0].first_diff, "phases/11_split_keys/split_choice.cuh");
    assert_int_equal(c[1].kind, RUNG_SAME);
    assert_int_equal(rung_changes_decide(c, 2), 0);
    assert_true(c[0].sweep);
    assert_false(c[1].sweep);
}

/* a source only one build has (a file added to the rung) is a difference too */
static void added_file_is_a_difference(void **st)
{
    (void)st;
    rung_change c = classify(SO_A, SO_A, SRC_A, SRC_A H("5") "  phases/11_split_keys/new_rule.cuh\n");
    assert_int_equal(c.kind, RUNG_OWN_SOURCES);
    assert_string_equal(c.first_diff, "phases/11_split_keys/new_rule.cuh");
}

/* one rung's binary alone (its flags in build.mk): swept; every rung's: a toolchain change */
static void binary_alone(void **st)
{
    (void)st;
    rung_change one[2] = { classify(SO_A, SO_B, SRC_A, SRC_A), classify(SO_A, SO_A, SRC_A, SRC_A) };
    assert_int_equal(one[0].kind, RUNG_BINARY);
    assert_int_equal(rung_changes_decide(one, 2), 0);
    assert_true(one[0].sweep);
    rung_change all[3] = { classify(SO_A, SO_B, SRC_A, SRC_A), classify(SO_A, SO_B, SRC_A, SRC_A),
                           classify(SO_A, SO_B, SRC_A, SRC_A) };
    assert_int_equal(rung_changes_decide(all, 3), 1);
    for (int i = 0; i < 3; i++) assert_false(all[i].sweep);
    char why[256];
    assert_non_null(strstr(rung_change_why(&all[0], 1, why, sizeof why), "toolchain"));
}

/* a rule changed in one rung and the compiler moved every other rung's binary (or the two
 * builds are not byte-for-byte reproducible): the rule's rung is swept, the others keep
 * their code paths, not 58 points each */
static void rule_beside_a_toolchain_change(void **st)
{
    (void)st;
    rung_change c[3] = { classify(SO_A, SO_B, SRC_A, SRC_RULE), classify(SO_A, SO_B, SRC_A, SRC_A),
                         classify(SO_A, SO_B, SRC_A, SRC_A) };
    assert_int_equal(rung_changes_decide(c, 3), 1);
    assert_true(c[0].sweep);
    assert_false(c[1].sweep);
    assert_false(c[2].sweep);
}

/* the ABI header changed: a harness change (code paths), unless a rung's own file did too */
static void shared_header_is_wide(void **st)
{
    (void)st;
    rung_change c[2] = { classify(SO_A, SO_B, SRC_A, SRC_ABI),
                         classify(SO_A, SO_B, SRC_A, H("4") "  harness/include/attn_phase.h\n" H("3")
                                  "  phases/11_split_keys/split_choice.cuh\n") };
    assert_int_equal(c[0].kind, RUNG_SHARED_SOURCES);
    assert_int_equal(c[1].kind, RUNG_OWN_SOURCES);
    assert_string_equal(c[1].first_diff, "phases/11_split_keys/split_choice.cuh");
    assert_int_equal(rung_changes_decide(c, 2), 1);
    assert_false(c[0].sweep);
    assert_true(c[1].sweep);
}

static void missing_record_counts_as_changed(void **st)
{
    (void)st;
    rung_change c[2] = { classify(SO_A, NULL, SRC_A, SRC_A), classify(SO_A, SO_A, SRC_A, SRC_A) };
    assert_int_equal(c[0].kind, RUNG_NO_RECORD);
    assert_string_equal(c[0].first_diff, "head");
    rung_changes_decide(c, 2);
    assert_true(c[0].sweep);
}

static void refused(const char *bso, const char *hso, const char *bsrc, const char *hsrc, const char *want)
{
    rung_change c;
    char err[512] = "";
    assert_int_equal(rung_change_of_texts(bso, hso, bsrc, hsrc, PATHS, "11_split_keys", &c, err, sizeof err), -1);
    if (!strstr(err, want)) fail_msg("expected '%s' in: %s", want, err);
}

static void malformed_records_refused(void **st)
{
    (void)st;
    refused("zz  11_split_keys.so\n", SO_A, SRC_A, SRC_A, "base/11.so.sha256: line 1");
    refused(SO_A, H("A") "  11_split_keys.so\n", SRC_A, SRC_A, "head/11.so.sha256: line 1: the sha256");
    refused(SO_A, H("a") "  10_latency.so\n", SRC_A, SRC_A, "head/11.so.sha256: expected one line naming 11_split_keys.so");
    refused(SO_A, SO_A SO_A, SRC_A, SRC_A, "head/11.so.sha256: expected one line");
    refused(SO_A, SO_A, "", SRC_A, "base/11.sources.sha256: empty");
    refused(SO_A, SO_A, SRC_A, H("1") "  ../../etc/passwd\n", "head/11.sources.sha256: line 1: the path");
    refused(SO_A, SO_A, SRC_A, H("1") "  /etc/passwd\n", "head/11.sources.sha256: line 1");
    refused(SO_A, SO_A, SRC_A, SRC_A H("1") " phases/x\n", "head/11.sources.sha256: line 3");
    refused(SO_A, SO_A, SRC_A "garbage\n", SRC_A, "base/11.sources.sha256: line 3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_source_is_a_sweep),
        cmocka_unit_test(added_file_is_a_difference),
        cmocka_unit_test(binary_alone),
        cmocka_unit_test(rule_beside_a_toolchain_change),
        cmocka_unit_test(shared_header_is_wide),
        cmocka_unit_test(missing_record_counts_as_changed),
        cmocka_unit_test(malformed_records_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
