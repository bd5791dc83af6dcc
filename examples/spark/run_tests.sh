#!/usr/bin/env bash
# make test-spark: the Spark example in local[2] on a generated table, every row checked, with
# no password in any process's command line or environment meanwhile; the pipe launcher, the
# GNU parallel recipe and the venv's pandas (test_local.py); rows made to break the engines.
#   run_tests.sh VENV RWSECRET WORKDIR [ROWS] [SEED]
# SEED (or SPARK_SEED) makes the same table again; without one, make_table.py draws and prints it.
# Every step has a time limit: a step that hangs fails the run (CI must fail, never hang).
set -euo pipefail
venv=$1 rwsecret=$2 work=$3 rows=${4:-3000} seed=${5:-${SPARK_SEED:-}}
limit=${SPARK_STEP_TIMEOUT:-1800}
here=$(cd "$(dirname "$0")" && pwd)
export PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python" SPARK_LOCAL_IP=127.0.0.1
submit=("$venv/bin/spark-submit" --master 'local[2]' --conf spark.ui.enabled=false
        --conf spark.sql.shuffle.partitions=4 --driver-java-options -Dlog4j2.level=warn)
rm -rf "$work" && mkdir -p "$work"
timeout "$limit" "$venv/bin/python" "$here/make_table.py" --rwsecret "$rwsecret" --rows "$rows" --out "$work/data" ${seed:+--seed "$seed"}

# What needs no Spark session: the pipe launcher, the GNU parallel recipe, the venv's pandas.
local_status=0
timeout "$limit" "$venv/bin/python" "$here/test_local.py" --data "$work/data" --work "$work" --rwsecret "$rwsecret" --venv "$venv" \
  | tee "$work/local.txt" || local_status=1

# The example as a user runs it: spark-submit, mapInPandas, Parquet in and out, with the leak
# sampler looking for the passwords in every command line and environment meanwhile.
"$venv/bin/python" "$here/leak_sampler.py" --passwords "$work/data/passwords" --name "mapInPandas engine" \
  --expect="$rwsecret" > "$work/leak-pandas.txt" &
sampler=$!
if ! timeout "$limit" "${submit[@]}" "$here/decrypt_table.py" --input "$work/data/table.parquet" --output "$work/out-pandas" \
     --passwords "$work/data/passwords" --rwsecret "$rwsecret" > "$work/pandas.log" 2>&1; then
  kill "$sampler"; tail -40 "$work/pandas.log"; echo "test-spark: the mapInPandas job failed"; exit 1
fi
leak=0
kill -TERM "$sampler" && wait "$sampler" || leak=1
cat "$work/leak-pandas.txt"
grep '^decrypt_table:' "$work/pandas.log" || true
first=0
timeout "$limit" "$venv/bin/python" "$here/check.py" --truth "$work/data/truth.jsonl" --output "$work/out-pandas" | tee "$work/check-pandas.txt" || first=1

# The rest in one Spark session: RDD.pipe on CSV (sampled too), CR/LF/TAB/NUL in ids and
# messages through both engines, and the jobs that must fail loudly.
rest=0
timeout "$limit" "${submit[@]}" "$here/test_spark.py" --data "$work/data" --work "$work" --rwsecret "$rwsecret" > "$work/rest.log" 2>&1 || rest=1
grep -E '^(pipe engine|pandas engine|leak sampler|missing password|FAILED|mismatch|decrypt_table:|[0-9]+ passed)|/out-' "$work/rest.log" || tail -40 "$work/rest.log"
# One closing line: rows checked by the first job, the sampler's check, the local checks and
# the checks of the session.
total() { awk '/^[0-9]+ passed, [0-9]+ failed$/ { p = $1; f = $3 } END { print (p ? p : 0), (f != "" ? f : 1) }' "$1"; }
read -r p0 f0 < <(total "$work/local.txt")
read -r p1 f1 < <(total "$work/check-pandas.txt")
read -r p2 f2 < <(total "$work/rest.log")
[ "$local_status" -eq 0 ] || f0=$((f0 > 0 ? f0 : 1))
[ "$first" -eq 0 ] || f1=$((f1 > 0 ? f1 : 1))
[ "$rest" -eq 0 ] || f2=$((f2 > 0 ? f2 : 1))
if [ "$leak" -eq 0 ]; then p1=$((p1 + 1)); else f1=$((f1 + 1)); fi
if [ $((f0 + f1 + f2)) -ne 0 ]; then echo "test-spark: FAILED (logs in $work)"; fi
echo "test-spark: $((p0 + p1 + p2)) passed, $((f0 + f1 + f2)) failed"
[ $((f0 + f1 + f2)) -eq 0 ]
