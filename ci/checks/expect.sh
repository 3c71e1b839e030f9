# Sourced by the check scripts that run a command per case: expect NAME STATUS WORDS CMD...
# runs CMD and records a failure (through the caller's note()) unless it exits STATUS with
# WORDS in its output. The caller provides $tmp (a scratch directory), note() and `cases`.
expect() {
  local name=$1 want=$2 words=$3; shift 3
  cases=$((cases + 1))
  "$@" > "$tmp/out.txt" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || note "$name: exit $rc, expected $want: $(tail -3 "$tmp/out.txt")"
  grep -q -- "$words" "$tmp/out.txt" || note "$name: output lacks '$words': $(tail -3 "$tmp/out.txt")"
}
