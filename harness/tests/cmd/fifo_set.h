/* fifo_set.h: an evidence root whose accepted set cannot be read (its one accepted run is a
 * FIFO, refused by name as soon as the set is opened), and a command's stderr caught: a
 * command that checks its arguments before it reads the set refuses a bad one naming that
 * argument; one that opens the set first names the FIFO instead. Shared by the gate and
 * compare tests. */
#ifndef ATTNLADDER_TESTS_FIFO_SET_H
#define ATTNLADDER_TESTS_FIFO_SET_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIFO_SET_SLUG "nvidia-test-gpu"   /* harness/tests/data/gate/'s runs' GPU */
#define FIFO_SET_RUN "20260101T000000Z_0123456.json"

/* root gets a fresh directory "/tmp/attn_fifo_XXXXXX" holding SLUG/accepted.txt and the FIFO
 * it names; 0, or -1. */
static inline int fifo_set_make(char root[64])
{
    snprintf(root, 64, "/tmp/attn_fifo_XXXXXX");
    if (!mkdtemp(root)) return -1;
    char path[256];
    snprintf(path, sizeof path, "%s/" FIFO_SET_SLUG, root);
    if (mkdir(path, 0755)) return -1;
    snprintf(path, sizeof path, "%s/" FIFO_SET_SLUG "/" FIFO_SET_RUN, root);
    if (mkfifo(path, 0644)) return -1;
    snprintf(path, sizeof path, "%s/" FIFO_SET_SLUG "/accepted.txt", root);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, FIFO_SET_RUN "\n");
    return fclose(f) ? -1 : 0;
}

static inline void fifo_set_remove(const char *root)
{
    char path[256];
    snprintf(path, sizeof path, "%s/" FIFO_SET_SLUG "/" FIFO_SET_RUN, root);
    unlink(path);
    snprintf(path, sizeof path, "%s/" FIFO_SET_SLUG "/accepted.txt", root);
    unlink(path);
    snprintf(path, sizeof path, "%s/" FIFO_SET_SLUG, root);
    rmdir(path);
    rmdir(root);
}

/* cmd(n, args) with stdout discarded and stderr caught into err (NUL-terminated); its exit
 * status. */
static inline int fifo_set_run(int (*cmd)(int, char **), const char *const *args, int n, char *err,
                               size_t errlen)
{
    char *argv[16];
    for (int i = 0; i < n && i < 16; i++) argv[i] = (char *)args[i];
    FILE *out = stdout, *saved = stderr, *caught = tmpfile();
    if (!caught) return -1;
    stdout = fopen("/dev/null", "w");
    stderr = caught;
    int rc = cmd(n, argv);
    fclose(stdout);
    stdout = out;
    stderr = saved;
    rewind(caught);
    size_t got = fread(err, 1, errlen - 1, caught);
    err[got] = '\0';
    fclose(caught);
    return rc;
}

/* cmd(n, args) must refuse its arguments (exit 2) with a message holding want, before it
 * has read the set: the FIFO not named (include after cmocka.h). */
static inline void fifo_set_refuses(int (*cmd)(int, char **), const char *const *args, int n, const char *want)
{
    char err[4096];
    assert_int_equal(fifo_set_run(cmd, args, n, err, sizeof err), 2);
    if (!strstr(err, want) || strstr(err, FIFO_SET_RUN))
        fail_msg("%s: wanted '%s' in the refusal, and not the set's FIFO; got: %s", args[0], want, err);
}
#endif
