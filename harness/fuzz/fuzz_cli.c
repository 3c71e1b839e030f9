/* libFuzzer target: the command-line parsers (run's options, shapes, numbers). The
 * input is split at newlines into argv; must never crash, hang or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/run_options.h"
#include "core/shapes.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = "run";
    for (char *p = buf; argc < MAX_ARGS;) {
        argv[argc++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;
    static run_opts o;
    FILE *saved = stderr, *saved_out = stdout;
    stderr = fopen("/dev/null", "w");   /* the parsers explain every refusal */
    stdout = fopen("/dev/null", "w");   /* and print the usage on --help */
    parse_run_opts(argc, argv, &o);
    run_opts_free(&o);
    attn_shape s;
    char err[256];
    shape_parse(argv[argc - 1], &s, err, sizeof err);
    fclose(stderr);
    fclose(stdout);
    stderr = saved;
    stdout = saved_out;
    free(buf);
    return 0;
}
