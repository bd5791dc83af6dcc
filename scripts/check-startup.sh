#!/bin/sh
# Start-up facts of the release binary that do not depend on timing (run by
# check-installed-binary.sh, so by `make check-install` and `make test`):
#   - no RPATH/RUNPATH at all (SwiftPM's $ORIGIN made the loader try 14 paths beside the
#     binary before the system's libraries),
#   - still a position-independent executable (address-space randomisation kept), with
#     its relative relocations packed (DT_RELR),
#   - under strace: no failed open of a shared library, and OpenSSL's configuration file
#     is never opened (Crypto+OpenSSL.swift: OPENSSL_INIT_NO_LOAD_CONFIG),
#   - natively, with an LD_PRELOAD shim (Tests/release/openssl-calls.c): no provider fetch
#     and no legacy name table in a one-message decrypt (OpenSSL 3 builds its tables there),
#   - under callgrind: one small message costs at most BUDGET instructions outside key
#     derivation (counted as scripts/startup-cost.sh counts them). Instruction counts do not
#     depend on timing. 25.5 M before AES and the HMAC's SHA-256 came from OpenSSL's legacy
#     method tables instead of a provider fetch (which builds every cipher, MAC and digest
#     of the default provider); 17.6 M after,
#   - zlib, libbz2 and libargon2 are not NEEDED (loaded with dlopen when an OpenPGP message
#     needs them: RWSecretKit's LoadedLibraries),
#   - the hot path (`decrypt` parsed by hand, DecryptArguments) never runs ArgumentParser's
#     parser: no function of its command parser or argument sets, and no Mirror, is executed.
#     That reflection scanned every conformance record of the binary for each lookup, so each
#     command added made every run dearer (issue 36); without it, a command costs a decrypt
#     nothing but a few more records in the lookups that remain.
# Usage: check-startup.sh BIN   Prints one summary line; exits 1 on the first failed fact.
set -u
bin=$1
fail() { echo "FAILED: $*"; exit 1; }
command -v readelf >/dev/null || fail "readelf (binutils) is needed for this check"
dynamic=$(readelf -d "$bin") || fail "readelf -d $bin"
paths=$(printf '%s\n' "$dynamic" | grep -E '\((RPATH|RUNPATH)\)')
[ -z "$paths" ] || fail "$bin has a library search path: $paths"
readelf -h "$bin" | grep -q 'Type:.*DYN' || fail "$bin is not position-independent (ELF type is not DYN)"
printf '%s\n' "$dynamic" | grep -q 'Flags: PIE' || fail "$bin is not flagged PIE"
printf '%s\n' "$dynamic" | grep -q '(RELR)' || fail "$bin has no DT_RELR (relative relocations not packed)"
lazy=$(printf '%s\n' "$dynamic" | grep '(NEEDED)' | grep -E 'libz\.|libbz2|libargon2')
[ -z "$lazy" ] || fail "$bin links a library it should load on first use: $lazy"

if ! command -v strace >/dev/null; then
  echo "start-up: no RUNPATH, PIE, DT_RELR; strace checks SKIPPED (strace not installed)"
  exit 0
fi
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
umask 077  # password files as people keep them (a readable one takes the warning's path too)
printf 'right\n' > "$dir/pw"
printf 'a small secret\n' | "$bin" encrypt --password-file "$dir/pw" > "$dir/msg" || fail "$bin encrypt failed"
strace -f -o "$dir/trace" -e trace=open,openat "$bin" decrypt --no-store --password-file "$dir/pw" "$dir/msg" > "$dir/out" 2>/dev/null \
  || fail "$bin decrypt failed under strace"
