/* core/args.h: small, strict parsers for option values (a bad value is bad input, exit 2,
 * with a message that names the option and what it accepts). */
#ifndef ATTNLADDER_CLI_ARGS_H
#define ATTNLADDER_CLI_ARGS_H
#include <stddef.h>
#include "attn_phase.h"

/* 0, or -1 after printing "attnladder <cmd>: <opt> ... accepted: ..." to stderr. */
int arg_long(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);
int arg_double(const char *cmd, const char *opt, const char *text, double lo, double hi,
               double *out);
/* A shape option ("B,H,S,D[,causal]" or "B,H,Sq,Skv,D,causal", core/shapes.h): each
 * field is checked against int's range as typed, so an overflowing one is quoted, not
 * its clamped value. 0, or -1 after printing the problem. */
int arg_shape(const char *cmd, const char *opt, const char *text, attn_shape *out);
/* A comma-separated list with no empty item ("a,b"; not "", ",", "a,,b", "a,"): 0, or
 * -1 after printing "attnladder <cmd>: <opt> '<text>' ..." with what it accepts. */
int arg_list(const char *cmd, const char *opt, const char *text, const char *accepted);
/* 1 when opt is one of known (NULL-ended); else 0 after printing "attnladder <cmd>:
 * unknown option '<opt>'; <accepted>": an unknown option is named as unknown wherever it
 * stands, not taken for a known one's missing value. */
int arg_known(const char *cmd, const char *opt, const char *const *known, const char *accepted);
/* The value of an option that needs one: argv[*i + 1]; advances *i. NULL after printing
 * the error when the option is last. */
const char *arg_value(const char *cmd, int argc, char **argv, int *i);

#endif
