#!/usr/bin/env bash
# Whole files at --jobs 1 and 2 (issue 36): FILES age -p files (scrypt, age's work factor 18)
# under one password, the chain "not it" then that password; ROUNDS rounds, --jobs 1 and
# --jobs 2 in turns. Prints each run's wall time and key derivations, and the load average.
# Usage: scripts/bench-whole-files.sh [RWSECRET]   (FILES=16 ROUNDS=3 DIR=a folder to keep)
set -euo pipefail
bin=${1:-.build/release/rwsecret}
files=${FILES:-16}
rounds=${ROUNDS:-3}
dir=${DIR:-$(mktemp -d)}
mkdir -p "$dir"
umask 077
printf 'bench password' > "$dir/one"
printf 'not it\nbench password\n' > "$dir/chain"
for i in $(seq -w 1 "$files"); do
    [ -f "$dir/f$i.age" ] || echo "file $i" | HOME="$dir" "$bin" encrypt --format age --password-file "$dir/one" -o "$dir/f$i.age" -
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
    for jobs in 1 2; do
        start=$(date +%s.%N)
        keys=$(HOME="$dir" "$bin" decrypt --no-store --verbose --jobs "$jobs" --password-file "$dir/chain" "$dir"/f*.age 2>&1 >/dev/null | sed -n 's/^rwsecret: key derivations: //p')
        end=$(date +%s.%N)
        printf 'round %s --jobs %s: %.2f s, %s key derivations\n' "$round" "$jobs" "$(echo "$end - $start" | bc)" "$keys"
    done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