[ "$(cat "$dir/out")" = "a small secret" ] || fail "$bin decrypted '$(cat "$dir/out")' under strace"
grep -q 'openat(' "$dir/trace" || fail "strace recorded no openat at all (is tracing allowed here?)"
failed=$(grep -E '\.so(\.[0-9]+)*", .*= -1 ' "$dir/trace")
[ -z "$failed" ] || fail "failed library opens at start-up: $(printf '%s\n' "$failed" | wc -l): $(printf '%s\n' "$failed" | head -3)"
lazy=$(grep -E 'libz\.so|libbz2|libargon2' "$dir/trace")
[ -z "$lazy" ] || fail "a one-message RNCryptor decrypt opened $lazy"
config=$(grep -E 'openssl\.cnf|OPENSSL_CONF' "$dir/trace")
[ -z "$config" ] || fail "OpenSSL's configuration was read: $config"
# The same with the set-up thread's OpenSSL initialisation held back (Tests/release/slow-init.c)
# and a password longer than SHA-1's block (the KDF hashes it with OpenSSL's SHA1()): the
# main thread's first OpenSSL use must not initialise the library with the configuration.
# Before the fix this read openssl.cnf in every run; without it, only when the machine was
# busy enough for the main thread to win the race. A --no-store run starts no set-up thread
# now (issue 36: the set-up happens on first use), so here the main thread's own first use,
# with its initialisation held back, is what must not read the configuration.
if command -v cc >/dev/null; then
  here=$(cd "$(dirname "$0")/.." && pwd)
  cc -shared -fPIC -O2 -o "$dir/slow-init.so" "$here/Tests/release/slow-init.c" -ldl || fail "could not build slow-init.so"
  long=$(printf 'x%.0s' $(seq 80))
  printf '%s\n' "$long" > "$dir/long"
  printf 'a small secret\n' | "$bin" encrypt --password-file "$dir/long" > "$dir/msg-long" || fail "$bin encrypt failed"
  LD_PRELOAD="$dir/slow-init.so" strace -f -o "$dir/trace-slow" -e trace=open,openat \
    "$bin" decrypt --no-store --password-file "$dir/long" "$dir/msg-long" > "$dir/out" 2>/dev/null || fail "$bin decrypt failed with slow-init.so"
  [ "$(cat "$dir/out")" = "a small secret" ] || fail "$bin decrypted '$(cat "$dir/out")' with slow-init.so"
  grep -q 'slow-init.so' "$dir/trace-slow" || fail "slow-init.so was not loaded"
  config=$(grep -E 'openssl\.cnf' "$dir/trace-slow")
  [ -z "$config" ] || fail "OpenSSL's configuration was read when the set-up thread was late: $config"
  # No provider fetch and no legacy name table in a one-message decrypt, natively (under
  # valgrind, which has no SHA-NI, the SHA kernel's known-answer check never runs, and its
  # one-shot SHA1() fetched from the provider in every run on a CPU with SHA-NI: 0.35 ms).
  cc -shared -fPIC -O2 -o "$dir/openssl-calls.so" "$here/Tests/release/openssl-calls.c" -ldl || fail "could not build openssl-calls.so"
  RWS_OPENSSL_CALLS="$dir/calls" LD_PRELOAD="$dir/openssl-calls.so" "$bin" decrypt --no-store --password-file "$dir/long" "$dir/msg-long" > "$dir/out" 2>/dev/null \
    || fail "$bin decrypt failed with openssl-calls.so"
  [ "$(cat "$dir/out")" = "a small secret" ] || fail "$bin decrypted '$(cat "$dir/out")' with openssl-calls.so"
  [ ! -s "$dir/calls" ] || fail "a one-message decrypt made OpenSSL build its tables (Tests/release/openssl-calls.c): $(sort "$dir/calls" | uniq -c | tr -s ' \n' ' ')"
  slow=", also with the set-up thread late; no provider fetch or legacy name table"
else
  slow=" (late set-up thread check SKIPPED: no C compiler)"
fi

