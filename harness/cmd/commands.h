/* commands.h: one entry point per attnladder subcommand, each in the file named for it
 * here in harness/cmd/. main.c dispatches on argv[1];
 * each receives argc/argv with argv[0] == the subcommand name.
 * Exit codes shared by all: 0 success, 1 gate failed / check failed, 2 bad input,
 * 3 no GPU (for commands that need one). */
#ifndef ATTNLADDER_COMMANDS_H
#define ATTNLADDER_COMMANDS_H

enum { EXIT_OK = 0, EXIT_GATE = 1, EXIT_BAD_INPUT = 2, EXIT_NO_GPU = 3 };

int cmd_list(int argc, char **argv);      /* list.c:    implementations and shape support */
int cmd_run(int argc, char **argv);       /* run.c:     correctness, then timing -> evidence */
int cmd_show(int argc, char **argv);      /* show.c:    ladder table of the newest evidence */
int cmd_profile(int argc, char **argv);   /* profile.c: ncu metrics into evidence */
int cmd_gate(int argc, char **argv);      /* gate.c:    ladder + regression gate */
int cmd_compare(int argc, char **argv);   /* compare.c: markdown diff of two runs */
int cmd_report(int argc, char **argv);    /* report.c:  reports/ from all evidence */
int cmd_accepted(int argc, char **argv);  /* accepted.c: the accepted run of a GPU */
int cmd_ab(int argc, char **argv);        /* ab.c:      the A/B gate of two builds */

#endif
