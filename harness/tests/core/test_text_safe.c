/* test_text_safe.c: the one rule for printed text from evidence or a config
 * (core/text_safe.h): what text_check refuses, what each context's escaping makes of
 * hostile strings, cutting at a character's boundary, and gnuplot itself reading an
 * escaped string back as the same text without running anything. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/text_safe.h"

static void check_accepts_plain_text(void **st)
{
    (void)st;
    char why[128];
    const char *ok[] = { "", "NVIDIA H100 80GB HBM3", "caf\xc3\xa9", "\xf0\x9f\x9a\x80 rocket",
                         "void f<64, true>(const __half*, float)", "a|b `c` <d> [e](f)" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_int_equal(text_check(ok[i], 100, why, sizeof why), 0);
}

static void check_refuses_what_acts_on_a_display(void **st)
{
    (void)st;
    struct { const char *s, *word; } bad[] = {
        { "a\nb", "control" }, { "a\rb", "control" }, { "\x1b[2J", "control" }, { "a\tb", "control" },
        { "del\x7f", "control" }, { "csi\xc2\x9b" "31m", "C1" }, { "\xe2\x80\xae" "evil", "bidirectional" },
        { "\xe2\x81\xa6x", "bidirectional" }, { "ls\xe2\x80\xa8", "separator" }, { "\xff", "not UTF-8" },
        { "\xc3", "not UTF-8" }, { "\xc0\x80", "not UTF-8" }, { "\xed\xa0\x80", "not UTF-8" },
        { "\xf4\x90\x80\x80", "not UTF-8" }, { "\xe2\x82", "not UTF-8" },
    };
    char why[128];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(text_check(bad[i].s, 100, why, sizeof why), -1);
        if (!strstr(why, bad[i].word)) fail_msg("case %zu: '%s' lacks '%s'", i, why, bad[i].word);
    }
    assert_int_equal(text_check("12345", 4, why, sizeof why), -1);
    assert_non_null(strstr(why, "5 bytes long"));
    assert_int_equal(text_check("1234", 4, why, sizeof why), 0);
}

static void only_is_an_allow_list(void **st)
{
    (void)st;
    assert_true(text_only("580.159.04", "."));
    assert_false(text_only("580|x", "."));
    assert_false(text_only("", "."));
    assert_false(text_only(NULL, "."));
    assert_false(text_only("a\xc3\xa9", "."));
}

static const char *md(const char *s)
{
    static char buf[512];
    text_escape(buf, sizeof buf, s, TEXT_MARKDOWN);
    return buf;
}

static void markdown_gets_no_structure(void **st)
{
    (void)st;
    assert_string_equal(md("a|b"), "a&#124;b");
    assert_string_equal(md("<script>alert(1)</script>"), "&#60;script&#62;alert(1)&#60;/script&#62;");
    assert_string_equal(md("[x](javascript:alert)"), "&#91;x&#93;(javascript:alert)");
    assert_string_equal(md("# heading"), "&#35; heading");
    assert_string_equal(md("- item"), "&#45; item");
    assert_string_equal(md("1. item"), "&#49;. item");
    assert_string_equal(md("a - b 1.5"), "a - b 1.5");
    assert_string_equal(md("`code` *em* _u_ ~s~ @team $x$ \\ & !"),
                        "&#96;code&#96; &#42;em&#42; _u_ &#126;s&#126; &#64;team &#36;x&#36; &#92; &#38; &#33;");
    assert_string_equal(md("line\n## two"), "line?&#35;&#35; two");
    assert_string_equal(md("\x1b]8;;x\x07"), "?&#93;8;;x?");
    assert_string_equal(md("caf\xc3\xa9"), "caf\xc3\xa9");
    assert_string_equal(md(NULL), "");
}

static void terminal_gets_no_control(void **st)
{
    (void)st;
    char buf[64];
    text_escape(buf, sizeof buf, "\x1b[31mred\xc2\x9b\xe2\x80\xae|\xff", TEXT_TERMINAL);
    assert_string_equal(buf, "?[31mred??|?");
}

static void gnuplot_is_one_single_quoted_string(void **st)
{
    (void)st;
    char buf[128];
    text_escape(buf, sizeof buf, "it's `touch x` \"q\" \\ @m\nset", TEXT_GNUPLOT);
    assert_string_equal(buf, "'it'.\"'\".'s `touch x` \"q\" \\ @m set'");
    text_escape(buf, sizeof buf, "", TEXT_GNUPLOT);
    assert_string_equal(buf, "''");
}

static void cut_at_a_boundary_and_counted(void **st)
{
    (void)st;
    char buf[7];
    /* "é" is two bytes: never half of it */
    size_t need = text_escape(buf, sizeof buf, "abcde\xc3\xa9xyz", TEXT_TERMINAL);
    assert_int_equal(need, 10);
    assert_string_equal(buf, "abcde");
    need = text_escape(buf, sizeof buf, "ab|cd", TEXT_MARKDOWN);   /* never half an entity */
    assert_int_equal(need, 10);
    assert_string_equal(buf, "ab");
    need = text_escape(buf, sizeof buf, "abcdefghij", TEXT_GNUPLOT);   /* still closed */
    assert_int_equal(need, 12);
    assert_string_equal(buf, "'abcd'");
    assert_int_equal(text_escape(buf, 3, "abc", TEXT_GNUPLOT), 5);
    assert_string_equal(buf, "''");
    assert_int_equal(text_escape(buf, 2, "abc", TEXT_GNUPLOT), 5);
    assert_string_equal(buf, "");
    assert_int_equal(text_escape(NULL, 0, "abc", TEXT_TERMINAL), 3);
}

