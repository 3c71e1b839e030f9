/* report/kernel_names.h: which kernel of a shared object a profiled kernel is. The
 * profiler names a kernel that ran as it demangles it ("void <unnamed>::f<64, 1>(...)");
 * the object's resources (registers, spills) list its kernels by their Itanium-mangled
 * names ("_ZN..1fILi64ELb1EEEv..."). Both are read into the same parts, the kernel's own
 * name, the namespaces around it and its template arguments, and compared part by part.
 *
 * The forms read (harness/tests/report/test_kernel_names.c has a case of each), and nothing else:
 *   mangled:   _Z <len><name> [I args E] ...   or   _ZN <len><name>... [I args E] E ...
 *              (two or more names, template arguments only on the last; a name starting
 *              _GLOBAL__N is an anonymous namespace; args each Li<n>E, Lin<n>E (negative)
 *              or Lb0E / Lb1E); or an unmangled (extern "C") name, letters, digits, '_'.
 *   demangled: ["void "] [ns::]... name [<args>] [(parameters)], each ns a name,
 *              `<unnamed>` or `(anonymous namespace)`; args integers, true or false.
 * What ncu prints is read as it prints it: bools as 0 and 1 (matching Lb0E / Lb1E as
 * well as Li0E / Li1E), a leading named namespace left out (`tiling::flash_fwd` printed
 * `flash_fwd`), and an anonymous namespace inside a named one printed `unnamed>` (for
 * `rung09::<unnamed>`). So the profile's namespaces are compared innermost first, as far
 * as it names them: a name left out matches any, a name given must be the same (in order,
 * some of the build's left out: ncu prints `rung11::rung10::<unnamed>` as
 * `rung11::<unnamed>` in the H200 sessions of build 0513906), and
 * `unnamed>` is an anonymous namespace with the ones around it unknown. */
#ifndef ATTNLADDER_REPORT_KERNEL_NAMES_H
#define ATTNLADDER_REPORT_KERNEL_NAMES_H
#include <stddef.h>

#define KERNEL_NAME_MAX 1024        /* longer names are not read (no evidence string is longer) */
#define KERNEL_NAME_MAX_PARTS 16    /* namespaces, and template arguments, read at most */

typedef struct {
    const char *s;                  /* into the name read; not terminated */
    size_t len;                     /* 0: an anonymous namespace */
} kernel_name_part;

typedef struct {
    kernel_name_part name;          /* the kernel's own; len 0 when the name was not read */
    kernel_name_part ns[KERNEL_NAME_MAX_PARTS];   /* outermost first */
    size_t n_ns;
    int templated;
    kernel_name_part arg[KERNEL_NAME_MAX_PARTS];  /* the digits of each template argument */
    int arg_negative[KERNEL_NAME_MAX_PARTS];
    char arg_type[KERNEL_NAME_MAX_PARTS];         /* 'i', 'b'; 0: a demangled number (int or bool) */
    size_t n_args;
} kernel_name;

/* The parts of a name as the profiler prints it, or of a name of the object's resources.
 * 0, or -1 when the name is not one of the forms read (out is then blank and matches
 * nothing). The parts point into s, which must outlive out. */
int kernel_name_from_profile(const char *s, kernel_name *out);
int kernel_name_from_build(const char *s, kernel_name *out);

/* 1 when the profiled kernel ran is the build's kernel built, else 0 (also when either
 * was not read). */
int kernel_name_same(const kernel_name *ran, const kernel_name *built);

/* The one of the build's n names that ran is: its index, or -1 when none is, or when
 * more than one could be (a spill count is never taken from the wrong kernel). */
long kernel_name_find(const kernel_name *ran, const kernel_name *built, size_t n);

/* Both names read and the same kernel (a test's and a single lookup's shorthand). */
int kernel_names_match(const char *profiled, const char *mangled);

#endif
