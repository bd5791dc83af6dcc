#!/usr/bin/env bash
# bench-scaling.sh BINARY — issue 22's many-core table: `decrypt --jobs N` against N
# separate `--jobs 1` processes over 1/N of the lines each (as GNU parallel would run them),
# with wall time, msg/s, keys derived (`--verbose`) and user CPU, every output checked.
#
#   MESSAGES=21000   messages in the random-password input (each under one of PASSWORDS, drawn at random)
#   PASSWORDS=3      passwords in the chain
#   JOBS="1 2 4 8 16" the N to run (default: powers of two up to the CPUs this process may use)
#   LONG=1           also the long chain: 64 passwords, the right one last, 20 and LONG_MESSAGES messages
#   LONG_MESSAGES=2000
#   MODES=1          also the other inputs and modes, MODE_MESSAGES each, at --jobs 1 and MODE_JOBS against
#                    as many processes: clustered draws (runs of 1-40 messages under one password) from 3
#                    and from 64 passwords in line mode, and random draws from PASSWORDS in --json and in
#                    --in-band --id-column
#   MODE_MESSAGES=3000
#   MODE_JOBS        default: the largest of JOBS
#   BASELINE=PATH    another rwsecret binary (an older build): its `--jobs N` rows too, for before/after
#   REPS=1           runs of each row; the row shows the run of median wall time (3 or 5 on a busy machine)
#   WORK=DIR         where the inputs are made (kept and reused while the parameters stay the same)
#
# Targets (issue 22): --jobs N at least 0.9x the msg/s of N processes, keys at most 1.05x
# --jobs 1's; on the long chain, keys at most 1.1x and wall at most --jobs 1's / (0.6 N)
# once there are N or more messages. The script prints the ratios; it does not judge.
set -euo pipefail

BIN=${1:?usage: bench-scaling.sh path/to/rwsecret}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
MESSAGES=${MESSAGES:-21000}
PASSWORDS=${PASSWORDS:-3}
CPUS=$(nproc)
if [ -z "${JOBS:-}" ]; then
  JOBS=1; n=2; while [ "$n" -le "$CPUS" ]; do JOBS="$JOBS $n"; n=$((n * 2)); done
