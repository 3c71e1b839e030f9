/* test_run_forms.c: a run committed gzip-compressed (<stamp>_<commit>.json.gz) is a run
 * like its plain form for every reader: its name is a run file name, the one loader reads
 * it as its decompressed text, the listing and the accepted-run and reference-run lookups
 * take it; a run there in both forms is refused as ambiguous; the harness never writes a
 * compressed name; a bomb under a run's name is refused with the loader's limit named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "core/files.h"
#include "core/json_file.h"
#include "core/names.h"
#include "evidence/run_lists.h"
#include "evidence/consistency.h"
#include "evidence/evidence_file.h"
#include "evidence/reader.h"
#include "evidence/run_forms.h"

#define GPU "nvidia-test-gpu"
#define FIXTURE "harness/tests/data/evidence/" GPU "/20260101T000000Z_aaaaaaa.json"
#define RUN_A "20260101T000000Z_aaaaaaa.json"
#define RUN_B "20260201T000000Z_bbbbbbb.json"

static char g_dir[64];
static json_t *g_doc;   /* the fixture run, loaded once */

static char *at(const char *fmt, ...)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    char rel[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, rel);
    return buf[k];
}

static void put(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/* bytes as one gzip stream, as `gzip -n -9` writes it */
static void put_gz(const char *path, const void *bytes, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)n);
    unsigned char *out = malloc(cap);
    assert_non_null(out);
    z.next_in = (Bytef *)bytes;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    put(path, out, cap - z.avail_out);
    deflateEnd(&z);
    free(out);
}

/* the fixture run written by the harness at dir/name (plain) and, compressed, where asked */
static void put_run(const char *path)
{
    char err[1024];
    size_t n = strlen(path);
    if (n > 3 && !strcmp(path + n - 3, ".gz")) {
        char plain[512];
        snprintf(plain, sizeof plain, "%.*s.tmp.json", (int)(n - 3), path);
        if (evidence_write_atomic(g_doc, plain, err, sizeof err)) fail_msg("%s", err);
        size_t len;
        char *text = files_read(plain, &len);
        assert_non_null(text);
        put_gz(path, text, len);
        free(text);
        unlink(plain);
    } else if (evidence_write_atomic(g_doc, path, err, sizeof err)) {
        fail_msg("%s", err);
    }
}

