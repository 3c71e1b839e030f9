/* gate.c: `attnladder gate`: the ladder gate on one run and, with --against, the drift
 * rule: against the accepted set of the GPU (`--against accepted`, the drift gate), or
 * against one reference run with the set's tolerances (`--against RUN`, the comparison
 * compare and the report make of the same pair).
 * Exit 0 pass, 1 a gate failed, 2 bad input (unreadable evidence or config, baseline
 * missing, runs of different GPUs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/args.h"
#include "core/files.h"
#include "cmd/commands.h"
#include "evidence/consistency.h"
#include "evidence/run_lists.h"
#include "evidence/evidence_file.h"
#include "gate/config.h"
#include "gate/drift_gate.h"
#include "gate/drift_spread.h"
#include "gate/evaluate.h"
#include "evidence/reader.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: attnladder gate [RUN.json] [--against REF.json | --against accepted]\n"
        "                       [--config FILE] [--evidence DIR] [--json FILE] [--brief]\n"
        "                       [--include-partial] [--study]\n"
        "  RUN.json            the run to gate (default: the newest complete run under --evidence)\n"
        "  --against REF.json  also this run against that one of the same GPU, by the drift\n"
        "                      rule with the tolerance the accepted set's spread gives\n"
        "                      (DIR/<gpu>/accepted.txt; the floor alone without it), as\n"
        "                      compare and the report judge the pair\n"
        "  --against accepted  also the drift gate against the accepted set of runs listed in\n"
        "                      DIR/<gpu>/accepted.txt (tolerance from their spread; blocks\n"
        "                      only a run whose ratio's CI lies past it, slower)\n"
        "  --config FILE       bounds and regression rule (default " GATE_CONFIG_DEFAULT ")\n"
        "  --evidence DIR      evidence root (default evidence)\n"
        "  --json FILE         also write the verdicts as JSON\n"
        "  --brief             print only the failed and inconclusive checks\n"
        "  --include-partial   accept an interrupted (partial) run\n"
        "  --study             gate a run made with a planted slowdown or an ATTN* override\n"
        "                      (measuring the gate itself; refused otherwise)\n"
        "exit status: 0 pass, 1 gate failed, 2 bad input\n");
}

/* What one `gate` holds between its stages; gate_close is the one cleanup. */
typedef struct {
    const char *root, *config, *against, *json_out, *file;
    int brief, include_partial, study;
    gate_config cfg;
    int have_cfg;
    run_data run, ref;
    int have_ref;
    gate_outcome ladder, reg;
    run_data *refs;                /* the accepted set without the run itself */
    size_t n_refs;
    drift_outcome drift;
    int have_drift;
    char err[1536];
} gate_session;

/* The options. 0, 1 (--help printed: exit OK), or -1 (refused, printed). */
static int gate_parse(gate_session *g, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--brief")) {
            g->brief = 1;
        } else if (!strcmp(a, "--include-partial")) {
            g->include_partial = 1;
        } else if (!strcmp(a, "--study")) {
            g->study = 1;
        } else if (!strcmp(a, "--against") || !strcmp(a, "--config") || !strcmp(a, "--evidence") ||
                   !strcmp(a, "--json")) {
            const char *v = arg_value("gate", argc, argv, &i);
            if (!v) return -1;
            if (!strcmp(a, "--against")) g->against = v;
            else if (!strcmp(a, "--config")) g->config = v;
            else if (!strcmp(a, "--evidence")) g->root = v;
            else g->json_out = v;
        } else if (a[0] == '-') {
            fprintf(stderr, "attnladder gate: unknown option '%s'; accepted: --against, --config, "
                    "--evidence, --json, --brief, --include-partial, --study, RUN.json\n", a);
            return -1;
        } else if (g->file) {
            fprintf(stderr, "attnladder gate: one run at a time ('%s' and '%s')\n", g->file, a);
            return -1;
        } else {
            g->file = a;
        }
    }
    return 0;
}

