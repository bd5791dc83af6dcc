#!/usr/bin/env bash
# Crash-free exit: runs the release binary RUNS times (default 500) on a message
# that fails to decrypt, with OpenSSL's set-up slowed by an LD_PRELOAD shim, and
# fails if any run ends by a signal. Before the fix (exit() racing the set-up
# thread) about 1 run in 100-300 died of SIGSEGV/SIGILL here.
set -euo pipefail
binary=${1:?usage: exit-race.sh RWSECRET_BINARY}
runs=${RUNS:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -shared -fPIC -O2 -o "$work/slow-fetch.so" "$(dirname "$0")/slow-fetch.c" -ldl
# A v3 message of "hello" under the password "right" (made by rwsecret itself).
printf 'hello\n' | RWSECRET_PASSWORD=right "$binary" encrypt > "$work/message.txt"
crashed=0
for _ in $(seq "$runs"); do
  status=0
  RWSECRET_PASSWORD=wrong LD_PRELOAD="$work/slow-fetch.so" "$binary" decrypt --no-store \
    < "$work/message.txt" > /dev/null 2> "$work/stderr" || status=$?
  if [ "$status" -gt 128 ]; then
    crashed=$((crashed + 1))
    echo "exit-race: run ended by signal $((status - 128)): $(head -c 200 "$work/stderr")" >&2
  elif [ "$status" -ne 1 ]; then
    echo "exit-race: expected exit 1, got $status" >&2; exit 1
  fi
done
if [ "$crashed" -gt 0 ]; then echo "exit-race: FAILED: $crashed of $runs runs crashed" >&2; exit 1; fi
echo "exit-race: $runs runs with a slowed OpenSSL set-up, none crashed"
