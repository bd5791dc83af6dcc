#!/usr/bin/env bash
# `make bench-age`: a large age file on disk, opened by rwsecret and by age -d side by side
# (issue 24: within 1.3x age's time, at most 64 MiB peak RSS).
#
#   scripts/bench-age.sh [RWSECRET]     (default .build/dist/rwsecret, from `make release`)
#
# The file is made once (age -r to a fresh age-keygen identity, random plaintext) in WORK, a
# folder on disk (default .build/bench-age: the project's own filesystem, not tmpfs). Each
# round runs both tools once, in alternating order, each writing its own OUT in WORK (the
# previous OUT removed first, so neither replaces a file); /usr/bin/time gives the wall time
# and the peak RSS. Both outputs are compared with the plaintext once. The medians, minimums
# and the largest peak RSS are printed, with the ratio of the medians.
#
# Settings (environment): SIZE_MIB (default 1024), ROUNDS (default 7), WORK, OUT_DIR (where
# the outputs go, default WORK), STDOUT=1 (also time both writing to stdout > OUT).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
RWSECRET=${1:-${RWSECRET:-$root/.build/dist/rwsecret}}
SIZE_MIB=${SIZE_MIB:-1024}
ROUNDS=${ROUNDS:-7}
WORK=${WORK:-$root/.build/bench-age}
OUT_DIR=${OUT_DIR:-$WORK}
[ -x "$RWSECRET" ] || { echo "bench-age: no rwsecret at $RWSECRET (run make release)" >&2; exit 1; }
for tool in age age-keygen /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-age: $tool is missing (make deps installs age and time)" >&2; exit 1; }
done
mkdir -p "$WORK" "$OUT_DIR"
key=$WORK/key.txt plain=$WORK/plain.bin file=$WORK/file.age
if [ ! -s "$file" ] || [ "$(stat -c %s "$plain" 2>/dev/null)" != "$((SIZE_MIB << 20))" ]; then
  rm -f "$key"
  age-keygen -o "$key" 2>/dev/null
  head -c "$((SIZE_MIB << 20))" /dev/urandom > "$plain"
  age -r "$(age-keygen -y "$key")" -o "$file" "$plain"
fi
chmod 600 "$key"
echo "bench-age: $(stat -c %s "$file") bytes of age file in $WORK ($(df -T "$WORK" | awk 'NR==2 {print $2}')), outputs in $OUT_DIR ($(df -T "$OUT_DIR" | awk 'NR==2 {print $2}')), $ROUNDS rounds, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-age: age $(age --version), rwsecret $("$RWSECRET" --version)"

times=$WORK/times.txt
: > "$times"
# One timed run: NAME OUT COMMAND...; appends "NAME WALL KIB USER SYSTEM" to $times.
timed() {
  local name=$1 out=$2; shift 2
  rm -f "$out"
  sync
  /usr/bin/time -f "$name %e %M %U %S" -a -o "$times" "$@" >/dev/null
}
run_age() { timed age "$OUT_DIR/age.out" age -d -i "$key" -o "$OUT_DIR/age.out" "$file"; }
run_rws() { timed rwsecret "$OUT_DIR/rws.out" "$RWSECRET" decrypt --no-store --identity "$key" --binary -o "$OUT_DIR/rws.out" "$file"; }
run_age_stdout() { timed age-stdout "$OUT_DIR/age.out" sh -c 'exec age -d -i "$1" "$2" > "$3"' sh "$key" "$file" "$OUT_DIR/age.out"; }
run_rws_stdout() { timed rwsecret-stdout "$OUT_DIR/rws.out" sh -c 'exec "$1" decrypt --no-store --identity "$2" --binary "$3" > "$4"' sh "$RWSECRET" "$key" "$file" "$OUT_DIR/rws.out"; }

# A warm-up of each (the file in the page cache for both), checked against the plaintext.
run_age; run_rws
cmp -s "$plain" "$OUT_DIR/age.out" || { echo "bench-age: age's output differs from the plaintext" >&2; exit 1; }
cmp -s "$plain" "$OUT_DIR/rws.out" || { echo "bench-age: rwsecret's output differs from the plaintext" >&2; exit 1; }
: > "$times"
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then run_age; run_rws; else run_rws; run_age; fi
  if [ "${STDOUT:-0}" = 1 ]; then
    if [ $((round % 2)) = 1 ]; then run_age_stdout; run_rws_stdout; else run_rws_stdout; run_age_stdout; fi
  fi
done
rm -f "$OUT_DIR/age.out" "$OUT_DIR/rws.out"

python3 - "$times" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, seconds, kib, user, system = line.split()
    rows.setdefault(name, []).append((float(seconds), int(kib), float(user), float(system)))
print(f"{'':18} {'median s':>9} {'min s':>7} {'max s':>7} {'user+sys s (median)':>20} {'peak RSS MiB':>13}  runs")
for name, values in rows.items():
    times = [v[0] for v in values]
    cpu = statistics.median(v[2] + v[3] for v in values)
    print(f"{name:18} {statistics.median(times):9.2f} {min(times):7.2f} {max(times):7.2f} {cpu:20.2f} {max(v[1] for v in values) / 1024:13.1f}  {len(values)}")
for ours, theirs in (("rwsecret", "age"), ("rwsecret-stdout", "age-stdout")):
    if ours in rows and theirs in rows:
        ratio = statistics.median(v[0] for v in rows[ours]) / statistics.median(v[0] for v in rows[theirs])
        rss = max(v[1] for v in rows[ours]) / 1024
        verdict = "within" if ratio <= 1.3 and rss <= 64 else "NOT within"
        print(f"{ours} / {theirs}: {ratio:.2f}x the median time, {rss:.1f} MiB peak RSS ({verdict} 1.3x and 64 MiB)")
EOF
