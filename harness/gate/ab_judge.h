/* gate/ab_judge.h: a recorded A/B comparison (`attnladder ab --out FILE`) decided again by
 * this binary's rule, without a GPU. The workflow times once, with the base commit's
 * harness, and lets the pull request's own harness judge the same pairs beside it: a
 * change to the rule shows as a difference between the two verdicts, and the base's is
 * the one that counts. The file is untrusted input: every field used is validated. */
#ifndef ATTNLADDER_GATE_AB_JUDGE_H
#define ATTNLADDER_GATE_AB_JUDGE_H
#include <jansson.h>

/* Every row: the paired samples re-read, the change and its CI redrawn with the row's
 * recorded bootstrap seed, the verdict by ab_decide at tolerance (phases) or
 * baseline_tolerance (baselines). A row whose check failed, or that was throttled, keeps
 * that verdict. Prints the table; writes the re-judged document to out when not NULL.
 * Returns 0 nothing regressed, 1 a regression or a failed or throttled row, 2 bad input. */
int ab_judge_file(const char *path, double tolerance, double baseline_tolerance, const char *out);

/* The rows that block or may (regressed, inconclusive, failed, throttled), one line each
 * with the change and its CI and why the point was timed (fixed, path, sweep), after the
 * table: a reader of a long sweep sees the slowed points without reading every row. Rows
 * as ab writes them (validated by the caller); prints nothing when there are none. */
void ab_print_slowed(const json_t *rows);

#endif