/* Every argument checked without reading the evidence: --json a file that can be made
 * (never over what the gate reads), the run, the reference and the config files that can
 * be read, --evidence no file. The accepted set is three 8 MB runs on a GPU: a wrong
 * argument is refused before it is read, not after. 0, or -1 (err). */
static int gate_check_arguments(gate_session *g)
{
    /* --json is written whole over what is there: never over what the gate reads */
    int uses_root = !g->file || g->against;   /* --against RUN reads the accepted set's spread too */
    const char *ref = g->against && strcmp(g->against, "accepted") ? g->against : NULL;
    const char *inputs[] = { g->file, ref, g->config, uses_root ? g->root : NULL };
    if (g->json_out && (files_output_file("--json", g->json_out, inputs, 4, g->err, sizeof g->err) ||
                        files_output_folder("--json", g->json_out, g->err, sizeof g->err)))
        return -1;
    if ((g->file && files_input_ok("", g->file, EVIDENCE_MAX_FILE_BYTES, g->err, sizeof g->err)) ||
        (ref && files_input_ok("--against", ref, EVIDENCE_MAX_FILE_BYTES, g->err, sizeof g->err)) ||
        files_input_ok("--config", g->config, GATE_CONFIG_MAX_BYTES, g->err, sizeof g->err))
        return -1;
    struct stat st;
    if (uses_root && stat(g->root, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char shown[FILES_SHOWN];
        snprintf(g->err, sizeof g->err, "--evidence '%s': not a directory (the evidence root: DIR/<gpu>/...)",
                 files_shown(g->root, shown));
        return -1;
    }
    return 0;
}

/* The arguments, then the config. 0, or -1 (printed). */
static int gate_prepare(gate_session *g)
{
    if (gate_check_arguments(g)) {
        fprintf(stderr, "attnladder gate: %s\n", g->err);
        return -1;
    }
    if (gate_config_load(g->config, &g->cfg, g->err, sizeof g->err)) {
        fprintf(stderr, "attnladder gate: %s\n", g->err);
        return -1;
    }
    g->have_cfg = 1;
    return 0;
}

/* The run gated (named, else the newest) and its ladder gate. 0, or -1 (err). */
static int gate_run_ladder(gate_session *g)
{
    run_data *run = &g->run;
    if (g->file ? run_open(run, g->file, g->err, sizeof g->err)
                : run_open_newest(run, g->root, g->include_partial, g->err, sizeof g->err)) return -1;
    if (g->study && (run->planted || run->overrides)) {
        /* a study of the gate itself gates planted runs on purpose, and says so */
        fprintf(stderr, "attnladder gate: %s was made with %s%s; gated for a study (--study)\n", run->path,
                run->planted ? run->planted : "", run->overrides ? run->overrides : "");
        run->planted = NULL;
        run->overrides = NULL;
    }
    if (run->partial && !g->include_partial) {
        snprintf(g->err, sizeof g->err, "%s: a partial (interrupted) run; gate it with --include-partial",
                 run->path);
        return -1;
    }
    return gate_ladder(&g->cfg, run, &g->ladder, g->err, sizeof g->err) ? -1 : 0;
}

/* --against: the drift gate against the accepted set (the run itself left out), or the
 * regression rule against one run with the set's tolerances. 0, or -1 (err). */
static int gate_against(gate_session *g)
{
    if (!g->against) return 0;
    int one_ref = strcmp(g->against, "accepted") != 0;
    /* the reference before the set: a bad reference is refused without reading three runs */
    if (one_ref) {
        if (run_open(&g->ref, g->against, g->err, sizeof g->err)) return -1;
        g->have_ref = 1;
        if (g->ref.partial && !g->include_partial) {
            snprintf(g->err, sizeof g->err, "%.1000s: the reference is a partial (interrupted) run; use it with "
                     "--include-partial", g->against);
            return -1;
        }
    }
    int have_set = evidence_accepted_open(g->root, g->run.slug, g->run.base, &g->refs, &g->n_refs, g->err,
                                          sizeof g->err);
    if (have_set < 0 || (have_set == 0 && !one_ref)) return -1;
    if (!one_ref) {
        if (gate_drift(&g->cfg, &g->run, g->refs, g->n_refs, &g->drift, g->err, sizeof g->err)) return -1;
        g->have_drift = 1;
        return 0;
    }
    if (!have_set)
        fprintf(stderr, "attnladder gate: no %s/%s/accepted.txt: the tolerance of every row is the floor "
                "(drift.floor), with no set to measure the spread between processes\n", g->root, g->run.slug);
    drift_spread sp;
    if (drift_spread_of(&g->cfg, g->refs, g->n_refs, &sp, g->err, sizeof g->err)) return -1;
    int grc = gate_regression(&g->cfg, &g->run, &g->ref, &sp, &g->reg, g->err, sizeof g->err);
    drift_spread_free(&sp);
    return grc ? -1 : 0;
}

/* --json: the verdicts as JSON, the drift gate's failures counted in. 0, or -1 (err). */
static int gate_write_json(gate_session *g)
{
    if (!g->json_out) return 0;
    json_t *j = gate_json(&g->cfg, &g->run, g->have_ref ? &g->ref : NULL, &g->ladder, g->have_ref ? &g->reg : NULL);
    if (g->have_drift) json_object_set_new(j, "drift", drift_json(&g->cfg, &g->drift));
    if (g->have_drift && g->drift.slower) {
        json_object_set_new(j, "pass", json_false());
        json_object_set_new(j, "failures", json_integer(json_integer_value(json_object_get(j, "failures")) +
                                                        (json_int_t)g->drift.slower));
    }
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(j);
    char why[1024] = "out of memory";
    if (!text || files_write_atomic(g->json_out, text, strlen(text), why, sizeof why)) {
        free(text);
        char shown[FILES_SHOWN];
        snprintf(g->err, sizeof g->err, "--json %s: cannot write it (%s)", files_shown(g->json_out, shown), why);
        return -1;
    }
    free(text);
    return 0;
}

/* The tables and the exit status. */
static int gate_report(const gate_session *g)
{
    int rc = g->ladder.failures || g->reg.failures || g->drift.slower ? EXIT_GATE : EXIT_OK;
    gate_print(stdout, &g->cfg, &g->run, g->have_ref ? &g->ref : NULL, &g->ladder, g->have_ref ? &g->reg : NULL,
               g->brief);
    if (g->have_drift) {
        drift_print(stdout, &g->cfg, &g->drift, g->brief);
        printf("\ndrift gate: %s (%zu of %zu rows slower than the set allows)\n",
               g->drift.lib.verdict == BASELINE_LIB_CHANGED ? "BASELINE CHANGED" :
               !g->drift.judged ? "NOT JUDGED" : g->drift.slower ? "FAIL" : "PASS", g->drift.slower, g->drift.n);
    }
    return rc;
}

static void gate_close(gate_session *g)
{
    gate_outcome_free(&g->ladder);
    gate_outcome_free(&g->reg);
    if (g->have_ref) run_close(&g->ref);
    drift_outcome_free(&g->drift);
    for (size_t i = 0; i < g->n_refs; i++) run_close(&g->refs[i]);
    free(g->refs);
    run_close(&g->run);
    if (g->have_cfg) gate_config_free(&g->cfg);
}

int cmd_gate(int argc, char **argv)
{
    static gate_session g;   /* large: kept off the stack */
    g = (gate_session){ .root = "evidence", .config = GATE_CONFIG_DEFAULT };
    int parsed = gate_parse(&g, argc, argv);
    if (parsed) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (gate_prepare(&g)) return EXIT_BAD_INPUT;
    int rc = EXIT_BAD_INPUT;
    if (gate_run_ladder(&g) || gate_against(&g) || gate_write_json(&g))
        fprintf(stderr, "attnladder gate: %s\n", g.err);
    else
        rc = gate_report(&g);
    gate_close(&g);
    return rc;
}
