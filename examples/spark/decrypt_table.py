#!/usr/bin/env python3
"""Decrypt a table of RNCryptor messages on Spark, one rwsecret process per partition.

    spark-submit decrypt_table.py --input TABLE --output OUT --passwords FILE \
        [--format parquet|csv] [--engine pandas|pipe] [--partitions N] [--rwsecret PATH]

TABLE has the columns `id` (any string: TAB, line breaks, NUL and repeated ids included) and
`message` (base64, possibly wrapped over several lines, or empty). OUT (Parquet) gets exactly
one row per input row: `id, status, plaintext, plaintext_base64, password, error` — status is
`decrypted`, `failed` or `skipped` (no message); `plaintext_base64` instead of `plaintext`
when the plaintext is not UTF-8; `password` is the label of the password that opened it.

No field of the table ever reaches rwsecret with a line break in it, so no message can pass
for another row: each row is one line `KEY<TAB>MESSAGE`, where KEY is the row's number in
its partition (the table's id never goes to rwsecret, so ids may hold anything and repeat)
and the message has its line breaks taken out (a wrapped message is joined; a message with
anything else in it fails as its own row). Each record is matched to its row by its `line`
(the input line number rwsecret puts in every record) and its `id` (the KEY): a record out of
step fails the task.

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
`rwsecret-pipe.sh` beside this file: the passwords go as the first line of the partition's
stdin (base64), never in the launcher's environment or command line, which every process of
the same user can read through /proc and ps.
"""
import argparse
import base64
import json
import os
import subprocess
import sys
import threading
import time
import traceback

from pyspark.sql import SparkSession
from pyspark.sql import types as T

