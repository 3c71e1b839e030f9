/* measure/ncu_csv.h: reading Nsight Compute's `--csv --page raw` output.
 * The CSV is RFC 4180 (quoted fields, "" escapes); no C CSV library is installed on the
 * GPU machine, and the subset needed is a short field splitter, so it lives here. */
#ifndef ATTNLADDER_NCU_CSV_H
#define ATTNLADDER_NCU_CSV_H
#include <stddef.h>
#include <jansson.h>

/* Splits one CSV line in place into at most max fields; returns the count. */
size_t csv_split(char *line, char **fields, size_t max);

/* Parses the whole raw-page CSV text: the header row names the columns, a units row
 * follows, then one row per profiled kernel. Returns an array of
 * {"kernel": name, "metrics": {metric: number | string}} for the metric columns named
 * in `wanted` (NULL-terminated; a name ending in '*' is a prefix), or NULL when no header row is found. */
json_t *ncu_parse_raw_csv(const char *text, const char *const *wanted);

/* The launch floor's kernel (kernels/launch_floor: "empty_kernel", one block of 32
 * threads), which `profile --target` launches before each implementation it profiles, so
 * that one ncu process can profile several. */
#define NCU_MARKER_KERNEL "empty_kernel"

/* Splits the parsed page of one process that ran n implementations, each after one marker
 * launch, into n arrays of that implementation's kernels (copies, markers dropped). NULL
 * when the rows do not start with a marker, the markers are not n, or an implementation
 * launched no kernel: the caller then profiles them one process each. */
json_t *ncu_split_by_marker(const json_t *kernels, size_t n);

#endif
