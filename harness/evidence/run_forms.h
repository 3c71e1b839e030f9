/* evidence/run_forms.h: a run is stored in one of two forms, plain (<stamp>_<commit>.json,
 * what `run` writes) or gzip-compressed (<stamp>_<commit>.json.gz, how a large run is
 * committed: evidence/README.md). Both at once would be two files that claim one name, and
 * nothing says which a reader meant: the listing and the accepted-run and reference-run
 * lookups refuse it. */
#ifndef ATTNLADDER_EVIDENCE_RUN_FORMS_H
#define ATTNLADDER_EVIDENCE_RUN_FORMS_H
#include <stddef.h>

/* The path of the run's other form: "X.json" <-> "X.json.gz". 0, or -1 when path ends
 * in neither or other is too short. */
int run_other_form(const char *path, char *other, size_t len);

/* 0 when the run at path is in one form only (whether path itself is there is the
 * reader's to find); -1 with err naming both files when its other form is there too. */
int run_form_single(const char *path, char *err, size_t errlen);

#endif
