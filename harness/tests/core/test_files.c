/* test_files.c: the file rules every command stands on (core/files.h): removing a tree
 * never follows a link, an input is a regular file of bounded size (a FIFO is refused
 * without waiting on it), an output never overlaps an input (links followed), and a
 * directory is replaced only when it is new, empty or marked as the command's own; what a
 * command reads back (files_read) is held to the input rule, and the names report --check
 * prints are text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/files.h"

static char g_dir[64];

static char *at(const char *rel)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, rel);
    return buf[k];
}

static void put(const char *rel, const char *text)
{
    FILE *f = fopen(at(rel), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **st)
{
    (void)st;
    snprintf(g_dir, sizeof g_dir, "/tmp/attn_files.XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    return files_remove_tree(g_dir);
}

static void remove_tree_never_follows_a_link(void **st)
{
    (void)st;
    assert_int_equal(files_mkdirs(at("theirs/sub")), 0);
    put("theirs/a.txt", "precious");
    put("theirs/sub/b.txt", "deep");
    assert_int_equal(files_mkdirs(at("tree/d")), 0);
    put("tree/d/x", "x");
    assert_int_equal(symlink(at("theirs"), at("tree/link")), 0);
    assert_int_equal(symlink(at("theirs"), at("tree/d/link2")), 0);
    assert_int_equal(symlink(at("theirs"), at("toplink")), 0);
    assert_int_equal(files_remove_tree(at("tree")), 0);
    assert_int_equal(files_remove_tree(at("toplink")), 0);   /* the link itself, not its target */
    assert_int_equal(access(at("tree"), F_OK), -1);
    assert_int_equal(access(at("toplink"), F_OK), -1);
    assert_int_equal(access(at("theirs/a.txt"), F_OK), 0);
    assert_int_equal(access(at("theirs/sub/b.txt"), F_OK), 0);
}

static void swap_moves_a_link_aside_as_a_link(void **st)
{
    (void)st;
    assert_int_equal(files_mkdirs(at("theirs2")), 0);
    put("theirs2/a.txt", "precious");
    assert_int_equal(symlink(at("theirs2"), at("target")), 0);
    assert_int_equal(files_mkdirs(at("fresh")), 0);
    char err[256];
    assert_int_equal(files_swap_into_place(at("fresh"), at("target"), err, sizeof err), 0);
    assert_int_equal(access(at("theirs2/a.txt"), F_OK), 0);
    struct stat s;
    assert_int_equal(lstat(at("target"), &s), 0);
    assert_true(S_ISDIR(s.st_mode));
}

