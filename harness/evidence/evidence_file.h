/* evidence/evidence_file.h: reading, validating and atomically writing evidence JSON
 * (evidence/SCHEMA.md). Documents are jansson values; evidence/writer.h builds them. */
#ifndef ATTNLADDER_EVIDENCE_H
#define ATTNLADDER_EVIDENCE_H
#include <stddef.h>
#include <jansson.h>

#define EVIDENCE_SCHEMA "attnladder-evidence"
#define EVIDENCE_SCHEMA_VERSION 1

/* 0 when doc follows the schema; else -1 and err holds "<field path>: <problem>". */
int evidence_validate(const json_t *doc, char *err, size_t errlen);

/* Loads and validates a file. NULL on failure, err names the file and the field
 * (or the JSON parse position for a truncated or corrupt file). */
json_t *evidence_load(const char *path, char *err, size_t errlen);

/* Writes doc to path through a temporary file in the same directory, fsync and rename(2),
 * so a reader never sees a half-written file and a failure leaves any old file
 * intact. Creates missing parent directories. 0 or -1 with err. */
int evidence_write_atomic(const json_t *doc, const char *path, char *err, size_t errlen);


/* The most an evidence root may hold: every command that lists it (show, gate, report)
 * reads each run, and the report draws each GPU (evidence/SCHEMA.md, "Limits"). */
#define EVIDENCE_MAX_GPUS 64
#define EVIDENCE_MAX_RUNS 4096
#define EVIDENCE_MAX_ROOT_BYTES (512ull << 20)   /* all run files of a root: [~20 MB] */

/* Every run file under root (root/<gpu>/<yyyymmddThhmmssZ>*.json: not accepted.txt,
 * not auxiliary JSON such as tuning_*.json), sorted by path; partial files only when
 * include_partial. *paths is malloc'd (free with evidence_free_list). A missing root
 * is an empty list. 0 or -1 with err (unreadable directory, "" given, more than the
 * limits above). */
int evidence_list(const char *root, int include_partial, char ***paths, size_t *n,
                  char *err, size_t errlen);
void evidence_free_list(char **paths, size_t n);

#endif
