/* evidence/run_lists.h: the accepted reference runs of a GPU, the one lookup that gate,
 * report and the workflow's scripts (through `attnladder accepted`) share; and the GPU's
 * reference run (reference.txt), beside it.
 *
 * <root>/<slug>/accepted.txt holds the file names of runs in that directory, one per
 * line (blank lines and lines starting with '#' are ignored; blanks around a name too).
 * The first is THE accepted run (the report's and compare's reference); all of them are
 * the drift gate's reference set (gate/drift.h), which wants runs from separate processes
 * and sessions. A name with '/' or a leading '.', one that is not a run file
 * (<yyyymmddThhmmssZ>...json or .json.gz, not partial), or a name twice, is refused: the
 * file must not point outside its GPU's directory. A run that is there in both forms,
 * plain and compressed, is refused too (evidence/run_forms.h). */
#ifndef ATTNLADDER_EVIDENCE_ACCEPTED_H
#define ATTNLADDER_EVIDENCE_ACCEPTED_H
#include <stddef.h>
#include "evidence/reader.h"

#define ACCEPTED_MAX 32
#define ACCEPTED_MAX_BYTES (64u << 10)   /* accepted.txt: a few run names */

typedef struct {
    size_t n;
    char name[ACCEPTED_MAX][256];
    char path[ACCEPTED_MAX][1024];
} accepted_set;

/* 1 and the set filled (n >= 1); 0 when there is no accepted.txt (err says so); -1 when
 * it is unreadable or not a regular file (files_read_input), lists no run, more than
 * ACCEPTED_MAX, a name that is not a valid run file name, or one that names no file of
 * that directory (err names the file, the line and what it holds). */
int evidence_accepted_set(const char *root, const char *slug, accepted_set *set, char *err, size_t errlen);

/* The first run of the set: 1 and name and path filled, 0, or -1 as above. */
int evidence_accepted(const char *root, const char *slug, char *name, size_t name_len,
                      char *path, size_t path_len, char *err, size_t errlen);

/* The reference run of one GPU: <gpu_dir>/reference.txt holds one line, the file name of
 * a complete run in gpu_dir (the run the reports show; evidence/README.md). 1 and name
 * (the file name) and path (gpu_dir/name) filled; 0 when there is no reference.txt (err
 * says so); -1 when it is unreadable, empty, more than one line, or its line is not the
 * name of a complete run file (<yyyymmddThhmmssZ>_<commit>.json or .json.gz: no '/', no
 * leading '.', not partial; err names the file and what it holds), or the run is there in
 * both forms. Whether the run is there is the caller's reader's to find. */
int reference_run_of(const char *gpu_dir, char *name, size_t name_len, char *path, size_t path_len,
                     char *err, size_t errlen);

/* The runs of slug's accepted set, opened, without the one whose file name is `exclude`
 * (NULL: none; a run is never its own reference: X.json and X.json.gz are one run,
 * run_other_form). 1 and *runs, *n (run_close each, then
 * free the array; *n may be 0); 0 when there is no accepted.txt (err says so); -1 with err
 * when accepted.txt is invalid or a run of it is unreadable or partial. */
int evidence_accepted_open(const char *root, const char *slug, const char *exclude, run_data **runs,
                           size_t *n, char *err, size_t errlen);

/* Which run stands for a GPU where one must (the reports, `show`), never silently:
 * the reference run; without reference.txt the first accepted run; without accepted.txt
 * the run named `newest` (the caller's newest complete run, or NULL). name gets the file
 * name, why a sentence for people saying which rule chose it. Returns the rule (below);
 * -1 when reference.txt or accepted.txt is invalid (err: an invalid file is an error, not
 * a reason to pass it over). Whether the named file exists and reads is the caller's to
 * check. */
enum {
    REFERENCE_NONE = 0,           /* nothing to present: no file names one, newest is NULL */
    REFERENCE_FROM_FILE,          /* reference.txt */
    REFERENCE_FALLBACK_ACCEPTED,  /* the first line of accepted.txt */
    REFERENCE_FALLBACK_NEWEST     /* the newest complete run */
};
int reference_choose(const char *root, const char *slug, const char *newest, char *name, size_t name_len,
                     char *why, size_t why_len, char *err, size_t errlen);

#endif
