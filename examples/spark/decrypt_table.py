#!/usr/bin/env python3
"""Decrypt a table of RNCryptor messages on Spark, one rwsecret process per partition.

    spark-submit decrypt_table.py --input TABLE --output OUT --passwords FILE \
        [--format parquet|csv] [--engine pandas|pipe] [--partitions N] [--rwsecret PATH]

TABLE has the columns `id` (unique, no TAB or line break) and `message` (base64, possibly
wrapped over several lines, or empty). OUT (Parquet) gets one row per input row:
`id, status, plaintext, plaintext_base64, password, error` — status is `decrypted`,
`failed` or `skipped` (no message); `plaintext_base64` instead of `plaintext` when the
plaintext is not UTF-8; `password` is the label of the password that opened it.

Passwords: FILE (`-` for stdin) is read on the driver only, one password per line,
`LABEL<TAB>SECRET` or just `SECRET`. The driver hands them to each rwsecret through a
pipe on an inherited file descriptor (`--password-fd`): never on a command line, in the
environment of rwsecret, or in a file shipped to the executors. They travel to the
executors inside the task closure: on a cluster, turn on Spark's RPC encryption
(`spark.network.crypto.enabled=true`, `spark.authenticate=true`) and local-disk I/O
encryption (`spark.io.encryption.enabled=true`) so that they are never in the clear on the
network or on disk.

--engine pandas (the default) uses `mapInPandas`: each partition starts one
`rwsecret decrypt --in-band --id-column`, streams its rows in and reads one record per
input line back, in order. --engine pipe does the same with `RDD.pipe` and the launcher
`rwsecret-pipe.sh` beside this file (see it for how the passwords get there).
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql import types as T

RESULT_SCHEMA = T.StructType([
    T.StructField("id", T.StringType(), False),
    T.StructField("status", T.StringType(), True),
    T.StructField("plaintext", T.StringType(), True),
    T.StructField("plaintext_base64", T.StringType(), True),
    T.StructField("password", T.StringType(), True),
    T.StructField("error", T.StringType(), True),
])
RESULT_COLUMNS = [field.name for field in RESULT_SCHEMA.fields]


def read_passwords(path):
    """The driver's password lines, as bytes (never logged)."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def rwsecret_command(rwsecret, fd, jobs):
    return [rwsecret, "decrypt", "--in-band", "--id-column", "--no-store", "--quiet",
            "--jobs", str(jobs), "--password-fd", str(fd)]


def row_line(row_id, message):
    """One row as rwsecret reads it: `ID<TAB>MESSAGE` (the message may hold line breaks)."""
    row_id = "" if row_id is None else str(row_id)
    if any(c in row_id for c in "\t\r\n"):
        raise ValueError(f"id {row_id!r} holds a TAB or a line break: rwsecret cannot give it back")
    if message is None or (isinstance(message, float) and message != message):  # None or NaN
        message = ""
    return f"{row_id}\t{message}"


def result_row(record):
    """A Spark row from one rwsecret JSON record."""
    return {
        "id": record.get("id"),
        "status": record.get("status"),
        "plaintext": record.get("plaintext"),
        "plaintext_base64": record.get("plaintext_base64"),
        "password": record.get("password"),
        "error": record.get("error"),
    }