fi
LONG=${LONG:-1}
LONG_MESSAGES=${LONG_MESSAGES:-2000}
MODES=${MODES:-1}
MODE_MESSAGES=${MODE_MESSAGES:-3000}
MODE_JOBS=${MODE_JOBS:-${JOBS##* }}
# The mode of the runs (extra decrypt options) and its name; `check` compares outputs.
MODE=()
MODE_NAME=line
REPS=${REPS:-1}
WORK=${WORK:-$(pwd)/.build/bench-scaling}
unset RWSECRET_PASSWORD RWSECRET_JOBS RWSECRET_KDF
mkdir -p "$WORK"
cd "$WORK"

now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
# The key count a --verbose run printed on stderr (file $1).
keys_of() { sed -n 's/^rwsecret: key derivations: //p' "$1"; }
# Encrypts `prefix-1 … prefix-COUNT` (one line each) under the password in file $1, on every CPU.
encrypt_lines() {
  local password_file=$1 prefix=$2 count=$3 out=$4 parts=$CPUS
  seq 1 "$count" | sed "s/^/$prefix-/" > "$out.plain"
  rm -f "$out".part.*
  split -n "l/$parts" -d -a 3 "$out.plain" "$out.part."
  for part in "$out".part.*; do
    "$BIN" encrypt --quiet --password-file "$password_file" "$part" > "$part.enc" &
  done
  wait
  cat "$out".part.*.enc > "$out"
  rm -f "$out".part.* "$out.plain"
}

# --- inputs ------------------------------------------------------------------------------
make_random_input() {
  local stamp="random $MESSAGES $PASSWORDS"
  if [ -f random.stamp ] && [ "$(cat random.stamp)" = "$stamp" ]; then return; fi
  echo "making $MESSAGES messages under $PASSWORDS passwords (random draws) in $WORK ..." >&2
  : > random.passwords
  local per=$(( (MESSAGES + PASSWORDS - 1) / PASSWORDS ))
  for p in $(seq 1 "$PASSWORDS"); do
    echo "bench-scaling-password-$p" > "pw.$p"
    cat "pw.$p" >> random.passwords
    encrypt_lines "pw.$p" "p$p" "$per" "enc.$p"
    # plaintext TAB message, so that one shuffle keeps the pairs together
    paste <(seq 1 "$per" | sed "s/^/p$p-/") "enc.$p" >> random.pairs.tmp
  done
  # A fixed shuffle (the same input every time), cut to MESSAGES.
  shuf --random-source=<(yes rwsecret) random.pairs.tmp | head -n "$MESSAGES" > random.pairs
  cut -f1 random.pairs > random.expected
  cut -f2 random.pairs > random.input
  rm -f random.pairs.tmp random.pairs enc.* pw.*
  echo "$stamp" > random.stamp
}

make_long_input() {
  local stamp="long $LONG_MESSAGES"
  if [ -f long.stamp ] && [ "$(cat long.stamp)" = "$stamp" ]; then return; fi
  echo "making the long chain: 64 passwords, the right one last, $LONG_MESSAGES messages ..." >&2
  { for i in $(seq 1 63); do echo "bench-scaling-wrong-$i"; done; echo "bench-scaling-right"; } > long.passwords
  echo "bench-scaling-right" > long.right
  encrypt_lines long.right l "$LONG_MESSAGES" long.all
  seq 1 "$LONG_MESSAGES" | sed 's/^/l-/' > long.all.expected
  head -n 20 long.all > long.20
  head -n 20 long.all.expected > long.20.expected
  rm -f long.right
  echo "$stamp" > long.stamp
}

# make_clustered_input NAME COUNT PASSWORDS: runs of 1-40 messages, each run under one of the
# passwords drawn at random (a fixed seed), as NAME.input, NAME.passwords, NAME.expected
make_clustered_input() {
  local name=$1 count=$2 passwords=$3 stamp="clustered $2 $3"
  if [ -f "$name.stamp" ] && [ "$(cat "$name.stamp")" = "$stamp" ]; then return; fi
  echo "making $count messages in runs under one of $passwords passwords in $WORK ..." >&2
  # the plan: one password number a message
  awk -v count="$count" -v passwords="$passwords" 'BEGIN { srand(22); n = 0
    while (n < count) { p = 1 + int(rand() * passwords); run = 1 + int(rand() * 40)
      for (i = 0; i < run && n < count; i++) { print p; n++ } } }' > "$name.plan"
  : > "$name.passwords"
  for p in $(seq 1 "$passwords"); do
    echo "bench-scaling-$name-$p" > "pw.$p"
    cat "pw.$p" >> "$name.passwords"
    local per
    per=$(grep -cx "$p" "$name.plan" || true)
    if [ "$per" -gt 0 ]; then encrypt_lines "pw.$p" "$name-$p" "$per" "enc.$p"; else : > "enc.$p"; fi
  done
  # message k of password p is line k of enc.p, plaintext NAME-p-k
  awk -v name="$name" '{ p = $1; k = ++seen[p]; file = "enc." p; getline line < file
    print name "-" p "-" k > (name ".expected"); print line > (name ".input") }' "$name.plan"
  rm -f enc.* pw.* "$name.plan"
  echo "$stamp" > "$name.stamp"
}

# --- runs --------------------------------------------------------------------------------
# median RUNNER ARGS...: runs `RUNNER ARGS` REPS times, keeps the run of median wall time
median() {
  local results=()
  for _ in $(seq 1 "$REPS"); do
    "$@"
    results+=("$WALL $USER_CPU $KEYS")
  done
  read -r WALL USER_CPU KEYS < <(printf '%s\n' "${results[@]}" | sort -g | sed -n "$(( (REPS + 1) / 2 ))p")
}

# run_jobs INPUT PASSWORDS EXPECTED N: one process, --jobs N (N = default: no --jobs)
# sets WALL USER_CPU KEYS
run_jobs() { median run_jobs_once "$@"; }
run_processes() { median run_processes_once "$@"; }
run_jobs_once() {
  local input=$1 passwords=$2 expected=$3 n=$4 jobs=() BIN=${RUN_BIN:-$BIN}
  [ "$n" = default ] || jobs=(--jobs "$n")
  local start end times
  start=$(now)
  times=$( { TIMEFORMAT='%U'; time "$BIN" decrypt --no-store --verbose "${MODE[@]}" "${jobs[@]}" --password-file "$passwords" "$input" > run.out 2> run.err; } 2>&1 )
  end=$(now)
  check run.out "$expected" || { echo "bench-scaling: $MODE_NAME --jobs $n: wrong output (see $WORK/run.out, run.err)" >&2; exit 1; }
  WALL=$(calc "$end - $start"); USER_CPU=$times; KEYS=$(keys_of run.err)
}

