/* main.c: the attnladder command line: dispatch to one subcommand. */
#include <stdio.h>
#include <string.h>
#include "cmd/commands.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} COMMANDS[] = {
    { "list", cmd_list, "implementations found and the shapes each supports" },
    { "run", cmd_run, "check and time implementations on the GPU, write evidence" },
    { "show", cmd_show, "the headline table of each GPU's reference run (no GPU needed)" },
    { "profile", cmd_profile, "Nsight Compute metrics of chosen implementations into evidence" },
    { "gate", cmd_gate, "the ladder gate and the regression gate on evidence" },
    { "compare", cmd_compare, "markdown table of the changes between two evidence files" },
    { "report", cmd_report, "regenerate reports/ (markdown and plots) from all evidence" },
    { "accepted", cmd_accepted, "the path of a GPU's accepted reference run" },
    { "ab", cmd_ab, "the A/B gate: two builds in one process, timed in alternation" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: attnladder COMMAND [options]   (attnladder COMMAND --help for its options)\n\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(f, "  %-8s %s\n", COMMANDS[i].name, COMMANDS[i].what);
    fprintf(f, "\nexit status: 0 success, 1 check or gate failed, 2 bad input, 3 no GPU\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(argv[1], COMMANDS[i].name)) return COMMANDS[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "attnladder: unknown command '%s'; accepted:", argv[1]);
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(stderr, " %s", COMMANDS[i].name);
    fprintf(stderr, "\n");
    return EXIT_BAD_INPUT;
}