def decrypt_partition(batches, rwsecret, passwords, jobs):
    """mapInPandas: one rwsecret process for the whole partition, rows streamed through it.

    rwsecret writes one record per input line, in order. Each row is one or more lines
    (a wrapped message); its first record is its result and the others are the `skipped`
    records of its later lines. After each batch an empty line ends any wrapped message,
    so the batch's last record comes without waiting for the next batch.
    """
    import pandas as pd

    read_end, write_end = os.pipe()
    process = subprocess.Popen(rwsecret_command(rwsecret, read_end, jobs), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(read_end,))
    os.close(read_end)
    view = memoryview(passwords)
    while view:
        view = view[os.write(write_end, view):]
    os.close(write_end)
    errors = []
    drain = threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True)
    drain.start()

    def fail(reason):
        process.kill()
        process.wait()
        drain.join()
        detail = b"".join(errors).decode("utf-8", "replace").strip()
        raise RuntimeError(f"rwsecret {reason} (exit {process.returncode}): {detail}")

    try:
        for batch in batches:
            lines = [row_line(i, m) for i, m in zip(batch["id"], batch["message"])]
            payload = ("\n".join(lines) + "\n\n").encode("utf-8", "surrogateescape")
            writer_error = []

            def write():
                try:
                    process.stdin.write(payload)
                    process.stdin.flush()
                except OSError as e:  # rwsecret stopped: its exit status says why
                    writer_error.append(e)
            writer = threading.Thread(target=write, daemon=True)
            writer.start()
            rows = []
            for line in lines:
                records = []
                for _ in range(line.count("\n") + 1):
                    raw = process.stdout.readline()
                    if not raw:
                        writer.join()
                        process.wait()
                        fail("stopped before every row had a record")
                    records.append(json.loads(raw))
                expected = line.split("\t", 1)[0]
                if records[0].get("id") != expected:
                    fail(f"gave id {records[0].get('id')!r} where {expected!r} was expected")
                rows.append(result_row(records[0]))
            if not process.stdout.readline():  # the batch's closing empty line
                fail("stopped before the end of a batch")
            writer.join()
            if writer_error:
                fail("stopped reading its input")
            yield pd.DataFrame(rows, columns=RESULT_COLUMNS)
        process.stdin.close()
        if process.stdout.read():
            fail("wrote more records than rows")
        if process.wait() != 0:
            drain.join()
            fail("failed")
        drain.join()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def pipe_results(table, rwsecret, passwords, jobs):
    """The same with RDD.pipe: rows as text lines in, JSON records out, joined back on id."""
    launcher = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rwsecret-pipe.sh")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),  # RDD.pipe replaces the whole environment
        "RWSECRET_BIN": rwsecret,
        "RWSECRET_JOBS": str(jobs),
        "RWSECRET_PIPE_PASSWORDS": passwords.decode("utf-8", "surrogateescape"),
    }
    lines = table.rdd.map(lambda row: row_line(row["id"], row["message"]))
    records = lines.pipe(launcher, env=env, checkCode=True).map(json.loads)
    # Blank lines and the later lines of a wrapped message have no id: only rows' results remain.
    results = records.filter(lambda r: r.get("id") is not None).map(result_row)
    return results


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--passwords", required=True, help="password file on the driver (- for stdin)")
    parser.add_argument("--format", choices=["parquet", "csv"], default="parquet")
    parser.add_argument("--engine", choices=["pandas", "pipe"], default="pandas")
    parser.add_argument("--partitions", type=int, default=0, help="default: Spark's default parallelism")
    parser.add_argument("--rwsecret", default="rwsecret", help="the rwsecret binary on the executors")
    return parser.parse_args(argv)


def run(spark, args):
    """Reads the table, decrypts it, writes the results; returns the number of rows."""
    started = time.monotonic()
    passwords = read_passwords(args.passwords)
    if args.format == "parquet":
        table = spark.read.parquet(args.input)
    else:
        table = spark.read.csv(args.input, header=True, multiLine=True, escape='"')
    table = table.select(table["id"].cast("string").alias("id"), table["message"].cast("string").alias("message"))
    partitions = args.partitions or spark.sparkContext.defaultParallelism
    table = table.repartition(partitions)
    # One rwsecret job per CPU a task has (spark.task.cpus, 1 by default).
    jobs = int(spark.conf.get("spark.task.cpus", "1"))
    rwsecret, secret = args.rwsecret, passwords

    if args.engine == "pandas":
        results = table.mapInPandas(lambda batches: decrypt_partition(batches, rwsecret, secret, jobs), RESULT_SCHEMA)
    else:
        results = spark.createDataFrame(pipe_results(table, rwsecret, secret, jobs), RESULT_SCHEMA)
    # Every input row, with its result joined back on id.
    out = table.select("id").join(results, on="id", how="left").select(*RESULT_COLUMNS)
    out.write.mode("overwrite").parquet(args.output)
    rows = spark.read.parquet(args.output).count()
    print(f"decrypt_table: {rows} rows in {time.monotonic() - started:.1f} s "
          f"({args.engine}, {partitions} partitions, --jobs {jobs} each)", file=sys.stderr)
    return rows


def main():
    args = parse_args()
    spark = SparkSession.builder.appName("rwsecret decrypt").getOrCreate()
    try:
        run(spark, args)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