# run_processes INPUT PASSWORDS EXPECTED N: N processes at --jobs 1, 1/N of the lines each
run_processes_once() {
  local input=$1 passwords=$2 expected=$3 n=$4 start end times
  rm -f part.*
  split -n "l/$n" -d -a 3 "$input" part.
  start=$(now)
  times=$( { TIMEFORMAT='%U'; time (
    for part in part.[0-9][0-9][0-9]; do
      "$BIN" decrypt --no-store --verbose "${MODE[@]}" --jobs 1 --password-file "$passwords" "$part" > "$part.out" 2> "$part.err" &
    done
    wait
  ); } 2>&1 )
  end=$(now)
  cat part.[0-9][0-9][0-9].out > parts.out
  check parts.out "$expected" || { echo "bench-scaling: $MODE_NAME, $n processes: wrong output (see $WORK/parts.out)" >&2; exit 1; }
  WALL=$(calc "$end - $start"); USER_CPU=$times
  KEYS=0; for err in part.*.err; do KEYS=$((KEYS + $(keys_of "$err"))); done
  rm -f part.*
}

# check OUT EXPECTED: line mode, the plaintexts; JSON records, their plaintexts the first time
# (the --jobs 1 run), then the records themselves but for "source" and "line" (which differ in
# the parts of N processes) against that first run's
normalize() { sed -E 's/^\{"source":"[^"]*","line":[0-9]+,/{/' "$1"; }
check() {
  [ "${#MODE[@]}" -eq 0 ] && { cmp -s "$1" "$2"; return; }
  local reference=$2.$MODE_NAME.reference
  if [ ! -f "$reference" ]; then
    sed -n 's/.*"status":"decrypted","plaintext":"\([^"]*\)".*/\1/p' "$1" | cmp -s - "$2" || return 1
    normalize "$1" > "$reference"
    return 0
  fi
  normalize "$1" | cmp -s - "$reference"
}

row() {  # label messages
  printf '| %-38s | %8.2f s | %8.0f | %11s | %8s s |' "$1" "$WALL" "$(calc "$2 / $WALL")" "$KEYS" "$USER_CPU"
}

