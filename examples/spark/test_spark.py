#!/usr/bin/env python3
"""The rest of `make test-spark`, in one Spark session (one JVM start-up for all of it).

    spark-submit test_spark.py --data DIR --work DIR --rwsecret BIN

Checks, against DIR/truth.jsonl: the RDD.pipe engine on the CSV copy of the table; and that
the job fails loudly — an exception naming the cause, no output written — when the chain is
empty (a password file with no password: every rwsecret exits 69 before reading a row),
with both engines, and when the driver's password file is missing. Prints
`N passed, M failed`.
"""
import argparse
import os
import shutil
import sys

from pyspark.sql import SparkSession

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402
import decrypt_table  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--rwsecret", required=True)
    args = parser.parse_args()
    spark = SparkSession.builder.appName("rwsecret example tests").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    # The workers unpickle the example's functions by module name: ship the module (code, no secret).
    spark.sparkContext.addPyFile(decrypt_table.__file__)
    passed = failed = 0

    def job(engine, fmt, passwords, output):
        table = os.path.join(args.data, "table.csv" if fmt == "csv" else "table.parquet")
        return decrypt_table.run(spark, decrypt_table.parse_args([
            "--input", table, "--format", fmt, "--engine", engine, "--output", output,
            "--passwords", passwords, "--rwsecret", args.rwsecret]))

    # 1. RDD.pipe on the CSV table: every row against the truth.
    output = os.path.join(args.work, "out-pipe-csv")
    job("pipe", "csv", os.path.join(args.data, "passwords"), output)
    ok, bad = check.compare(os.path.join(args.data, "truth.jsonl"), output)
    print(f"pipe engine, CSV table: {ok} rows right, {bad} wrong")
    passed, failed = (passed + 1, failed) if bad == 0 else (passed, failed + 1)

    # 2. An empty chain fails the job loudly, with rwsecret's reason, and writes nothing.
    empty = os.path.join(args.work, "no-passwords")
    open(empty, "wb").close()
    for engine in ["pandas", "pipe"]:
        output = os.path.join(args.work, f"out-empty-{engine}")
        shutil.rmtree(output, ignore_errors=True)
        try:
            job(engine, "parquet", empty, output)
            print(f"FAILED: {engine} engine, empty chain: the job succeeded")
            failed += 1
        except Exception as e:  # Py4JJavaError or PythonException, with the worker's error inside
            text = str(e)
            # mapInPandas raises with rwsecret's stderr line; RDD.pipe(checkCode=True) with its exit status.
            reason_shown = "nothing to try" in text if engine == "pandas" else "error code 69" in text
            wrote = os.path.exists(os.path.join(output, "_SUCCESS"))
            if reason_shown and not wrote:
                print(f"{engine} engine, empty chain: the job failed, naming the cause, and wrote nothing")
                passed += 1
            else:
                print(f"FAILED: {engine} engine, empty chain: reason shown {reason_shown}, output written {wrote}: {text[:2000]}")
                failed += 1

    # 3. A missing password file fails the driver before any task.
    try:
        job("pandas", "parquet", os.path.join(args.work, "absent-password-file"), os.path.join(args.work, "out-absent"))
        print("FAILED: missing password file: the job succeeded")
        failed += 1
    except FileNotFoundError as e:
        print(f"missing password file: the driver stops ({e.strerror})")
        passed += 1

    spark.stop()
    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
