#!/usr/bin/env bash
# The dependency choice follows the image: the fuzzer runtime package is the installed
# clang's (Debian 12: 14, Ubuntu 24.04: 18, any other release by its number), and a line
# that names no version is refused rather than guessed.
set -u
cd "$(dirname "$0")/../.."
fail=0
expect() {  # clang-version-line expected-output expected-status
  out=$(bash ci/tools/deps.sh --fuzzer-package "$1" 2>/dev/null); got=$?
  if [ "$out" != "$2" ] || [ "$got" != "$3" ]; then
    echo "test_deps: '$1': expected '$2' (exit $3), got '$out' (exit $got)" >&2; fail=1
  fi
}
expect "Debian clang version 14.0.6" libclang-rt-14-dev 0
expect "Ubuntu clang version 18.1.3 (1ubuntu1)" libclang-rt-18-dev 0
expect "clang version 19.1.7 (Fedora 19.1.7-3.fc41)" libclang-rt-19-dev 0
expect "Apple clang version 15.0.0 (clang-1500.3.9.4)" libclang-rt-15-dev 0
expect "gcc (Debian 12.2.0-14) 12.2.0" "" 2
expect "" "" 2
# this machine: the package for its own clang is installed (make deps ran before make test)
pkg=$(bash ci/tools/deps.sh --fuzzer-package "$(clang --version | head -1)")
dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
  || { echo "test_deps: $pkg (this clang's fuzzer runtime) is not installed" >&2; fail=1; }
[ $fail = 0 ] && echo "test_deps: the fuzzer runtime follows the installed clang ($pkg here)"
exit $fail
