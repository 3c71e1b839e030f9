/* test_gz_read.c: a gzip-compressed input (core/gz_read.h) gives back exactly the bytes
 * that were compressed, or is refused with the file named: a truncated stream, a corrupt
 * one, bytes after the stream, a plain file named .gz, and a bomb (a small file that
 * inflates past the limit, named in the message). The gzip files are made here with zlib's
 * deflate, as `gzip -n` makes them (a gzip wrapper, no name, no time stamp). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "core/files.h"
#include "core/gz_read.h"

static char g_dir[64];

static char *at(const char *rel)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, rel);
    return buf[k];
}

static void put(const char *rel, const void *bytes, size_t n)
{
    FILE *f = fopen(at(rel), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/* src compressed into one gzip stream; *n gets its size (malloc'd) */
static unsigned char *gzip_of(const void *src, size_t len, size_t *n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)len);
    unsigned char *out = malloc(cap);
    assert_non_null(out);
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *n = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* a run-like text: repetitive JSON with numbers, some MB when asked */
static char *sample_text(size_t want, size_t *len)
{
    char *t = malloc(want + 64);
    assert_non_null(t);
    size_t n = 0;
    n += (size_t)sprintf(t, "{\n \"samples_us\": [\n");
    for (unsigned i = 0; n + 40 < want; i++)
        n += (size_t)sprintf(t + n, "  %u.%06u,\n", 10 + i % 97, (i * 2654435761u) % 1000000u);
    n += (size_t)sprintf(t + n, "  0\n ]\n}\n");
    *len = n;
    return t;
}

static int setup(void **st)
{
    (void)st;
    snprintf(g_dir, sizeof g_dir, "/tmp/attn_gz.XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    return files_remove_tree(g_dir);
}

static void a_good_file_gives_its_bytes(void **st)
{
    (void)st;
    size_t len, zn, got = 0;
    char *text = sample_text(3u << 20, &len);   /* larger than the first buffer: it grows */
    unsigned char *z = gzip_of(text, len, &zn);
    put("good.json.gz", z, zn);
    char err[512] = "";
    char *back = gz_read_input(at("good.json.gz"), 32u << 20, &got, err, sizeof err);
    if (!back) fail_msg("%s", err);
    assert_int_equal(got, len);
    assert_memory_equal(back, text, len);
    assert_int_equal(back[got], '\0');
    free(back);

    /* exactly at the limit passes: the limit is on more than max bytes */
    back = gz_read_input(at("good.json.gz"), len, &got, err, sizeof err);
    if (!back) fail_msg("%s", err);
    assert_int_equal(got, len);
    free(back);

    /* an empty text is a valid stream of nothing */
    free(z);
    z = gzip_of("", 0, &zn);
    put("empty.json.gz", z, zn);
    back = gz_read_input(at("empty.json.gz"), 100, &got, err, sizeof err);
    if (!back) fail_msg("%s", err);
    assert_int_equal(got, 0);
    free(back);
    free(z);
    free(text);
}

static void a_truncated_file_is_refused(void **st)
{
    (void)st;
    size_t len, zn, got = 0;
    char *text = sample_text(200000, &len);
    unsigned char *z = gzip_of(text, len, &zn);
    /* cut in the data, in the 8-byte trailer (CRC and length), and inside the header */
    size_t cuts[] = { zn / 2, zn - 4, zn - 1, 5 };
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        put("cut.json.gz", z, cuts[i]);
        char err[512] = "";
        char *back = gz_read_input(at("cut.json.gz"), 32u << 20, &got, err, sizeof err);
        if (back) fail_msg("cut at %zu of %zu bytes: read", cuts[i], zn);
        if (!strstr(err, at("cut.json.gz")) || !strstr(err, "truncated"))
            fail_msg("cut at %zu: %s", cuts[i], err);
    }
    free(z);
    free(text);
}

static void a_corrupt_file_is_refused(void **st)
{
    (void)st;
    size_t len, zn, got = 0;
    char *text = sample_text(200000, &len);
    unsigned char *z = gzip_of(text, len, &zn);
    char err[512] = "";
    z[zn - 6] ^= 0x55;   /* the CRC: every byte inflates, the check fails */
    put("crc.json.gz", z, zn);
    assert_null(gz_read_input(at("crc.json.gz"), 32u << 20, &got, err, sizeof err));
    if (!strstr(err, at("crc.json.gz")) || !strstr(err, "corrupt")) fail_msg("%s", err);
    z[zn - 6] ^= 0x55;
    z[zn - 2] ^= 0x01;   /* the length */
    put("isize.json.gz", z, zn);
    assert_null(gz_read_input(at("isize.json.gz"), 32u << 20, &got, err, sizeof err));
    if (!strstr(err, "corrupt")) fail_msg("%s", err);
    free(z);
    free(text);
}