static void input_is_a_bounded_regular_file(void **st)
{
    (void)st;
    char err[512];
    size_t len = 0;
    put("small.json", "{}");
    char *t = files_read_input(at("small.json"), 10, &len, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(len, 2);
    free(t);
    assert_null(files_read_input(at("small.json"), 1, &len, err, sizeof err));
    assert_non_null(strstr(err, "2 bytes, more than the 1"));
    assert_null(files_read_input(g_dir, 10, &len, err, sizeof err));
    assert_non_null(strstr(err, "a directory, not a regular file"));
    assert_int_equal(mkfifo(at("fifo"), 0600), 0);   /* refused at once, not waited on */
    assert_null(files_read_input(at("fifo"), 10, &len, err, sizeof err));
    assert_non_null(strstr(err, "a FIFO, not a regular file"));
    assert_null(files_read_input("/dev/zero", 10, &len, err, sizeof err));
    assert_non_null(strstr(err, "a device"));
    assert_null(files_read_input(at("missing"), 10, &len, err, sizeof err));
    assert_non_null(strstr(err, "cannot read"));
    assert_null(files_read_input("", 10, &len, err, sizeof err));
}

/* files_read (the reader of report --check and of what a command wrote) follows the same
 * rule as files_read_input: a FIFO is refused at once, not waited on; a link to a device
 * is not read until memory runs out; a regular file is read whole. */
static void read_is_the_input_rule_too(void **st)
{
    (void)st;
    size_t len = 99;
    put("plain.md", "# title\n");
    char *t = files_read(at("plain.md"), &len);
    assert_non_null(t);
    assert_int_equal(len, 8);
    assert_string_equal(t, "# title\n");
    free(t);
    assert_int_equal(mkfifo(at("fifo.md"), 0600), 0);
    alarm(10);   /* a read that waits on the FIFO fails the test instead of hanging it */
    assert_null(files_read(at("fifo.md"), &len));
    alarm(0);
    assert_int_equal(symlink("/dev/zero", at("zero.md")), 0);
    assert_null(files_read(at("zero.md"), &len));
    assert_int_equal(mkdir(at("dir.md"), 0700), 0);
    assert_null(files_read(at("dir.md"), &len));
}

/* report --check's list of differences: a stray file's name is printed as text (no
 * terminal escape, no line of its own that a CI log reads as a command). */
static void diff_trees_prints_names_as_text(void **st)
{
    (void)st;
    assert_int_equal(mkdir(at("want"), 0700), 0);
    assert_int_equal(mkdir(at("have"), 0700), 0);
    put("have/x\033[2Jy.md", "stray");
    put("have/a\n::warning::b.md", "stray");
    assert_int_equal(mkfifo(at("have/README.md"), 0600), 0);
    put("want/README.md", "# ok\n");
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    assert_non_null(f);
    alarm(10);
    assert_int_equal(files_diff_trees(at("want"), at("have"), f), 3);
    alarm(0);
    fclose(f);
    assert_null(strchr(buf, '\033'));
    assert_null(strstr(buf, "\n::warning::"));
    assert_non_null(strstr(buf, "not a regular file"));   /* the FIFO: named, not read */
    free(buf);
}

static void overlap_follows_links_and_dots(void **st)
{
    (void)st;
    assert_int_equal(files_mkdirs(at("ev/gpu")), 0);
    assert_int_equal(symlink(at("ev"), at("evlink")), 0);
    assert_true(files_overlap(at("ev"), at("ev")));
    assert_true(files_overlap(at("ev/gpu"), at("ev")));
    assert_true(files_overlap(at("ev"), at("ev/gpu/new/deeper")));
    assert_true(files_overlap(at("evlink"), at("ev")));
    assert_true(files_overlap(at("ev/gpu/.."), at("ev")));
    assert_true(files_overlap(at("evlink/missing/../gpu"), at("ev/gpu")));
    assert_false(files_overlap(at("ev2"), at("ev")));
    assert_false(files_overlap(at("ev/gpu2"), at("ev/gpu")));
    assert_false(files_overlap(at("out"), at("ev")));
}

static void replaceable_only_when_marked_or_empty(void **st)
{
    (void)st;
    assert_int_equal(files_dir_replaceable(at("new"), ".mark"), 1);
    assert_int_equal(files_mkdirs(at("empty")), 0);
    assert_int_equal(files_dir_replaceable(at("empty"), ".mark"), 1);
    assert_int_equal(files_mkdirs(at("someone")), 0);
    put("someone/notes.txt", "mine");
    assert_int_equal(files_dir_replaceable(at("someone"), ".mark"), 0);
    assert_int_equal(files_mkdirs(at("mine")), 0);
    put("mine/.mark", "");
    put("mine/README.md", "");
    assert_int_equal(files_dir_replaceable(at("mine"), ".mark"), 1);
    assert_int_equal(files_mkdirs(at("fake")), 0);   /* a link named as the marker is no marker */
    assert_int_equal(symlink("/etc/passwd", at("fake/.mark")), 0);
    put("fake/x", "");
    assert_int_equal(files_dir_replaceable(at("fake"), ".mark"), 0);
    put("afile", "");
    assert_int_equal(files_dir_replaceable(at("afile"), ".mark"), 0);
}

static void output_file_rule(void **st)
{
    (void)st;
    char err[512];
    put("run.json", "{}");
    const char *inputs[] = { at("run.json"), NULL, "" };
    assert_int_equal(files_output_file("--out", at("run.json"), inputs, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "is the input"));
    assert_int_equal(symlink(at("run.json"), at("runlink")), 0);
    assert_int_equal(files_output_file("--out", at("runlink"), inputs, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "a symbolic link"));
    assert_int_equal(files_output_file("--out", "/dev/null", inputs, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    assert_int_equal(files_output_file("--out", g_dir, inputs, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "a directory"));
    assert_int_equal(files_output_file("--out", "", inputs, 3, err, sizeof err), -1);
    assert_int_equal(files_output_file("--out", at("new.md"), inputs, 3, err, sizeof err), 0);
    put("old.md", "x");
    assert_int_equal(files_output_file("--out", at("old.md"), inputs, 3, err, sizeof err), 0);
}

static void long_paths_are_not_cut(void **st)
{
    (void)st;
    char rel[3000] = "";
    for (int i = 0; i < 12; i++) strcat(rel, "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij/");
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s", g_dir, rel) > 0);
    assert_int_equal(files_mkdirs(path), 0);
    char *f = NULL;
    assert_true(asprintf(&f, "%sfile", path) > 0);
    char err[256];
    assert_int_equal(files_write_atomic(f, "x", 1, err, sizeof err), 0);
    assert_int_equal(access(f, F_OK), 0);
    free(f);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(remove_tree_never_follows_a_link, setup, teardown),
        cmocka_unit_test_setup_teardown(swap_moves_a_link_aside_as_a_link, setup, teardown),
        cmocka_unit_test_setup_teardown(input_is_a_bounded_regular_file, setup, teardown),
        cmocka_unit_test_setup_teardown(read_is_the_input_rule_too, setup, teardown),
        cmocka_unit_test_setup_teardown(diff_trees_prints_names_as_text, setup, teardown),
        cmocka_unit_test_setup_teardown(overlap_follows_links_and_dots, setup, teardown),
        cmocka_unit_test_setup_teardown(replaceable_only_when_marked_or_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(output_file_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(long_paths_are_not_cut, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
