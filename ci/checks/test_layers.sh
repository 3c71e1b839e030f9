#!/usr/bin/env bash
# Proves the layering check can fail: in a scratch tree of four small harness files
# (core/a.c, core/b.c, report/r.c and the command cmd/c.c), the clean layout passes, and
# each planted violation fails: a core file including a report header, a core file
# calling a report function without including it, two core files calling each other, a
# stage including a command's header, and a source file outside cmd/ and the stages.
set -u
cd "$(dirname "$0")/../.."
check=$PWD/ci/checks/check_layers.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
write() {  # a_body b_body a_include
  rm -rf "$tmp/harness"
  mkdir -p "$tmp/harness/core" "$tmp/harness/report" "$tmp/harness/cmd"
  printf 'int c_main(void);\n' > "$tmp/harness/cmd/c.h"
  printf '#include "cmd/c.h"\n#include "report/r.h"\nint c_main(void) { return r_fn(); }\n' > "$tmp/harness/cmd/c.c"
  printf '#ifndef R_H\n#define R_H\nint r_fn(void);\n#endif\n' > "$tmp/harness/report/r.h"
  printf '#include "core/a.h"\nint r_fn(void) { return a_fn() + 1; }\n' > "$tmp/harness/report/r.c"
  printf 'int a_fn(void);\n' > "$tmp/harness/core/a.h"
  printf 'int b_fn(void);\n' > "$tmp/harness/core/b.h"
  printf '%s\n#include "core/b.h"\nint r_fn(void);\nint a_fn(void) { return %s; }\n' "$3" "$1" > "$tmp/harness/core/a.c"
  printf '#include "core/a.h"\nint b_fn(void) { return %s; }\n' "$2" > "$tmp/harness/core/b.c"
  # a file is compiled again only where its source differs from the last case's (the
  # headers never change): 11 compiles for the six cases, not 24
  for f in core/a core/b report/r cmd/c; do
    cmp -s "$tmp/harness/$f.c" "$tmp/compiled/$f.c" && continue
    mkdir -p "$tmp/build/obj/harness/$(dirname $f)" "$tmp/compiled/$(dirname $f)"
    gcc -c -I"$tmp/harness" -o "$tmp/build/obj/harness/$f.o" "$tmp/harness/$f.c" || exit 2
    cp "$tmp/harness/$f.c" "$tmp/compiled/$f.c"
  done
}
expect() {  # status what
  python3 "$check" --root "$tmp" --objects build/obj >"$tmp/out" 2>&1; got=$?
  if [ "$got" != "$1" ]; then
    echo "test_layers: $2: expected exit $1, got $got" >&2; cat "$tmp/out" >&2; fail=1
  fi
}
write 'b_fn()' '2' '';                         expect 0 "clean layout"
write 'b_fn()' '2' '#include "report/r.h"';    expect 1 "core including a report header"
write 'b_fn() + r_fn()' '2' '';                expect 1 "core calling a report function"
write 'b_fn()' 'a_fn()' '';                    expect 1 "two core files using each other"
write 'b_fn()' '2' '#include "cmd/c.h"';       expect 1 "core including a command's header"
write 'b_fn()' '2' '';
printf 'int x_fn(void) { return 0; }\n' > "$tmp/harness/x.c"
expect 1 "a source file directly under harness/, outside cmd/ and the stages"
[ $fail = 0 ] && echo "test_layers: the layering check catches upward includes, upward calls, files using each other and a source outside cmd/ and the stages"
exit $fail
