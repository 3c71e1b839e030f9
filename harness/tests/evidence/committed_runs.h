/* committed_runs.h: which of the committed runs a test that reads every one of them reads.
 *
 * Every run, unless ATTN_COMMITTED_RUNS=sample (`make check-asan` sets it for the binaries
 * built with ASan and UBSan): then the first run of each GPU and build, by file name. The
 * runs of one build on one GPU are sessions of one `attnladder run`: the same members in
 * the same forms, so they take the reader and the writer down the same code, and the
 * sanitizers watch that code on one of them as well as on three. What one session holds
 * and another does not is a value (a number that does not print back as read): check-asan
 * runs these tests unsampled in the plain build too, where every run costs a third. */
#ifndef COMMITTED_RUNS_H
#define COMMITTED_RUNS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMMITTED_SAMPLE_MAX 64

typedef struct {
    char seen[COMMITTED_SAMPLE_MAX][512];   /* "<folder>/<build>" of each run read */
    size_t n, read, skipped;
} committed_sample;

/* The folder and the build of a run's path (evidence/<gpu>/<stamp>_<build>.json[.gz]):
 * the path up to the last '/', and the name from its first '_' to its first '.'. */
static void committed_run_key(const char *path, char *key, size_t len)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *build = strchr(name, '_');
    build = build ? build + 1 : name;
    size_t b = strcspn(build, ".");
    snprintf(key, len, "%.*s%.*s", (int)(name - path), path, (int)b, build);
}

/* 1: read this run; 0: its GPU's and build's first run was read (sampling only). */
static int committed_run_taken(committed_sample *s, const char *path)
{
    const char *mode = getenv("ATTN_COMMITTED_RUNS");
    if (!mode || strcmp(mode, "sample") != 0) {
        s->read++;
        return 1;
    }
    char key[512];
    committed_run_key(path, key, sizeof key);
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->seen[i], key)) {
            s->skipped++;
            return 0;
        }
    if (s->n < COMMITTED_SAMPLE_MAX) snprintf(s->seen[s->n++], sizeof s->seen[0], "%s", key);
    s->read++;
    return 1;
}

#endif
