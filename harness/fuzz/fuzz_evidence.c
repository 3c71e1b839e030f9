/* libFuzzer target: the evidence reader (JSON parse + schema validation) on arbitrary
 * bytes. Seeded from the committed evidence files; must never crash, hang or leak. */
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "evidence/evidence_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *doc = json_loadb((const char *)data, size, 0, &je);
    if (!doc) return 0;
    char err[512];
    evidence_validate(doc, err, sizeof err);
    json_decref(doc);
    return 0;
}
