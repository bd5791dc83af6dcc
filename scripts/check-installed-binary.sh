#!/bin/sh
# Proves that `make install` installed the static release binaries, bin/rwsecret (the front) and
# libexec/rwsecret/rwsecret-commands (the whole tool): no libswift* among their NEEDED libraries,
# no RUNPATH into the toolchain, no ArgumentParser in the front, the start-up facts of
# check-startup.sh, and they run (the front decrypts the demo messages, and runs the whole tool
# for `--version`) with the Swift toolchain out of reach. Run by `make test` (target check-install).
# Usage: check-installed-binary.sh ROOT BIN TOOLCHAIN_DIR   (ROOT: DESTDIR+PREFIX)
set -u
root=$1 bin=$2 toolchain=$3
fail() { echo "FAILED: $*"; exit 1; }
[ -x "$bin" ] || fail "$bin was not installed"
whole="$root/libexec/rwsecret/rwsecret-commands"
[ -x "$whole" ] || fail "$whole was not installed"
for f in share/man/man1/rwsecret.1 share/man/man1/rwsecret.decrypt.1 \
         share/bash-completion/completions/rwsecret share/zsh/site-functions/_rwsecret \
         share/fish/vendor_completions.d/rwsecret.fish; do
  [ -s "$root/$f" ] || fail "$root/$f was not installed"
done
# The man pages carry the sections the plugin cannot write (scripts/man-sections.sh).
for page in "$root"/share/man/man1/rwsecret*.1; do
  for section in '.Sh ENVIRONMENT' '.Sh "EXIT STATUS"' 'RWSECRET_VAULT_PASSPHRASE' '.It 69'; do
    grep -qF "$section" "$page" || fail "$page has no $section"
  done
done
command -v readelf >/dev/null || fail "readelf (binutils) is needed for this check"
for program in "$bin" "$whole"; do
  dynamic=$(readelf -d "$program") || fail "readelf -d $program"
  needed=$(printf '%s\n' "$dynamic" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  echo "NEEDED ($(basename "$program")): $needed"
  case " $needed" in *" libswift"*|*" libFoundation"*|*" libdispatch"*|*" libBlocksRuntime"*)
    fail "the installed $program needs the Swift runtime: $needed" ;; esac
  runpath=$(printf '%s\n' "$dynamic" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
  case "$runpath" in *"$toolchain"*|*/swift*) fail "the installed $program's RUNPATH points into the toolchain: $runpath" ;; esac
done
# The front decrypts without ArgumentParser, and so without the FoundationEssentials it links:
# none of their code is in it (issue 36: 14 MB, 1,744 conformance records, relocated pages).
command -v nm >/dev/null || fail "nm (binutils) is needed for this check"
# Nor the regex engine (_StringProcessing, _RegexParser: 880 KB of code, a dozen relocated pages),
# which its code and the library's no longer use (issue 36: TextSearch, containsText).
linked=$(nm "$bin" | grep -c -e '14ArgumentParser' -e '20FoundationEssentials' -e '17_StringProcessing' -e '12_RegexParser')
[ "$linked" -eq 0 ] || fail "the front ($bin) links ArgumentParser, FoundationEssentials or the regex engine ($linked symbols)"
# No RUNPATH at all, PIE with DT_RELR, no failed library open, openssl.cnf not read.
startup=$(sh "$(dirname "$0")/check-startup.sh" "$bin") || fail "${startup#FAILED: }"
echo "$startup"

# Run it where the toolchain cannot be found: a private mount namespace with an empty
# tmpfs over the toolchain's folder (root, or an unprivileged user namespace).
here=$(cd "$(dirname "$0")/.." && pwd)
expected="$here/Fixtures/messages.expected"
version=$(sh "$here/scripts/version.sh") || fail "scripts/version.sh"
passwords=$(mktemp) && trap 'rm -f "$passwords"' EXIT && printf 'password\nray\nraywender\n' > "$passwords"
run='PATH=/usr/bin:/bin; export PATH; [ ! -e "$3/usr/bin/swift" ] || { echo "toolchain still visible"; exit 99; };
     [ "$("$1" --version)" = "$5" ] || { echo "the whole tool did not answer --version"; exit 98; };
     "$1" decrypt --no-store --quiet --password-file "$4" "$2/Fixtures/messages.txt" 2>/dev/null; [ $? -eq 1 ]'
if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then how="unshare --mount"
elif unshare --mount --map-root-user true 2>/dev/null; then how="unshare --mount --map-root-user"
else how=""; fi
if [ -n "$how" ] && [ -d "$toolchain" ]; then
  out=$($how sh -c "mount -t tmpfs none '$toolchain' && $run" sh "$bin" "$here" "$toolchain" "$passwords" "$version") \
    || fail "the installed binary did not run with $toolchain hidden: $out"
  where="with $toolchain hidden (empty tmpfs over it)"
else
  out=$(env -i sh -c "$run" sh "$bin" "$here" "$toolchain" "$passwords" "$version") || fail "the installed binary did not run: $out"
  where="with an empty environment (could not hide $toolchain: no mount namespace)"
fi
[ "$out" = "$(cat "$expected")" ] || fail "the installed binary printed '$out', not the demo plaintexts"
echo "static: no libswift* NEEDED, no RUNPATH into the toolchain (both binaries), no ArgumentParser or regex engine in the front; decrypted the demo messages and ran the whole tool $where; ${startup#start-up: }"