/* 64 MiB of zeros compress to about 64 KB: more than twice the loader's limit of a plain
 * run, from a file far under it */
static void a_bomb_is_refused_naming_the_limit(void **st)
{
    (void)st;
    size_t big = 64u << 20, zn, got = 0;
    char *zeros = calloc(big, 1);
    assert_non_null(zeros);
    unsigned char *z = gzip_of(zeros, big, &zn);
    free(zeros);
    assert_true(zn < 200000);
    put("bomb.json.gz", z, zn);
    free(z);
    char err[512] = "", want[64];
    const size_t limit = 32u << 20;
    assert_null(gz_read_input(at("bomb.json.gz"), limit, &got, err, sizeof err));
    snprintf(want, sizeof want, "more than %zu bytes", limit);
    if (!strstr(err, at("bomb.json.gz")) || !strstr(err, want)) fail_msg("%s", err);

    /* one byte over a limit, at the end of the stream, is over it */
    size_t len;
    char *text = sample_text(100000, &len);
    z = gzip_of(text, len, &zn);
    put("over.json.gz", z, zn);
    assert_null(gz_read_input(at("over.json.gz"), len - 1, &got, err, sizeof err));
    snprintf(want, sizeof want, "more than %zu bytes", len - 1);
    if (!strstr(err, want)) fail_msg("%s", err);
    free(z);
    free(text);
}

static void bytes_after_the_stream_are_refused(void **st)
{
    (void)st;
    size_t len, zn, got = 0;
    char *text = sample_text(100000, &len);
    unsigned char *z = gzip_of(text, len, &zn);
    unsigned char *more = malloc(2 * zn + 8);
    assert_non_null(more);
    memcpy(more, z, zn);
    memcpy(more + zn, "garbage", 7);
    put("trail.json.gz", more, zn + 7);
    char err[512] = "";
    assert_null(gz_read_input(at("trail.json.gz"), 32u << 20, &got, err, sizeof err));
    if (!strstr(err, at("trail.json.gz")) || !strstr(err, "7 bytes after")) fail_msg("%s", err);
    /* a second member (what `cat a.gz b.gz` makes) is bytes after the first stream too */
    memcpy(more + zn, z, zn);
    put("two.json.gz", more, 2 * zn);
    assert_null(gz_read_input(at("two.json.gz"), 32u << 20, &got, err, sizeof err));
    if (!strstr(err, "after the end")) fail_msg("%s", err);
    free(more);
    free(z);
    free(text);
}

static void a_plain_file_named_gz_is_refused(void **st)
{
    (void)st;
    size_t got = 0;
    char err[512] = "";
    const char *plain = "{\"schema\": \"attnladder-evidence\"}\n";
    put("plain.json.gz", plain, strlen(plain));
    assert_null(gz_read_input(at("plain.json.gz"), 32u << 20, &got, err, sizeof err));
    if (!strstr(err, at("plain.json.gz")) || !strstr(err, "not gzip")) fail_msg("%s", err);
    put("zero.json.gz", "", 0);
    assert_null(gz_read_input(at("zero.json.gz"), 32u << 20, &got, err, sizeof err));
    if (!strstr(err, "not gzip")) fail_msg("%s", err);
    /* the input rule holds before any inflating: a directory, a missing file */
    assert_int_equal(files_mkdirs(at("dir.json.gz")), 0);
    assert_null(gz_read_input(at("dir.json.gz"), 32u << 20, &got, err, sizeof err));
    if (!strstr(err, "a directory")) fail_msg("%s", err);
    assert_null(gz_read_input(at("missing.json.gz"), 32u << 20, &got, err, sizeof err));
    if (!strstr(err, "cannot read")) fail_msg("%s", err);
}

static void named_by_suffix(void **st)
{
    (void)st;
    assert_true(gz_is_named("a/20260101T000000Z_aaaaaaa.json.gz"));
    assert_true(gz_is_named(".gz"));
    assert_false(gz_is_named("a/20260101T000000Z_aaaaaaa.json"));
    assert_false(gz_is_named("x.gzip"));
    assert_false(gz_is_named("gz"));
    assert_false(gz_is_named(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_good_file_gives_its_bytes),
        cmocka_unit_test(a_truncated_file_is_refused),
        cmocka_unit_test(a_corrupt_file_is_refused),
        cmocka_unit_test(a_bomb_is_refused_naming_the_limit),
        cmocka_unit_test(bytes_after_the_stream_are_refused),
        cmocka_unit_test(a_plain_file_named_gz_is_refused),
        cmocka_unit_test(named_by_suffix),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
