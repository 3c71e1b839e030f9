/* report.c: `attnladder report` (being written). */
#include <stdio.h>
#include "commands.h"

int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "attnladder report: not yet available\n");
    return EXIT_BAD_INPUT;
}
