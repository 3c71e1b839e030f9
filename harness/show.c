/* show.c: `attnladder show`: the ladder table of the newest committed evidence, for a
 * machine without a GPU (what `make run` prints there). */
#include <stdio.h>
#include <string.h>
#include "core/args.h"
#include "commands.h"
#include "evidence/evidence_file.h"
#include "evidence/reader.h"
#include "evidence/text_table.h"

/* File names start with a UTC stamp, so the newest run sorts last by base name. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int cmd_show(int argc, char **argv)
{
    const char *root = "evidence", *file = NULL;
    int all = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--evidence")) {
            if (!(root = arg_value("show", argc, argv, &i))) return EXIT_BAD_INPUT;
        } else if (!strcmp(argv[i], "--all")) {
            all = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: attnladder show [--evidence DIR] [--all] [FILE]\n"
                   "  the headline table (--all: every shape) of FILE or of the newest run\n");
            return EXIT_OK;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "attnladder show: unknown option '%s'; accepted: --evidence DIR, --all, FILE\n",
                    argv[i]);
            return EXIT_BAD_INPUT;
        } else {
            file = argv[i];
        }
    }
    char err[1024];
    char **paths = NULL;
    size_t n = 0;
    if (!file) {
        if (evidence_list(root, 0, &paths, &n, err, sizeof err)) {
            fprintf(stderr, "attnladder show: %s\n", err);
            return EXIT_BAD_INPUT;
        }
        for (size_t i = 0; i < n; i++)
            if (!file || strcmp(base_name(paths[i]), base_name(file)) > 0) file = paths[i];
        if (!file) {
            fprintf(stderr, "attnladder show: no evidence under %s/ yet (run `make run` on a GPU)\n", root);
            evidence_free_list(paths, n);
            return EXIT_BAD_INPUT;
        }
    }
    run_data run;
    if (run_open(&run, file, err, sizeof err)) {
        fprintf(stderr, "attnladder show: %s\n", err);
        evidence_free_list(paths, n);
        return EXIT_BAD_INPUT;
    }
    printf("evidence: %s\nGPU: %s   date: %s   commit: %.12s%s%s\n", file, run.gpu_name,
           run.created_utc, run.commit, run.dirty ? " (dirty tree)" : "",
           run.throttled ? "   THROTTLED" : "");
    table_print(stdout, &run, all ? NULL : "headline");
    run_close(&run);
    evidence_free_list(paths, n);
    return EXIT_OK;
}