# 17.6 M when set; 19.8-19.9 M at 1.0.0, 19.4 M at 2.0.0: ArgumentParser's reflection over a
# larger command tree (identity's subcommands, more options), each uncached protocol-conformance
# lookup scanning every conformance record of the binary. 6.2 M with `decrypt` parsed by hand
# and zlib, libbz2, libargon2 loaded on first use (issue 36); 5.0 M once the hand parser made
# plain values and the run asked the runtime for less generic metadata (2026-11-29). The
# budget keeps a margin over run-to-run differences and still catches a fall back to
# ArgumentParser (19 M), losing lld, or the 6.2 M of before.
budget=6000000
scan_budget=2
counts=$(RWS_CALLGRIND_OUT="$dir/profile" RWS_CALLGRIND_WHOLE_OUT="$dir/whole-profile" sh "$(dirname "$0")/instructions-outside-kdf.sh" "$dir/out" "$bin" decrypt --no-store --password-file "$dir/pw" "$dir/msg" 2> "$dir/count.err")
case $? in
  0) outside=${counts% *}
     [ "$(cat "$dir/out")" = "a small secret" ] || fail "decrypted '$(cat "$dir/out")' under callgrind"
     [ "$outside" -le "$budget" ] || fail "one small message costs $outside instructions outside key derivation (budget $budget)"
     # Function names are the binary's symbols (mangled): ArgumentParser's parser types are
     # CommandParser (07CommandB0, mangled), ArgumentSet, SplitArguments; Mirror is swift_reflectionMirror_*.
     parser=$(grep -E '^c?fn=\([0-9]+\) ' "$dir/profile" | grep -E '14ArgumentParser07CommandB0|14SplitArguments|ArgumentSet|swift_reflectionMirror' | head -3)
     [ -z "$parser" ] || fail "a one-message decrypt ran ArgumentParser's parser (the hot path fell back): $parser"
     # Each uncached protocol-conformance lookup (the first `Set<String>`, `[Int: …]`, a typed
     # `Result`'s `Failure: Error`, a generic called unspecialised across modules) scans every
     # conformance record of the binary, about 0.2 M instructions: counted from the runtime's
     # per-record visitor. 7 scans before issue 36's trims of 2026-11-29, 2 after.
     records=$(readelf -SW "$bin" | awk '$2 == "swift5_protocol_conformances" { print $6 }')
     visits=$(awk -f "$(dirname "$0")/conformance-visits.awk" "$dir/profile")
     if [ -n "$records" ] && [ "$visits" -gt 0 ]; then
       scans=$(( visits * 4 / $(printf "%d" "0x$records") ))
       [ "$scans" -le "$scan_budget" ] || fail "a one-message decrypt made $scans uncached conformance lookups, each a scan of every record (budget $scan_budget): callgrind_annotate --tree=caller on its profile names the callers"
       scanned=", $scans conformance scans (budget $scan_budget)"
     else
       scanned=" (conformance scans not counted: the runtime's visitor was not found in the profile)"
     fi
     counted=", $(awk -v n="$outside" 'BEGIN { printf "%.1f", n / 1e6 }') M instructions outside the KDF (budget $(awk -v n="$budget" 'BEGIN { printf "%.1f", n / 1e6 }') M)$scanned, ArgumentParser's parser not run" ;;
  2) counted=" (instruction budget SKIPPED: valgrind or binutils not installed)" ;;
  *) fail "counting instructions failed: $(cat "$dir/count.err")" ;;
esac

# The code a one-message decrypt runs lies in few 64 KiB stretches of the binary (the kernel maps
# a file's pages 16 at a time, one fault each): the release is linked with its functions in the
# order scripts/link-order/rwsecret.order gives (Makefile, RELEASE_FLAGS). 68 stretches before
# (2026-11-29), 22 after; the Swift runtime's own archive keeps about 20 of them, its code in
# one section. Over the budget: the order file is stale (`make link-order`) or was not used.
stretch_budget=32
# Counted on the whole run's profile that instructions-outside-kdf.sh took above (the KDF's
# code included), not on another run.
if [ "${counted#*SKIPPED}" = "$counted" ] && command -v python3 >/dev/null; then
  set -- $(python3 "$(dirname "$0")/link-order/executed.py" regions "$bin" "$dir/whole-profile")
  [ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 500 ] || fail "could not place the functions the run executed (regions, found, executed: $*)"
  [ "$1" -le "$stretch_budget" ] || fail "a one-message decrypt runs code in $1 stretches of 64 KiB (budget $stretch_budget): run \`make link-order\` (a release built before -function-sections was in RELEASE_FLAGS keeps its objects: remove .build/release first)"
  counted="$counted, code in $1 stretches of 64 KiB (budget $stretch_budget)"
fi
echo "start-up: no RUNPATH, PIE with DT_RELR, zlib/libbz2/libargon2 not linked, no failed library open, openssl.cnf not read (strace$slow)$counted"