static int setup(void **st)
{
    (void)st;
    char err[1024];
    snprintf(g_dir, sizeof g_dir, "/tmp/attn_forms.XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    g_doc = evidence_load(FIXTURE, err, sizeof err);
    if (!g_doc) fprintf(stderr, "%s\n", err);
    return g_doc ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    json_decref(g_doc);
    return files_remove_tree(g_dir);
}

static void compressed_names_are_run_names(void **st)
{
    (void)st;
    int partial = -1;
    assert_true(name_is_run_file("20260101T000000Z_aaaaaaa.json.gz", &partial));
    assert_int_equal(partial, 0);
    assert_true(name_is_run_file("20260101T000000Z_aaaaaaa.partial.json.gz", &partial));
    assert_int_equal(partial, 1);
    assert_true(name_says_partial("x.partial.json.gz"));
    assert_false(name_says_partial("x.json.gz"));
    const char *not_runs[] = { "20260101T000000Z_aaaaaaa.json.xz", "20260101T000000Z_aaaaaaa.gz",
                               "20260101T000000Z_aaaaaaa.json.gzip", "20260101T000000Z_aaaaaaa.tar.gz",
                               "tuning_06_tiling.json.gz", ".20260101T000000Z_aaaaaaa.json.gz",
                               "x/20260101T000000Z_aaaaaaa.json.gz" };
    for (size_t i = 0; i < sizeof not_runs / sizeof *not_runs; i++)
        if (name_is_run_file(not_runs[i], NULL)) fail_msg("'%s' taken for a run file", not_runs[i]);

    char other[64];
    assert_int_equal(run_other_form("d/" RUN_A, other, sizeof other), 0);
    assert_string_equal(other, "d/" RUN_A ".gz");
    assert_int_equal(run_other_form("d/" RUN_A ".gz", other, sizeof other), 0);
    assert_string_equal(other, "d/" RUN_A);
    assert_int_equal(run_other_form("d/x.txt", other, sizeof other), -1);
    assert_int_equal(run_other_form("d/" RUN_A, other, 8), -1);
}

/* the compressed form loads as the same document, through the one loader and the reader;
 * a name that says partial is partial, compressed or not */
static void compressed_run_reads_as_its_plain_form(void **st)
{
    (void)st;
    char err[1024];
    assert_int_equal(files_mkdirs(at("load/" GPU)), 0);
    put_run(at("load/" GPU "/" RUN_A ".gz"));
    json_t *doc = evidence_load(at("load/" GPU "/" RUN_A ".gz"), err, sizeof err);
    if (!doc) fail_msg("%s", err);
    assert_true(json_equal(doc, g_doc));
    json_decref(doc);

    run_data r;
    if (run_open(&r, at("load/" GPU "/" RUN_A ".gz"), err, sizeof err)) fail_msg("%s", err);
    assert_string_equal(r.base, RUN_A ".gz");
    assert_false(r.partial);
    assert_true(r.n_results > 0);
    run_close(&r);

    put_run(at("load/" GPU "/20260301T000000Z_ccccccc.partial.json.gz"));
    if (run_open(&r, at("load/" GPU "/20260301T000000Z_ccccccc.partial.json.gz"), err, sizeof err))
        fail_msg("%s", err);
    assert_true(r.partial);
    run_close(&r);

    /* a plain file under the compressed name is refused, naming the file */
    put_run(at("load/" GPU "/" RUN_B));
    assert_int_equal(rename(at("load/" GPU "/" RUN_B), at("load/" GPU "/" RUN_B ".gz")), 0);
    assert_null(evidence_load(at("load/" GPU "/" RUN_B ".gz"), err, sizeof err));
    if (!strstr(err, RUN_B ".gz") || !strstr(err, "not gzip")) fail_msg("%s", err);
}

/* 40 MiB of spaces (valid JSON whitespace around nothing) compress to about 40 KB: a
 * bomb under a run's name is refused by the loader's limit, which its message names */
static void a_bomb_named_as_a_run_is_refused(void **st)
{
    (void)st;
    size_t big = 40u << 20;
    char *spaces = malloc(big);
    assert_non_null(spaces);
    memset(spaces, ' ', big);
    assert_int_equal(files_mkdirs(at("bomb/" GPU)), 0);
    put_gz(at("bomb/" GPU "/" RUN_A ".gz"), spaces, big);
    free(spaces);
    char err[1024], want[64];
    assert_null(evidence_load(at("bomb/" GPU "/" RUN_A ".gz"), err, sizeof err));
    snprintf(want, sizeof want, "more than %zu bytes", (size_t)EVIDENCE_MAX_FILE_BYTES);
    if (!strstr(err, RUN_A ".gz") || !strstr(err, want)) fail_msg("%s", err);
}

static void the_harness_never_writes_a_compressed_name(void **st)
{
    (void)st;
    char err[1024] = "";
    assert_int_equal(files_mkdirs(at("write")), 0);
    assert_int_equal(evidence_write_atomic(g_doc, at("write/" RUN_A ".gz"), err, sizeof err), -1);
    if (!strstr(err, RUN_A ".gz") || !strstr(err, "plain JSON")) fail_msg("%s", err);
    struct stat sb;
    assert_int_not_equal(stat(at("write/" RUN_A ".gz"), &sb), 0);
}

static void listing_takes_both_forms_and_refuses_a_run_in_two(void **st)
{
    (void)st;
    char **paths = NULL, err[2048] = "";
    size_t n = 0;
    assert_int_equal(files_mkdirs(at("list/" GPU)), 0);
    put_run(at("list/" GPU "/" RUN_A ".gz"));
    put_run(at("list/" GPU "/" RUN_B));
    assert_int_equal(evidence_list(at("list"), 0, &paths, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(paths[0], at("list/" GPU "/" RUN_A ".gz"));
    assert_string_equal(paths[1], at("list/" GPU "/" RUN_B));
    evidence_free_list(paths, n);

    put_run(at("list/" GPU "/" RUN_A));
    assert_int_equal(evidence_list(at("list"), 0, &paths, &n, err, sizeof err), -1);
    if (!strstr(err, at("list/" GPU "/" RUN_A " and ")) || !strstr(err, RUN_A ".gz: one run in two forms"))
        fail_msg("%s", err);
}

static void lookups_take_both_forms_and_refuse_a_run_in_two(void **st)
{
    (void)st;
    char err[4096] = "", name[256], path[1024];
    assert_int_equal(files_mkdirs(at("acc/" GPU)), 0);
    put_run(at("acc/" GPU "/" RUN_A ".gz"));
    put_run(at("acc/" GPU "/" RUN_B));
    put(at("acc/" GPU "/accepted.txt"), RUN_A ".gz\n" RUN_B "\n", strlen(RUN_A ".gz\n" RUN_B "\n"));
    put(at("acc/" GPU "/reference.txt"), RUN_A ".gz\n", strlen(RUN_A ".gz\n"));
    static accepted_set set;
    assert_int_equal(evidence_accepted_set(at("acc"), GPU, &set, err, sizeof err), 1);
    assert_int_equal(set.n, 2);
    assert_string_equal(set.name[0], RUN_A ".gz");
    assert_string_equal(set.path[0], at("acc/" GPU "/" RUN_A ".gz"));
    assert_int_equal(reference_run_of(at("acc/" GPU), name, sizeof name, path, sizeof path, err, sizeof err), 1);
    assert_string_equal(name, RUN_A ".gz");

    /* the plain form beside it: both lookups refuse, naming the list's line and both files */
    put_run(at("acc/" GPU "/" RUN_A));
    assert_int_equal(evidence_accepted_set(at("acc"), GPU, &set, err, sizeof err), -1);
    if (!strstr(err, "accepted.txt:1: ") || !strstr(err, "one run in two forms")) fail_msg("%s", err);
    assert_int_equal(reference_run_of(at("acc/" GPU), name, sizeof name, path, sizeof path, err, sizeof err), -1);
    if (!strstr(err, "reference.txt: ") || !strstr(err, RUN_A ".gz: one run in two forms")) fail_msg("%s", err);
    /* and so does a list that names the plain form */
    put(at("acc/" GPU "/accepted.txt"), RUN_A "\n", strlen(RUN_A "\n"));
    assert_int_equal(evidence_accepted_set(at("acc"), GPU, &set, err, sizeof err), -1);
    if (!strstr(err, "one run in two forms")) fail_msg("%s", err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compressed_names_are_run_names),
        cmocka_unit_test(compressed_run_reads_as_its_plain_form),
        cmocka_unit_test(a_bomb_named_as_a_run_is_refused),
        cmocka_unit_test(the_harness_never_writes_a_compressed_name),
        cmocka_unit_test(listing_takes_both_forms_and_refuses_a_run_in_two),
        cmocka_unit_test(lookups_take_both_forms_and_refuse_a_run_in_two),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
