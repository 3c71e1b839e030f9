/* gate.c: `attnladder gate`: the ladder gate on one run and, with --against, the drift
 * rule: against the accepted set of the GPU (`--against accepted`, the drift gate), or
 * against one reference run with the set's tolerances (`--against RUN`, the comparison
 * compare and the report make of the same pair).
 * Exit 0 pass, 1 a gate failed, 2 bad input (unreadable evidence or config, baseline
 * missing, runs of different GPUs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/args.h"
#include "core/files.h"
#include "commands.h"
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

int cmd_gate(int argc, char **argv)
{
    const char *root = "evidence", *config = GATE_CONFIG_DEFAULT, *against = NULL;
    const char *json_out = NULL, *file = NULL;
    int brief = 0, include_partial = 0, study = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--brief")) {
            brief = 1;
        } else if (!strcmp(a, "--include-partial")) {
            include_partial = 1;
        } else if (!strcmp(a, "--study")) {
            study = 1;
        } else if (!strcmp(a, "--against") || !strcmp(a, "--config") || !strcmp(a, "--evidence") ||
                   !strcmp(a, "--json")) {
            const char *v = arg_value("gate", argc, argv, &i);
            if (!v) return EXIT_BAD_INPUT;
            if (!strcmp(a, "--against")) against = v;
            else if (!strcmp(a, "--config")) config = v;
            else if (!strcmp(a, "--evidence")) root = v;
            else json_out = v;
        } else if (a[0] == '-') {
            fprintf(stderr, "attnladder gate: unknown option '%s'; accepted: --against, --config, "
                    "--evidence, --json, --brief, --include-partial, --study, RUN.json\n", a);
            return EXIT_BAD_INPUT;
        } else if (file) {
            fprintf(stderr, "attnladder gate: one run at a time ('%s' and '%s')\n", file, a);
            return EXIT_BAD_INPUT;
        } else {
            file = a;
        }
    }
    char err[1536];
    /* --json is written whole over what is there: never over what the gate reads */
    int uses_root = !file || against;   /* --against RUN reads the accepted set's spread too */
    const char *inputs[] = { file, against && strcmp(against, "accepted") ? against : NULL, config,
                             uses_root ? root : NULL };
    if (json_out && files_output_file("--json", json_out, inputs, 4, err, sizeof err)) {
        fprintf(stderr, "attnladder gate: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    gate_config cfg;
    if (gate_config_load(config, &cfg, err, sizeof err)) {
        fprintf(stderr, "attnladder gate: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_BAD_INPUT;
    run_data run = { 0 }, ref = { 0 };
    gate_outcome ladder = { 0 }, reg = { 0 };
    int have_ref = 0;
    run_data *refs = NULL;
    size_t n_refs = 0;
    drift_outcome drift = { 0 };
    int have_drift = 0;
    if (file ? run_open(&run, file, err, sizeof err)
             : run_open_newest(&run, root, include_partial, err, sizeof err)) goto bad;
    if (study && (run.planted || run.overrides)) {
        /* a study of the gate itself gates planted runs on purpose, and says so */
        fprintf(stderr, "attnladder gate: %s was made with %s%s; gated for a study (--study)\n", run.path,
                run.planted ? run.planted : "", run.overrides ? run.overrides : "");
        run.planted = NULL;
        run.overrides = NULL;
    }
    if (run.partial && !include_partial) {
        snprintf(err, sizeof err, "%s: a partial (interrupted) run; gate it with --include-partial", run.path);
        goto bad;
    }
    if (gate_ladder(&cfg, &run, &ladder, err, sizeof err)) goto bad;
    /* the accepted set without the run itself (a member is gated against the others): the
     * reference of --against accepted, the tolerances of --against RUN */
    int have_set = 0;
    if (against) {
        have_set = evidence_accepted_open(root, run.slug, run.base, &refs, &n_refs, err, sizeof err);
        if (have_set < 0 || (have_set == 0 && !strcmp(against, "accepted"))) goto bad;
    }
    if (against && !strcmp(against, "accepted")) {
        if (gate_drift(&cfg, &run, refs, n_refs, &drift, err, sizeof err)) goto bad;
        have_drift = 1;
    } else if (against) {
        const char *refpath = against;
        if (run_open(&ref, refpath, err, sizeof err)) goto bad;
        have_ref = 1;
        if (ref.partial && !include_partial) {
            snprintf(err, sizeof err, "%.1000s: the reference is a partial (interrupted) run; use it with "
                     "--include-partial", refpath);
            goto bad;
        }
        if (!have_set)
            fprintf(stderr, "attnladder gate: no %s/%s/accepted.txt: the tolerance of every row is the floor "
                    "(drift.floor), with no set to measure the spread between processes\n", root, run.slug);
        drift_spread sp;
        if (drift_spread_of(&cfg, refs, n_refs, &sp, err, sizeof err)) goto bad;
        int grc = gate_regression(&cfg, &run, &ref, &sp, &reg, err, sizeof err);
        drift_spread_free(&sp);
        if (grc) goto bad;
    }
    if (json_out) {
        json_t *j = gate_json(&cfg, &run, have_ref ? &ref : NULL, &ladder, have_ref ? &reg : NULL);
        if (have_drift) json_object_set_new(j, "drift", drift_json(&cfg, &drift));
        if (have_drift && drift.slower) {
            json_object_set_new(j, "pass", json_false());
            json_object_set_new(j, "failures", json_integer(json_integer_value(json_object_get(j, "failures")) +
                                                            (json_int_t)drift.slower));
        }
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        json_decref(j);
        char why[1024] = "out of memory";
        if (!text || files_write_atomic(json_out, text, strlen(text), why, sizeof why)) {
            free(text);
            char shown[FILES_SHOWN];
            snprintf(err, sizeof err, "--json %s: cannot write it (%s)", files_shown(json_out, shown), why);
            goto bad;
        }
        free(text);
    }
    rc = ladder.failures || reg.failures || drift.slower ? EXIT_GATE : EXIT_OK;
    gate_print(stdout, &cfg, &run, have_ref ? &ref : NULL, &ladder, have_ref ? &reg : NULL, brief);
    if (have_drift) {
        drift_print(stdout, &cfg, &drift, brief);
        printf("\ndrift gate: %s (%zu of %zu rows slower than the set allows)\n",
               !drift.judged ? "NOT JUDGED" : drift.slower ? "FAIL" : "PASS", drift.slower, drift.n);
    }
    goto done;
bad:
    fprintf(stderr, "attnladder gate: %s\n", err);
done:
    gate_outcome_free(&ladder);
    gate_outcome_free(&reg);
    if (have_ref) run_close(&ref);
    drift_outcome_free(&drift);
    for (size_t i = 0; i < n_refs; i++) run_close(&refs[i]);
    free(refs);
    run_close(&run);
    gate_config_free(&cfg);
    return rc;
}
