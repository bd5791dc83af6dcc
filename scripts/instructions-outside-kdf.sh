#!/bin/sh
# Instructions one run of BIN ARGS... executes outside key derivation, counted by callgrind
# (used by startup-cost.sh for `make bench` and by check-startup.sh for `make check-install`).
#
# Valgrind 3.19 cannot read the DWARF 5 of the Swift runtime, so a copy without debug
# sections (symbols kept) is measured. Everything the process executes is counted, both
# threads, the dynamic loader and exit included, except inside Crypto.pbkdf2SHA1 (the KDF:
# HMAC state set-up and the iteration kernel). Under valgrind the CPU has no SHA extensions,
# so the portable kernel runs; it is excluded all the same. The whole run is counted too, to
# check that the exclusion happened: a right password's KDF is two derivations (~75 M
# instructions on the portable kernel), which would otherwise be counted silently.
#
# Usage: instructions-outside-kdf.sh OUT BIN ARGS...
#   The measured run's stdout goes to OUT; with RWS_CALLGRIND_OUT=FILE, its callgrind profile
#   (every function executed outside the KDF, by symbol) is copied to FILE, and with
#   RWS_CALLGRIND_WHOLE_OUT=FILE the whole run's (check-startup.sh reads both). Function names
#   are the binary's symbols, as nm prints them (--demangle=no: C++ names stay mangled too), in
#   an object named as BIN is. Prints "OUTSIDE WHOLE" (instructions) and exits 0;
#   exits 2 (nothing printed) when valgrind, objcopy or nm is missing; else 1 with the reason on stderr.
set -u
out=$1 bin=$2
shift 2
for tool in valgrind objcopy nm; do command -v "$tool" >/dev/null || exit 2; done
fail() { echo "$*" >&2; exit 1; }
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
copy="$dir/$(basename "$bin")"
objcopy --strip-debug "$bin" "$copy" || fail "objcopy failed"
kdf=$(nm "$copy" | awk '{print $NF}' | grep -E '^\$s(11RWSecretKit|12RWSecretCore)6CryptoO10pbkdf2SHA1_10iterations9keyLength4loop' || true)
[ "$(printf '%s\n' "$kdf" | grep -c .)" -eq 1 ] || fail "expected exactly one Crypto.pbkdf2SHA1 symbol, found: $kdf"
collected() { sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$1"; }
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$dir/whole.out" "$copy" "$@" > /dev/null 2> "$dir/whole.log" \
  || fail "the run failed under callgrind: $(tail -3 "$dir/whole.log")"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$dir/outside.out" --toggle-collect="$kdf" --collect-atstart=yes \
  "$copy" "$@" > "$out" 2> "$dir/outside.log" || fail "the run failed under callgrind: $(tail -3 "$dir/outside.log")"
[ -z "${RWS_CALLGRIND_OUT:-}" ] || cp "$dir/outside.out" "$RWS_CALLGRIND_OUT" || fail "could not copy the profile"
[ -z "${RWS_CALLGRIND_WHOLE_OUT:-}" ] || cp "$dir/whole.out" "$RWS_CALLGRIND_WHOLE_OUT" || fail "could not copy the whole run's profile"
whole=$(collected "$dir/whole.log") outside=$(collected "$dir/outside.log")
[ -n "$whole" ] && [ -n "$outside" ] || fail "callgrind printed no count: $(tail -3 "$dir/whole.log")"
[ $((whole - outside)) -gt 10000000 ] || fail "the KDF was not excluded ($whole vs $outside)"
echo "$outside $whole"
