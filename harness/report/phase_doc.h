/* report/phase_doc.h: the sections of a phase's README.md that its report page quotes.
 *
 * A phase README is markdown; the report reads these level-2 headings (a heading
 * matches when its text starts with the word, case-insensitive, so
 * "## Hypothesis (written before measuring)" is the prediction):
 *   ## Technique               what the phase changes and how
 *   ## Prediction  or  ## Hypothesis
 *                              the predicted effect, written before measuring
 *   ## Outcome                 what was measured against the prediction
 * A section runs to the next level-1 or level-2 heading outside a code fence. Other
 * sections (e.g. "## Profiler numbers") stay in the README only. A paragraph that starts
 * with "History:" (outside a fence, anywhere) says where the rung came from, e.g. "this
 * rung is the former `phases/07_hopper`": the report follows such a rung's old name in its
 * history. Relative links are rewritten to point from reports/phases/ back into the
 * phase's directory. */
#ifndef ATTNLADDER_REPORT_PHASE_DOC_H
#define ATTNLADDER_REPORT_PHASE_DOC_H
#include <stddef.h>

typedef struct {
    char *title;         /* the text of the first "# " heading, or NULL */
    char *technique, *prediction, *outcome;   /* NULL when the section is absent */
    char *history;       /* the "History:" paragraph, or NULL */
} phase_doc;

/* Whether the History paragraph names `name` as code (`name` or `phases/name`). */
int phase_doc_names_former(const phase_doc *d, const char *name);

/* Parses markdown text. link_prefix is put before relative link targets. 0, or -1 when
 * out of memory. */
int phase_doc_parse(const char *text, const char *link_prefix, phase_doc *d);
/* Reads <phases_dir>/<phase>/README.md: 0, 1 when there is no README, -1 on error. */
/* A phase README is at most this long (DESIGN.md: tens of KB; a notebook lives in a notes
 * file the report does not read). */
#define PHASE_DOC_MAX_BYTES (1u << 20)
int phase_doc_load(const char *phases_dir, const char *phase, phase_doc *d);
void phase_doc_free(phase_doc *d);

#endif
