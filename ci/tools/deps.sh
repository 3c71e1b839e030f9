#!/usr/bin/env bash
# `make deps`: the Debian and Ubuntu packages that building and `make test` need, installed
# with apt-get (as root, or through sudo), chosen for the image at hand: the libFuzzer
# runtime comes with the installed clang's major version (clang 14 on Debian 12, 18 on
# Ubuntu 24.04), so no version is pinned to one distribution.
#   ci/tools/deps.sh                      install what is missing
#   ci/tools/deps.sh --list               print the packages this machine needs
#   ci/tools/deps.sh --fuzzer-package "$(clang --version | head -1)"
#                                         the fuzzer runtime package for that clang
set -u
BASE_PKGS="libjansson-dev libcmocka-dev gnuplot-nox pkg-config yamllint clang"

# "Debian clang version 14.0.6", "Ubuntu clang version 18.1.3 (1ubuntu1)", "clang version 19.1.0"
fuzzer_package() {
  local major
  major=$(printf '%s\n' "$1" | sed -n 's/.*clang version \([0-9][0-9]*\)\..*/\1/p' | head -1)
  [ -n "$major" ] || { echo "deps: cannot read clang's major version from '$1'" >&2; return 2; }
  echo "libclang-rt-$major-dev"
}

missing_of() {
  local p out=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || out="$out $p"
  done
  echo "$out"
}

install() {
  [ -n "$*" ] || return 0
  echo "deps: installing$*"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  { $sudo apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null; } \
    || { echo "deps: apt-get failed for:$*" >&2; return 1; }
}

case "${1:-}" in
  --fuzzer-package) fuzzer_package "${2:-}"; exit $? ;;
  --list)
    echo "$BASE_PKGS $(fuzzer_package "$(clang --version 2>/dev/null | head -1)" 2>/dev/null || echo "libclang-rt-<clang major>-dev")"
    exit 0 ;;
  "") ;;
  *) echo "usage: ci/tools/deps.sh [--list | --fuzzer-package CLANG_VERSION_LINE]" >&2; exit 2 ;;
esac
# shellcheck disable=SC2046
install $(missing_of $BASE_PKGS) || exit 1
fz=$(fuzzer_package "$(clang --version 2>/dev/null | head -1)") || exit 1
# shellcheck disable=SC2046
install $(missing_of "$fz") || exit 1
