/* accepted.c: `attnladder accepted`: the path of a GPU's accepted reference run, for the
 * workflow's scripts, so they read accepted.txt by the same rule as gate and report
 * (evidence/run_lists.h). */
#include <stdio.h>
#include <string.h>
#include "cmd/commands.h"
#include "core/args.h"
#include "evidence/run_lists.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: attnladder accepted GPU_SLUG [--evidence DIR]\n"
               "  prints DIR/<slug>/<run>.json, the run that DIR/<slug>/accepted.txt names\n"
               "exit status: 0 printed, 1 no accepted run for that GPU, 2 bad input (an\n"
               "             accepted.txt that names no run file of its directory)\n");
}

int cmd_accepted(int argc, char **argv)
{
    const char *root = "evidence", *slug = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--evidence")) {
            if (!(root = arg_value("accepted", argc, argv, &i))) return EXIT_BAD_INPUT;
        } else if (argv[i][0] == '-' || slug) {
            fprintf(stderr, "attnladder accepted: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        } else {
            slug = argv[i];
        }
    }
    if (!root[0]) {   /* '' is no directory: it read /<slug>/accepted.txt */
        fprintf(stderr, "attnladder accepted: --evidence '': give a directory\n");
        return EXIT_BAD_INPUT;
    }
    if (!slug || !slug[0] || strchr(slug, '/') || slug[0] == '.') {
        fprintf(stderr, "attnladder accepted: give one GPU slug (a directory name under %s/, e.g. "
                "nvidia-h100-80gb-hbm3)\n", root);
        return EXIT_BAD_INPUT;
    }
    char name[512], path[4096], err[4600];
    int found = evidence_accepted(root, slug, name, sizeof name, path, sizeof path, err, sizeof err);
    if (found < 0) {
        fprintf(stderr, "attnladder accepted: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (found == 0) {
        fprintf(stderr, "attnladder accepted: %s\n", err);
        return EXIT_GATE;
    }
    printf("%s\n", path);
    return EXIT_OK;
}
