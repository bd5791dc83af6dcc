#!/bin/sh
# What one small message costs the release binary outside key derivation: instructions
# (callgrind, with the PBKDF2 function excluded by --toggle-collect), page faults and wall
# time (median of RUNS whole-process runs), relocations, failed library opens.
# `make bench` runs it after the Swift bench; by hand: sh scripts/startup-cost.sh [BIN] [RUNS]
# (BIN defaults to .build/dist/rwsecret, the static binary `make release` builds).
# Valgrind, strace and python3 are each optional: a figure that needs a missing tool is
# printed as SKIPPED with the reason, never left out silently.
set -u
bin=${1:-.build/dist/rwsecret}
runs=${2:-201}
[ -x "$bin" ] || { echo "startup-cost: $bin is not an executable (make release)"; exit 1; }
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
printf 'right\n' > "$dir/pw"
printf 'a small secret\n' | "$bin" encrypt --password-file "$dir/pw" > "$dir/msg" || { echo "startup-cost: encrypt failed"; exit 1; }
set -- decrypt --no-store --password-file "$dir/pw" "$dir/msg"
[ "$("$bin" "$@")" = "a small secret" ] || { echo "startup-cost: $bin did not decrypt the message"; exit 1; }

echo
echo "== start-up: one small message, whole process ($bin decrypt --no-store --password-file F FILE)"

# 1. Instructions outside the KDF (scripts/instructions-outside-kdf.sh says how they are counted).
counts=$(sh "$(dirname "$0")/instructions-outside-kdf.sh" /dev/null "$bin" "$@")
case $? in
  0) outside=${counts% *} whole=${counts#* }
     awk -v o="$outside" -v t="$whole" 'BEGIN { printf "  instructions outside key derivation   %8.2f M   (whole process %.1f M, of which KDF %.1f M; callgrind)\n", o/1e6, t/1e6, (t-o)/1e6 }' ;;
  2) echo "  instructions outside key derivation        SKIPPED (valgrind, or objcopy/nm from binutils, not installed)" ;;
  *) echo "startup-cost: counting instructions failed"; exit 1 ;;
esac

# 2. Page faults and wall time: RUNS runs, median (the spawn is the same for every binary).
if command -v python3 >/dev/null; then
  python3 - "$runs" "$bin" "$@" <<'EOF'
import os, sys, time, statistics
runs, argv = int(sys.argv[1]), sys.argv[2:]
null = os.open(os.devnull, os.O_RDWR)
walls, faults, cpus = [], [], []
for _ in range(runs):
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status, usage = os.wait4(pid, 0)
    walls.append(time.perf_counter() - start)
    if os.waitstatus_to_exitcode(status) != 0: sys.exit("startup-cost: a run failed")
    faults.append(usage.ru_minflt + usage.ru_majflt)
    cpus.append(usage.ru_utime + usage.ru_stime)
print("  page faults (minor + major)           %8d     (median of %d runs)" % (statistics.median(faults), runs))
print("  wall time                             %8.2f ms  (median of %d runs; CPU %.2f ms, both threads)" % (statistics.median(walls) * 1e3, runs, statistics.median(cpus) * 1e3))
EOF
else
  echo "  page faults, wall time                     SKIPPED (python3 not installed)"
fi

# 3. What the dynamic loader does before main: relocations and library opens.
if command -v readelf >/dev/null; then
  dynamic=$(readelf -d "$bin")
  rela=$(printf '%s\n' "$dynamic" | awk '/\(RELASZ\)/ { print $3 / 24 }')
  relr=$(printf '%s\n' "$dynamic" | awk '/\(RELRSZ\)/ { print $3 }')
  relative=$(readelf -rW "$bin" | grep -c 'R_X86_64_RELATIVE')
  runpath=$(printf '%s\n' "$dynamic" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
  echo "  relocations: ${rela:-0} RELA entries (${relative} of them R_X86_64_RELATIVE), DT_RELR ${relr:-none} bytes; RUNPATH ${runpath:-none}"
else
  echo "  relocations                                SKIPPED (readelf not installed)"
fi
if command -v strace >/dev/null; then
  strace -f -o "$dir/trace" -e trace=open,openat "$bin" "$@" > /dev/null 2>&1
  failed=$(grep -cE '\.so(\.[0-9]+)*", .*= -1 ' "$dir/trace")
  config=$(grep -c 'openssl\.cnf' "$dir/trace")
  echo "  failed library opens at start-up: $failed; openssl.cnf opened: $config time(s) (strace)"
else
  echo "  failed library opens                       SKIPPED (strace not installed)"
fi
