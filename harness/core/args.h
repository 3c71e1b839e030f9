/* core/args.h: small, strict parsers for option values (a bad value is bad input, exit 2,
 * with a message that names the option and what it accepts). */
#ifndef ATTNLADDER_CLI_ARGS_H
#define ATTNLADDER_CLI_ARGS_H
#include <stddef.h>

/* 0, or -1 after printing "attnladder <cmd>: <opt> ... accepted: ..." to stderr. */
int arg_long(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);
int arg_double(const char *cmd, const char *opt, const char *text, double lo, double hi,
               double *out);
/* The value of an option that needs one: argv[*i + 1]; advances *i. NULL after printing
 * the error when the option is last. */
const char *arg_value(const char *cmd, int argc, char **argv, int *i);

#endif
