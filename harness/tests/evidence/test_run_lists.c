/* test_run_lists.c: <gpu>/reference.txt, the GPU's reference run
 * (harness/evidence/run_lists.h, reference_run_of): one line naming a complete run of that folder,
 * anything else refused with the file named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/run_lists.h"

static char g_dir[] = "/tmp/test_run_lists.XXXXXX";

static void write_ref(const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/reference.txt", g_dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int lookup(char *name, char *path, char *err)
{
    return reference_run_of(g_dir, name, 256, path, 512, err, 1024);
}

static void named_run_is_returned(void **st)
{
    (void)st;
    char name[256], path[512], err[1024], want[512];
    const char *texts[] = { "20260101T000000Z_aaaaaaa.json\n", "20260101T000000Z_aaaaaaa.json",
                            "  20260101T000000Z_aaaaaaa.json \r\n" };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        write_ref(texts[i]);
        assert_int_equal(lookup(name, path, err), 1);
        assert_string_equal(name, "20260101T000000Z_aaaaaaa.json");
        snprintf(want, sizeof want, "%s/20260101T000000Z_aaaaaaa.json", g_dir);
        assert_string_equal(path, want);
    }
}

static void missing_file_is_no_reference(void **st)
{
    (void)st;
    char name[256], path[512], err[1024] = "", p[256];
    snprintf(p, sizeof p, "%s/reference.txt", g_dir);
    unlink(p);
    assert_int_equal(lookup(name, path, err), 0);
    assert_non_null(strstr(err, "reference.txt"));
}

static void bad_contents_are_refused(void **st)
{
    (void)st;
    const char *bad[] = {
        "",                                                               /* empty */
        "\n\n",                                                           /* blank */
        "20260101T000000Z_aaaaaaa.json\n20260102T000000Z_bbbbbbb.json\n", /* two runs */
        "20260101T000000Z_aaaaaaa.partial.json\n",                        /* partial */
        "../20260101T000000Z_aaaaaaa.json\n",                             /* outside */
        "x/20260101T000000Z_aaaaaaa.json\n",
        ".20260101T000000Z_aaaaaaa.json\n",
        "tuning_06_tiling.json\n",                                        /* not a run */
        "20260101T000000Z_a b;c.json\n",                                   /* not a safe name */
        "# the reference\n20260101T000000Z_aaaaaaa.json\n",               /* not one line */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[256] = "", path[512] = "", err[1024] = "";
        write_ref(bad[i]);
        if (lookup(name, path, err) != -1) fail_msg("accepted '%s'", bad[i]);
        if (!strstr(err, "reference.txt")) fail_msg("'%s': the error does not name the file: %s", bad[i], err);
    }
    char name[256], path[512], err[1024];
    char longname[600];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    memcpy(longname, "20260101T000000Z_", 17);
    write_ref(longname);
    assert_int_equal(lookup(name, path, err), -1);
    /* a NUL byte hides what follows it from a string reader: a second line behind one */
    static const char hidden[] = "20260101T000000Z_aaaaaaa.json\n\0" "20260102T000000Z_bbbbbbb.json\n";
    char p[256];
    snprintf(p, sizeof p, "%s/reference.txt", g_dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(hidden, 1, sizeof hidden - 1, f), sizeof hidden - 1);
    fclose(f);
    assert_int_equal(lookup(name, path, err), -1);
    assert_non_null(strstr(err, "reference.txt"));
}

int main(void)
{
    if (!mkdtemp(g_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_run_is_returned),
        cmocka_unit_test(missing_file_is_no_reference),
        cmocka_unit_test(bad_contents_are_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char p[256];
    snprintf(p, sizeof p, "%s/reference.txt", g_dir);
    unlink(p);
    rmdir(g_dir);
    return rc;
}
