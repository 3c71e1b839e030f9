/* json_at.h: for the unit tests, the member of a JSON document at a path like
 * "results[1].timing.graph" (no leading dot); the test fails when it is absent.
 * Include after <cmocka.h>. */
#ifndef ATTNLADDER_TESTS_JSON_AT_H
#define ATTNLADDER_TESTS_JSON_AT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

static inline json_t *at(json_t *doc, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *x = doc;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ".", &save); tok && x; tok = strtok_r(NULL, ".", &save)) {
        char *br = strchr(tok, '[');
        if (br) *br = '\0';
        if (*tok) x = json_object_get(x, tok);
        while (br && x) {
            x = json_array_get(x, strtoul(br + 1, &br, 10));
            br = strchr(br, '[');
        }
    }
    if (!x) fail_msg("no member at %s", path);
    return x;
}

#endif
