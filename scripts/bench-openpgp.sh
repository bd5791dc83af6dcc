#!/bin/bash
# OpenPGP side by side (`make bench`, `make bench-openpgp`): `rwsecret decrypt` against `gpg -d`
# on the same `gpg -c` file, in turn (gpg, rwsecret, gpg, rwsecret...), each output checked.
# Wall and CPU seconds and peak RSS (GNU time) per tool, the median of ROUNDS runs, then the ratio.
#   scripts/bench-openpgp.sh [RWSECRET]    SIZES="256" (MiB)  ROUNDS=3  COMPRESS="none zlib"
# BASELINE=PATH: another rwsecret (an older build) timed in the same turns, for before/after figures.
# STDOUT=1: each tool writes to its stdout, redirected to the output file (`> out`), instead of -o.
# The passphrase goes to gpg by --passphrase-fd and to rwsecret by --password-file, never on argv.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
RWSECRET=${1:-${RWSECRET:-$root/.build/dist/rwsecret}}
SIZES=${SIZES:-256}
ROUNDS=${ROUNDS:-3}
COMPRESS=${COMPRESS:-none zlib}
command -v gpg >/dev/null || { echo "bench-openpgp: SKIPPED: no gpg (apt-get install gnupg)"; exit 0; }
[ -x /usr/bin/time ] || { echo "bench-openpgp: SKIPPED: no GNU time (apt-get install time)"; exit 0; }
[ -x "$RWSECRET" ] || { echo "bench-openpgp: no rwsecret at $RWSECRET" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-openpgp.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GNUPGHOME=$work/gnupg
mkdir -m 700 "$GNUPGHOME"
head -c 24 /dev/urandom | base64 | tr -d '\n' > "$work/pass"
printf 'bench\t%s\n' "$(cat "$work/pass")" > "$work/passwords"

# One run: wall seconds, CPU seconds, peak RSS in KiB.
measure() {
  if [ "${STDOUT:-0}" = 1 ]; then
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" sh -c 'out=$1; shift; exec "$@" > "$out"' sh "$work/out" "$@" 2>"$work/err" || { cat "$work/err" >&2; return 1; }
  else
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
  fi
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time"
}
# The output options: -o OUT, or (STDOUT=1) none: `measure` sends stdout to OUT.
out_opt() { [ "${STDOUT:-0}" = 1 ] || echo "-o $work/out"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

[ "${STDOUT:-0}" = 1 ] && echo "bench-openpgp: both tools write to stdout (> OUT)"
printf '%-6s %-8s %-9s %8s %8s %10s\n' MiB compress tool wall_s cpu_s peak_MiB
for size in $SIZES; do
  head -c "$((size << 20))" /dev/urandom > "$work/plain"
  want=$(sha256sum < "$work/plain")
  for compress in $COMPRESS; do
    gpg --batch --yes --pinentry-mode loopback --passphrase-fd 3 3<"$work/pass" --compress-algo "$compress" \
      -c -o "$work/msg.gpg" "$work/plain" 2>/dev/null
    : > "$work/gpg.runs"; : > "$work/rw.runs"; : > "$work/base.runs"
    for _ in $(seq "$ROUNDS"); do
      rm -f "$work/out"
      measure gpg --batch --yes --pinentry-mode loopback --passphrase-fd 3 -d $(out_opt) "$work/msg.gpg" 3<"$work/pass" >> "$work/gpg.runs"
      [ "$(sha256sum < "$work/out")" = "$want" ] || { echo "bench-openpgp: gpg's output differs" >&2; exit 1; }
      rm -f "$work/out"
      measure "$RWSECRET" decrypt --no-store --password-file "$work/passwords" --binary $(out_opt) "$work/msg.gpg" >> "$work/rw.runs"
      [ "$(sha256sum < "$work/out")" = "$want" ] || { echo "bench-openpgp: rwsecret's output differs" >&2; exit 1; }
      if [ -n "${BASELINE:-}" ]; then
        rm -f "$work/out"
        measure "$BASELINE" decrypt --no-store --password-file "$work/passwords" --binary $(out_opt) "$work/msg.gpg" >> "$work/base.runs"
        [ "$(sha256sum < "$work/out")" = "$want" ] || { echo "bench-openpgp: the baseline's output differs" >&2; exit 1; }
      fi
    done
    for tool in gpg rw $([ -n "${BASELINE:-}" ] && echo base); do
      wall=$(cut -d' ' -f1 "$work/$tool.runs" | median)
      cpu=$(cut -d' ' -f2 "$work/$tool.runs" | median)
      rss=$(cut -d' ' -f3 "$work/$tool.runs" | median)
      printf '%-6s %-8s %-9s %8s %8s %10s\n' "$size" "$compress" "$(case $tool in rw) echo rwsecret;; base) echo baseline;; *) echo gpg;; esac)" "$wall" "$cpu" "$((rss / 1024))"
      eval "${tool}_wall=$wall"
    done
    awk -v r="$rw_wall" -v g="$gpg_wall" -v s="$size" -v c="$compress" \
      'BEGIN { printf "%-6s %-8s ratio     %8.2f  (rwsecret wall / gpg wall, median of '"$ROUNDS"')\n", s, c, (g > 0 ? r / g : 0) }'
    if [ -n "${BASELINE:-}" ]; then
      awk -v r="$base_wall" -v g="$gpg_wall" -v s="$size" -v c="$compress" \
        'BEGIN { printf "%-6s %-8s ratio     %8.2f  (baseline wall / gpg wall)\n", s, c, (g > 0 ? r / g : 0) }'
    fi
  done
done