/* gnuplot reads each escaped string back as the string (controls as blanks), runs no
 * `command` and no macro, and writes nothing. Skipped where gnuplot is not installed. */
static void gnuplot_reads_it_as_text(void **st)
{
    (void)st;
    if (system("command -v gnuplot > /dev/null 2>&1") != 0) skip();
    char dir[] = "/tmp/attn_text_safe.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char gp[128], out[128], canary[128];
    snprintf(gp, sizeof gp, "%s/t.gp", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(canary, sizeof canary, "%s/PWNED", dir);
    const char *cases[] = { "it's", "`touch PWNED`", "a\"b\\\"`touch PWNED`", "x'; system('touch PWNED'); '",
                            "@m", "line\nsystem \"touch PWNED\"", "\\", "'", "''", "caf\xc3\xa9 \\n" };
    size_t n = sizeof cases / sizeof cases[0];
    FILE *f = fopen(gp, "w");
    assert_non_null(f);
    fprintf(f, "m = \"MACRO\"\nset print \"%s\"\n", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "print ");
        text_put(f, cases[i], TEXT_GNUPLOT);
        fprintf(f, "\n");
    }
    fclose(f);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "cd %s && gnuplot t.gp > /dev/null 2>&1", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(access(canary, F_OK), -1);
    f = fopen(out, "r");
    assert_non_null(f);
    char line[256];
    for (size_t i = 0; i < n; i++) {
        assert_non_null(fgets(line, sizeof line, f));
        line[strcspn(line, "\n")] = '\0';
        char want[256];
        snprintf(want, sizeof want, "%s", cases[i]);
        for (char *c = want; *c; c++)
            if (*c == '\n') *c = ' ';
        assert_string_equal(line, want);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_accepts_plain_text),
        cmocka_unit_test(check_refuses_what_acts_on_a_display),
        cmocka_unit_test(only_is_an_allow_list),
        cmocka_unit_test(markdown_gets_no_structure),
        cmocka_unit_test(terminal_gets_no_control),
        cmocka_unit_test(gnuplot_is_one_single_quoted_string),
        cmocka_unit_test(cut_at_a_boundary_and_counted),
        cmocka_unit_test(gnuplot_reads_it_as_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
