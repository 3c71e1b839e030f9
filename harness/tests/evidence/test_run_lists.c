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

#include "evidence/reader.h"
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

/* A run is never its own reference, whichever form names it: the set lists the committed
 * X.json.gz, and `gate X.json --against accepted` (the run as the GPU wrote it, before it
 * was compressed) must leave X out of the set it is judged against. */
static void a_run_is_left_out_of_its_set_in_either_form(void **st)
{
    (void)st;
    static const char *const runs[] = { "20261122T113359Z_e46f08b.json.gz", "20261123T082246Z_27d5592.json.gz" };
    char dir[512], cmd[2048], p[600];
    snprintf(dir, sizeof dir, "%s/nvidia-h100-80gb-hbm3", g_dir);   /* a run belongs under its slug */
    snprintf(cmd, sizeof cmd, "mkdir -p %s && cp evidence/nvidia-h100-80gb-hbm3/%s evidence/nvidia-h100-80gb-hbm3/%s %s/",
             dir, runs[0], runs[1], dir);
    assert_int_equal(system(cmd), 0);
    snprintf(p, sizeof p, "%s/accepted.txt", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "%s\n%s\n", runs[0], runs[1]);
    fclose(f);
    static const struct { const char *exclude; size_t n; } cases[] = {
        { NULL, 2 },
        { "20261122T113359Z_e46f08b.json.gz", 1 },
        { "20261122T113359Z_e46f08b.json", 1 },
        { "20261123T082246Z_27d5592.json", 1 },
        { "20261122T113359Z_e46f08b.jsonx", 2 },
        { "20261122T113359Z_e46f08b", 2 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_data *set;
        size_t n;
        char err[2048];
        if (evidence_accepted_open(g_dir, "nvidia-h100-80gb-hbm3", cases[i].exclude, &set, &n, err, sizeof err) != 1)
            fail_msg("exclude %s: %s", cases[i].exclude ? cases[i].exclude : "none", err);
        if (n != cases[i].n) fail_msg("exclude %s: %zu runs, want %zu", cases[i].exclude, n, cases[i].n);
        for (size_t k = 0; k < n; k++) run_close(&set[k]);
        free(set);
    }
    /* the other way round: the set lists a plain X.json, the run is named X.json.gz */
    snprintf(cmd, sizeof cmd, "cd %s && gunzip %s", dir, runs[1]);
    assert_int_equal(system(cmd), 0);
    f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "%s\n20261123T082246Z_27d5592.json\n", runs[0]);
    fclose(f);
    run_data *set;
    size_t n;
    char err[2048];
    if (evidence_accepted_open(g_dir, "nvidia-h100-80gb-hbm3", runs[1], &set, &n, err, sizeof err) != 1)
        fail_msg("exclude %s: %s", runs[1], err);
    assert_int_equal(n, 1);
    run_close(&set[0]);
    free(set);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    if (!mkdtemp(g_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_run_is_returned),
        cmocka_unit_test(missing_file_is_no_reference),
        cmocka_unit_test(bad_contents_are_refused),
        cmocka_unit_test(a_run_is_left_out_of_its_set_in_either_form),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char p[256];
    snprintf(p, sizeof p, "%s/reference.txt", g_dir);
    unlink(p);
    rmdir(g_dir);
    return rc;
}
