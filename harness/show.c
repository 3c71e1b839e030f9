/* show.c: `attnladder show`: the ladder table of the newest committed evidence, for a
 * machine without a GPU (what `make run` prints there). */
#include <stdio.h>
#include <string.h>
#include "core/args.h"
#include "commands.h"
#include "evidence/reader.h"
#include "evidence/text_table.h"

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
        } else if (file) {
            fprintf(stderr, "attnladder show: one run at a time ('%s' and '%s')\n", file, argv[i]);
            return EXIT_BAD_INPUT;
        } else {
            file = argv[i];
        }
    }
    char err[1024];
    run_data run;
    /* a file named on the command line is shown even when partial (it says so); the
     * newest run is a complete one */
    if (file ? run_open(&run, file, err, sizeof err) : run_open_newest(&run, root, 0, err, sizeof err)) {
        fprintf(stderr, "attnladder show: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    printf("evidence: %s%s\nGPU: %s   date: %s   commit: %.12s%s%s\n", run.path,
           run.partial ? " (partial: an interrupted run)" : "", run.gpu_name, run.created_utc,
           run.commit, run.dirty ? " (dirty tree)" : "", run.throttled ? "   THROTTLED" : "");
    table_print(stdout, &run, all ? NULL : "headline");
    run_close(&run);
    return EXIT_OK;
}
