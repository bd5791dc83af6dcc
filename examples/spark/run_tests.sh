#!/usr/bin/env bash
# make test-spark: the Spark example in local[2] on a generated table, every row checked.
#   run_tests.sh VENV RWSECRET WORKDIR [ROWS]
set -euo pipefail
venv=$1 rwsecret=$2 work=$3 rows=${4:-3000}
here=$(cd "$(dirname "$0")" && pwd)
export PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python" SPARK_LOCAL_IP=127.0.0.1
submit=("$venv/bin/spark-submit" --master 'local[2]' --conf spark.ui.enabled=false
        --conf spark.sql.shuffle.partitions=4 --driver-java-options -Dlog4j2.level=warn)
rm -rf "$work" && mkdir -p "$work"
"$venv/bin/python" "$here/make_table.py" --rwsecret "$rwsecret" --rows "$rows" --out "$work/data"

# The example as a user runs it: spark-submit, mapInPandas, Parquet in and out.
if ! "${submit[@]}" "$here/decrypt_table.py" --input "$work/data/table.parquet" --output "$work/out-pandas" \
     --passwords "$work/data/passwords" --rwsecret "$rwsecret" > "$work/pandas.log" 2>&1; then
  tail -40 "$work/pandas.log"; echo "test-spark: the mapInPandas job failed"; exit 1
fi
grep '^decrypt_table:' "$work/pandas.log" || true
first=0
"$venv/bin/python" "$here/check.py" --truth "$work/data/truth.jsonl" --output "$work/out-pandas" | tee "$work/check-pandas.txt" || first=1

# The rest in one Spark session: RDD.pipe on CSV, and the jobs that must fail loudly.
rest=0
"${submit[@]}" "$here/test_spark.py" --data "$work/data" --work "$work" --rwsecret "$rwsecret" > "$work/rest.log" 2>&1 || rest=1
grep -E '^(pipe engine|pandas engine|missing password|FAILED|mismatch|decrypt_table:|[0-9]+ passed)|/out-' "$work/rest.log" || tail -40 "$work/rest.log"
# One closing line: rows checked by the first job, plus the checks of the session.
total() { awk '/^[0-9]+ passed, [0-9]+ failed$/ { p = $1; f = $3 } END { print (p ? p : 0), (f != "" ? f : 1) }' "$1"; }
read -r p1 f1 < <(total "$work/check-pandas.txt")
read -r p2 f2 < <(total "$work/rest.log")
[ "$first" -eq 0 ] || f1=$((f1 > 0 ? f1 : 1))
[ "$rest" -eq 0 ] || f2=$((f2 > 0 ? f2 : 1))
if [ $((f1 + f2)) -ne 0 ]; then echo "test-spark: FAILED (logs in $work)"; fi
echo "test-spark: $((p1 + p2)) passed, $((f1 + f2)) failed"
[ $((f1 + f2)) -eq 0 ]
