#!/bin/sh
# One more command must not make a decrypt's start-up dearer (issue 36): builds the release
# binary again with one more subcommand compiled in (`-D RWS_EXTRA_COMMAND`:
# Sources/rwsecret/Commands/ExtraCommand.swift, four options and an argument), in its own scratch path,
# and counts one small message's instructions outside the KDF in both binaries
# (instructions-outside-kdf.sh: callgrind, deterministic, never timed). Fails when the one
# command adds more than 0.2 M. Before `decrypt` was parsed by hand, each command and option
# went through ArgumentParser's reflection on every run; since the front (Sources/RWSecretFront)
# runs `decrypt` without ArgumentParser, a command is not even in the binary that decrypts.
# Usage: sh scripts/startup-growth.sh BIN RELEASE_FLAGS...   (`make check-startup-growth`)
set -u
bin=$1
shift
here=$(cd "$(dirname "$0")/.." && pwd)
SWIFT=${SWIFT:-swift}
limit=200000
fail() { echo "FAILED: $*"; exit 1; }
scratch="$here/.build/startup-growth"
for product in rwsecret rwsecret-commands; do
  "$SWIFT" build --package-path "$here" --scratch-path "$scratch" "$@" -Xswiftc -DRWS_EXTRA_COMMAND --product "$product" >&2 \
    || fail "the build with one more command failed"
done
extra="$("$SWIFT" build --package-path "$here" --scratch-path "$scratch" "$@" --show-bin-path)/rwsecret"
"$extra" extra --help | grep -q 'only measures start-up' || fail "$extra has no extra command"
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
printf 'right\n' > "$dir/pw" && chmod 600 "$dir/pw"
printf 'a small secret\n' | "$bin" encrypt --password-file "$dir/pw" > "$dir/msg" || fail "$bin encrypt failed"
count() {
  counts=$(sh "$here/scripts/instructions-outside-kdf.sh" "$dir/out" "$1" decrypt --no-store --password-file "$dir/pw" "$dir/msg") \
    || fail "counting instructions of $1 failed"
  [ "$(cat "$dir/out")" = "a small secret" ] || fail "$1 decrypted '$(cat "$dir/out")'"
  echo "${counts% *}"
}
before=$(count "$bin")
after=$(count "$extra")
growth=$((after - before))
echo "startup-growth: one small message, instructions outside the KDF: $before without, $after with one more command ($growth, limit $limit)"
[ "$growth" -le "$limit" ] || fail "one more command added $growth instructions to a decrypt's start-up (limit $limit)"
