/* evidence/accepted.c: the accepted reference run of a GPU (accepted.h says the rule). */
#include "evidence/accepted.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "core/names.h"

int evidence_accepted(const char *root, const char *slug, char *name, size_t name_len,
                      char *path, size_t path_len, char *err, size_t errlen)
{
    char txt[4096];
    snprintf(txt, sizeof txt, "%s/%s/accepted.txt", root, slug);
    FILE *f = fopen(txt, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read it: no accepted reference run for this GPU yet "
                 "(write the file name of a run into it to accept that run)", txt);
        return errno == ENOENT ? 0 : -1;
    }
    char line[512] = "";
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    size_t l = strlen(s);
    while (l && (s[l - 1] == ' ' || s[l - 1] == '\t')) s[--l] = '\0';
    int partial = 0;
    if (!name_is_run_file(s, &partial) || partial) {
        snprintf(err, errlen, "%s: must hold the file name of one complete run in that directory "
                 "(yyyymmddThhmmssZ_<commit>.json), got '%s'", txt, s);
        return -1;
    }
    snprintf(name, name_len, "%s", s);
    snprintf(path, path_len, "%s/%s/%s", root, slug, s);
    return 1;
}
