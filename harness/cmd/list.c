/* list.c: `attnladder list`: every implementation found, its title, and which shapes
 * of the headline set and the sweep it supports (and why not). Needs no GPU. */
#include <stdio.h>
#include <string.h>
#include "core/args.h"
#include "cmd/commands.h"
#include "measure/loader.h"
#include "core/shapes.h"

#define MAX_POINTS 128

int cmd_list(int argc, char **argv)
{
    const char *build = "build";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--build")) {
            if (!(build = arg_value("list", argc, argv, &i))) return EXIT_BAD_INPUT;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: attnladder list [--build DIR]\n");
            return EXIT_OK;
        } else {
            fprintf(stderr, "attnladder list: unknown option '%s'; accepted: --build DIR\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    char err[1024];
    loaded_impl *impls;
    size_t n;
    if (loader_open_all(build, &impls, &n, err, sizeof err)) {
        fprintf(stderr, "attnladder list: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    shape_point pts[MAX_POINTS];
    size_t np = shapes_headline(pts, MAX_POINTS);
    np += shapes_sweep(pts + np, MAX_POINTS - np);
    for (size_t i = 0; i < n; i++) {
        const attn_phase *ph = impls[i].ph;
        size_t ok = 0;
        for (size_t p = 0; p < np; p++) ok += ph->unsupported(&pts[p].s) == NULL;
        printf("%-22s %-8s %3zu/%zu shapes  %s\n", ph->name, impl_kind_name(impls[i].kind), ok,
               np, ph->title);
        for (size_t p = 0; p < np; p++) {
            const char *why = ph->unsupported(&pts[p].s);
            if (!why) continue;
            char text[96];
            shape_format(&pts[p].s, text, sizeof text);
            printf("    not %-26s %s\n", text, why);
        }
    }
    loader_close_all(impls, n);
    return EXIT_OK;
}
