/* evidence/accepted.h: the accepted reference run of a GPU, the one lookup that gate,
 * report and the workflow's scripts (through `attnladder accepted`) share.
 *
 * <root>/<slug>/accepted.txt holds the file name of one run in that directory on its
 * first line; blanks around it are ignored. A name with '/' or a leading '.', or one that
 * is not a run file (<yyyymmddThhmmssZ>...json, not partial), is refused: the file must
 * not point outside its GPU's directory. */
#ifndef ATTNLADDER_EVIDENCE_ACCEPTED_H
#define ATTNLADDER_EVIDENCE_ACCEPTED_H
#include <stddef.h>

/* 1 and name (the file name) and path (<root>/<slug>/<name>) filled; 0 when there is no
 * accepted.txt (err says so); -1 when it is unreadable or names no valid run file
 * (err names the file and what it holds). */
int evidence_accepted(const char *root, const char *slug, char *name, size_t name_len,
                      char *path, size_t path_len, char *err, size_t errlen);

#endif
