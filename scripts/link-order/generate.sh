#!/bin/sh
# Writes scripts/link-order/rwsecret.order: the functions a release `rwsecret` (the front) executes
# in the runs below, first seen first. `make release` hands the file to lld
# (--symbol-ordering-file), which puts those functions side by side at the start of the code, so
# that a run faults in a few 64 KiB stretches of it instead of one for every function it calls
# (issue 36: a one-message decrypt touched 68 such stretches; docs/performance.md, "Code laid out
# in the order it runs"). A function the file names that the binary lacks is skipped; one the file
# lacks goes where it would have gone: a stale file costs time, never correctness.
# `make link-order` rebuilds the release and runs this; check-startup.sh fails when the stretches
# a one-message decrypt touches go over its budget, which is when to run it.
# Usage: generate.sh BIN   (needs valgrind, objcopy and nm)
set -eu
umask 077
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
for tool in valgrind objcopy nm python3; do command -v "$tool" >/dev/null || { echo "generate.sh: $tool is needed" >&2; exit 1; }; done
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
# Valgrind 3.19 cannot read the Swift runtime's DWARF 5: a copy without debug sections runs.
objcopy --strip-debug "$bin" "$dir/rwsecret"
printf 'right\n' > "$dir/pw"
printf 'other\nright\n' > "$dir/pws"
printf 'a small secret\n' | "$bin" encrypt --password-file "$dir/pw" > "$dir/msg"
for secret in one two three four; do
  printf '%s\n' "$secret" | "$bin" encrypt --password-file "$dir/pw" >> "$dir/lines"
done
profile() {
  n=$1; shift
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$dir/p$n" "$dir/rwsecret" "$@" > /dev/null 2> "$dir/log$n" \
    || { echo "generate.sh: the run failed under callgrind: $*" >&2; tail -3 "$dir/log$n" >&2; exit 1; }
}
# First what issue 36's row (a) times: one small message, a password file, no store.
profile 1 decrypt --no-store --password-file "$dir/pw" "$dir/msg"
# Then lines from stdin, two passwords (the first wrong) on two jobs: the pipeline's threads.
profile 2 decrypt --no-store --jobs 2 --password-file "$dir/pws" - < "$dir/lines"
# And --json, with the first message of the file again.
profile 3 decrypt --no-store --json --password-file "$dir/pws" "$dir/lines"
python3 "$here/executed.py" order "$dir/rwsecret" "$dir/p1" "$dir/p2" "$dir/p3" > "$here/rwsecret.order"
echo "generate.sh: $(wc -l < "$here/rwsecret.order") functions in $here/rwsecret.order"
