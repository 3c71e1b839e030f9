/* libFuzzer target: the evidence reader (JSON parse, schema validation, the run against
 * itself, the typed reader) on mutated runs, in bytes and in structure
 * (mutate_structure.c). Seeded from the committed evidence files; must never crash, hang
 * or leak. */
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "evidence/evidence_file.h"
#include "evidence/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *doc = json_loadb((const char *)data, size, 0, &je);
    if (!doc) return 0;
    char err[1024];
    run_data r;
    /* what validates is read by the one reader every consumer uses */
    if (evidence_validate(doc, err, sizeof err) == 0 &&
        run_from_doc(&r, doc, "ev/nvidia-h100-80gb-hbm3/20990101T000000Z_fuzz000.json", err, sizeof err) == 0)
        run_close(&r);
    json_decref(doc);
    return 0;
}