echo "rwsecret bench-scaling: $(uname -m), $CPUS CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
echo "binary: $BIN${BASELINE:+ (baseline: $BASELINE)}; each row the median of $REPS run(s); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
make_random_input
echo
echo "## $MESSAGES messages, each under one of $PASSWORDS passwords drawn at random (line mode, --no-store --password-file)"
echo
echo '| run | wall | msg/s | keys derived | CPU (user) | msg/s vs N processes | keys vs --jobs 1 |'
echo '|---|---|---|---|---|---|---|'
declare -A JOB_RATE PROC_RATE
run_jobs random.input random.passwords random.expected 1
JOBS1_KEYS=$KEYS
for n in $JOBS; do
  [ "$n" = 1 ] || run_jobs random.input random.passwords random.expected "$n"
  JOB_RATE[$n]=$(calc "$MESSAGES / $WALL")
  jobs_line="$(row "\`--jobs $n\`" "$MESSAGES")"
  jobs_keys=$KEYS
  if [ "$n" = 1 ]; then
    PROC_RATE[1]=${JOB_RATE[1]}
  else
    run_processes random.input random.passwords random.expected "$n"
    PROC_RATE[$n]=$(calc "$MESSAGES / $WALL")
    proc_line="$(row "$n processes \`--jobs 1\`, 1/$n of the lines each" "$MESSAGES")"
  fi
  printf '%s %5.2fx | %5.3fx |\n' "$jobs_line" "$(calc "${JOB_RATE[$n]} / ${PROC_RATE[$n]}")" "$(calc "$jobs_keys / $JOBS1_KEYS")"
  [ "$n" = 1 ] || printf '%s – | %5.3fx |\n' "$proc_line" "$(calc "$KEYS / $JOBS1_KEYS")"
  if [ -n "${BASELINE:-}" ]; then
    RUN_BIN=$BASELINE run_jobs random.input random.passwords random.expected "$n"
    printf '%s %5.2fx | %5.3fx |\n' "$(row "baseline \`--jobs $n\`" "$MESSAGES")" "$(calc "$MESSAGES / $WALL / ${PROC_RATE[$n]}")" "$(calc "$KEYS / $JOBS1_KEYS")"
  fi
done
run_jobs random.input random.passwords random.expected default
printf '%s – | %5.3fx |\n' "$(row "default (--jobs from the CPUs: $CPUS)" "$MESSAGES")" "$(calc "$KEYS / $JOBS1_KEYS")"

if [ "$LONG" = 1 ]; then
  make_long_input
  for count in 20 "$LONG_MESSAGES"; do
    input=long.all; expected=long.all.expected
    [ "$count" = 20 ] && { input=long.20; expected=long.20.expected; }
    echo
    echo "## 64 passwords, the right one last: $count messages"
    echo
    echo '| run | wall | msg/s | keys derived | CPU (user) | keys vs --jobs 1 | wall vs --jobs 1 / (0.6 N) |'
    echo '|---|---|---|---|---|---|---|'
    run_jobs "$input" long.passwords "$expected" 1
    base_keys=$KEYS; base_wall=$WALL
    printf '%s 1.000x | – |\n' "$(row '`--jobs 1`' "$count")"
    for n in $JOBS; do
      [ "$n" = 1 ] && continue
      run_jobs "$input" long.passwords "$expected" "$n"
      limit=$(calc "$base_wall / (0.6 * $n)")
      applies=$([ "$count" -ge "$n" ] && printf '%5.2fx' "$(calc "$WALL / $limit")" || echo "(fewer than N messages)")
      printf '%s %5.3fx | %s |\n' "$(row "\`--jobs $n\`" "$count")" "$(calc "$KEYS / $base_keys")" "$applies"
      if [ -n "${BASELINE:-}" ]; then
        RUN_BIN=$BASELINE run_jobs "$input" long.passwords "$expected" "$n"
        applies=$([ "$count" -ge "$n" ] && printf '%5.2fx' "$(calc "$WALL / $limit")" || echo "(fewer than N messages)")
        printf '%s %5.3fx | %s |\n' "$(row "baseline \`--jobs $n\`" "$count")" "$(calc "$KEYS / $base_keys")" "$applies"
      fi
    done
  done
fi

# mode_table TITLE INPUT PASSWORDS EXPECTED COUNT MODE_NAME [DECRYPT OPTIONS...]: --jobs 1, then
# --jobs N against N processes for each N of MODE_JOBS
mode_table() {
  local title=$1 input=$2 passwords=$3 expected=$4 count=$5
  MODE_NAME=$6
  shift 6
  MODE=("$@")
  rm -f "$expected.$MODE_NAME.reference"
  echo
  echo "## $title"
  echo
  echo '| run | wall | msg/s | keys derived | CPU (user) | msg/s vs N processes | keys vs --jobs 1 |'
  echo '|---|---|---|---|---|---|---|'
  run_jobs "$input" "$passwords" "$expected" 1
  local base_keys=$KEYS job_rate job_line job_keys
  printf '%s – | 1.000x |\n' "$(row '`--jobs 1`' "$count")"
  for n in $MODE_JOBS; do
    [ "$n" = 1 ] && continue
    run_jobs "$input" "$passwords" "$expected" "$n"
    job_rate=$(calc "$count / $WALL"); job_line="$(row "\`--jobs $n\`" "$count")"; job_keys=$KEYS
    run_processes "$input" "$passwords" "$expected" "$n"
    printf '%s %5.2fx | %5.3fx |\n' "$job_line" "$(calc "$job_rate / ($count / $WALL)")" "$(calc "$job_keys / $base_keys")"
    printf '%s – | %5.3fx |\n' "$(row "$n processes \`--jobs 1\`, 1/$n of the lines each" "$count")" "$(calc "$KEYS / $base_keys")"
  done
  MODE=()
  MODE_NAME=line
}

if [ "$MODES" = 1 ]; then
  make_clustered_input clustered3 "$MODE_MESSAGES" 3
  make_clustered_input clustered64 "$MODE_MESSAGES" 64
  head -n "$MODE_MESSAGES" random.input > modes.input
  head -n "$MODE_MESSAGES" random.expected > modes.expected
  paste <(seq -f 'row%g' 1 "$MODE_MESSAGES") modes.input > modes.ids.input
  mode_table "$MODE_MESSAGES messages in runs of 1-40 under one of 3 passwords (line mode)" \
    clustered3.input clustered3.passwords clustered3.expected "$MODE_MESSAGES" line
  mode_table "$MODE_MESSAGES messages in runs of 1-40 under one of 64 passwords (line mode)" \
    clustered64.input clustered64.passwords clustered64.expected "$MODE_MESSAGES" line
  mode_table "$MODE_MESSAGES messages under one of $PASSWORDS passwords drawn at random, --json" \
    modes.input random.passwords modes.expected "$MODE_MESSAGES" json --json
  mode_table "$MODE_MESSAGES messages under one of $PASSWORDS passwords drawn at random, --in-band --id-column (ID<TAB>message rows)" \
    modes.ids.input random.passwords modes.expected "$MODE_MESSAGES" in-band --in-band --id-column
fi