RESULT_SCHEMA = T.StructType([
    T.StructField("id", T.StringType(), True),
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


def row_key(number):
    """What rwsecret gets as the ID of a partition's row `number` (1-based): digits only."""
    return str(number)


def row_line(key, message):
    """One row as rwsecret reads it: `KEY<TAB>MESSAGE`, on one line.

    The message's line breaks are taken out: a wrapped message is joined (base64 has no line
    breaks), and a message with a line break and something else (`garbage\nID<TAB>...`) is one
    line that fails as itself instead of passing for another row.
    """
    if message is None or (isinstance(message, float) and message != message):  # None or NaN
        message = ""
    return f"{key}\t{message.replace(chr(13), '').replace(chr(10), '')}"


def checked_record(raw, line, key):
    """The JSON record `raw`, after checking that it is the one of input line `line` (ID `key`)."""
    record = json.loads(raw)
    if record.get("line") != line or record.get("id") != key:
        raise RuntimeError(f"rwsecret gave the record of line {record.get('line')!r} (id {record.get('id')!r}) "
                           f"where line {line} (id {key!r}) was expected")
    return record


def result_row(row_id, record):
    """A Spark row: the table's id, and rwsecret's JSON record of that row."""
    if isinstance(row_id, float) and row_id != row_id:  # pandas' NaN for a null id
        row_id = None
    return {
        "id": row_id,
        "status": record.get("status"),
        "plaintext": record.get("plaintext"),
        "plaintext_base64": record.get("plaintext_base64"),
        "password": record.get("password"),
        "error": record.get("error"),
    }


def decrypt_partition(batches, rwsecret, passwords, jobs):
    """mapInPandas: one rwsecret process for the whole partition, rows streamed through it.

    rwsecret writes one record per input line, in order, and each row is one line. After each
    batch an empty line ends a row that could be the start of a wrapped message, so the
    batch's last record comes without waiting for the next batch.
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

    line = 0  # rwsecret's input line number of the last line written
    try:
        for batch in batches:
            first = line + 1
            lines = [row_line(row_key(first + i), m) for i, m in enumerate(batch["message"])]
            line += len(lines) + 1  # and the empty line that closes the batch
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
            for number, row_id in enumerate(batch["id"], first):
                raw = process.stdout.readline()
                if not raw:
                    writer.join()
                    process.wait()
                    fail("stopped before every row had a record")
                try:
                    record = checked_record(raw, number, row_key(number))
                except (RuntimeError, ValueError) as e:
                    fail(str(e))
                rows.append(result_row(row_id, record))
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


PIPE_PASSWORDS_PREFIX = "RWSECRET-PASSWORDS "


def pipe_launcher(rwsecret, passwords, jobs):
    """How the pipe engine starts rwsecret-pipe.sh: (command, environment, its first stdin line).

    The passwords are only in the first line (base64): never in the environment (RDD.pipe's
    env=, readable in /proc/PID/environ) or on the command line (ps).
    """
    launcher = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rwsecret-pipe.sh")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),  # RDD.pipe replaces the whole environment
        "RWSECRET_BIN": rwsecret,
        "RWSECRET_JOBS": str(jobs),
    }
    return launcher, env, PIPE_PASSWORDS_PREFIX + base64.b64encode(passwords).decode("ascii")


# The ID of the last line of every partition's input: its record shows that rwsecret read
# every row (a record lost or added fails the task).
PIPE_END_KEY = "end"
# The ID of the line that ends a partition's input early, when its rows could not be read.
PIPE_ERROR_KEY = "error"


def pipe_key(number, row_id):
    """The pipe engine's KEY: the row's number, then `.` and its id as base64 unless it is null."""
    if row_id is None:
        return row_key(number)
    return row_key(number) + "." + base64.urlsafe_b64encode(str(row_id).encode("utf-8", "surrogateescape")).decode("ascii")


def pipe_input(first_line, rows):
    """One partition's stdin for the launcher: the passwords' line, the rows, an end line."""
    yield first_line
    try:
        for number, (row_id, message) in enumerate(rows, 1):
            yield row_line(pipe_key(number, row_id), message)
    except Exception:
        # RDD.pipe writes this in a thread of its own: an exception there would end the
        # thread without closing rwsecret's stdin, and the task would wait for ever.
        traceback.print_exc()
        yield f"{PIPE_ERROR_KEY}\t"
        return
    yield f"{PIPE_END_KEY}\t"


def pipe_output(records):
    """One partition's result rows from its records: each checked against its line number,
    its id decoded from its KEY; the end line's record must come last, right after the rows."""
    line = 0
    for raw in records:
        line += 1
        record = json.loads(raw)
        if record.get("id") == PIPE_END_KEY and record.get("line") == line:
            if next(records, None) is not None:
                raise RuntimeError("rwsecret gave a record after the end of the partition")
            return
        if record.get("id") == PIPE_ERROR_KEY:
            raise RuntimeError("the rows of this partition could not be read (the executor's log has the exception)")
        number, dot, encoded = str(record.get("id")).partition(".")
        if record.get("line") != line or number != row_key(line):
            raise RuntimeError(f"rwsecret gave the record of line {record.get('line')!r} (id {record.get('id')!r}) "
                               f"where line {line} was expected")
        row_id = base64.urlsafe_b64decode(encoded).decode("utf-8", "surrogateescape") if dot else None
        yield result_row(row_id, record)
    raise RuntimeError(f"rwsecret stopped after {line} records, before the end of the partition")


def pipe_results(table, rwsecret, passwords, jobs):
    """The same with RDD.pipe: each partition's rows as `KEY<TAB>MESSAGE` lines through the
    launcher, the passwords' line first; JSON records out, zipped with the rows by line number.
    KEY carries the table's id (as base64), so no join on id is needed and ids may repeat."""
    launcher, env, first_line = pipe_launcher(rwsecret, passwords, jobs)
    lines = table.rdd.map(lambda row: (row["id"], row["message"])).mapPartitions(lambda rows: pipe_input(first_line, rows))
    records = lines.pipe(launcher, env=env, checkCode=True)
    return records.mapPartitions(lambda records: pipe_output(iter(records)))


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
    # Each engine gives exactly one result row per input row (every record checked against
    # its row's line number), with the row's own id: no join on id, which may repeat.
    out = results.select(*RESULT_COLUMNS)
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
