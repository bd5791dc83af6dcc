#!/usr/bin/env python3
"""The rest of `make test-spark`, in one Spark session (one JVM start-up for all of it).

    spark-submit test_spark.py --data DIR --work DIR --rwsecret BIN

Checks, against DIR/truth.jsonl: the RDD.pipe engine on the CSV copy of the table, with
leak_sampler.py looking for the passwords in every command line and environment meanwhile;
a table whose ids and messages hold CR, LF, TAB and NUL, repeated ids, and messages made to
pass for another row, through both engines: exactly one row per input row, each with its own
result; and that the job fails loudly — an exception naming the cause, no output written —
when the chain is empty (a password file with no password: every rwsecret exits 69 before
reading a row), with both engines, and when the driver's password file is missing. Prints
`N passed, M failed`.
"""
import argparse
import os
import shutil
import sys
from collections import Counter

import pandas as pd
from pyspark.sql import SparkSession

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402
import decrypt_table  # noqa: E402
import leak_sampler  # noqa: E402
import make_table  # noqa: E402


def injection_table(rwsecret, folder):
    """A table of rows made to break the engines, and the (id, status, plaintext) each must get.

    Ids with CR, LF, CRLF, TAB and NUL (one first, where a NUL would make the input look like a
    raw message), an empty id, a null id and a repeated one; messages wrapped with LF or CRLF
    (they decrypt), and messages holding a line break and then another row's `ID<TAB>MESSAGE`
    (issue 28: one gave an extra row for id000007), a TAB or a NUL: each fails as its own row.
    """
    secret = b"injection-password-1"
    labels = {"one": secret}
    texts = [f"plaintext {i}".encode() for i in range(14)]
    m = make_table.encrypt(rwsecret, secret, texts)
    wrapped = lambda text, width, eol: eol.join(text[i:i + width] for i in range(0, len(text), width))
    rows = [
        ("\0first", m[0], "decrypted", texts[0]),
        ("tab\tid", m[1], "decrypted", texts[1]),
        ("lf\nid", m[2], "decrypted", texts[2]),
        ("cr\rid", m[3], "decrypted", texts[3]),
        ("crlf\r\nid\r\n", m[4], "decrypted", texts[4]),
        ("nul\0id", m[5], "decrypted", texts[5]),
        ("", m[6], "decrypted", texts[6]),
        (None, m[7], "decrypted", texts[7]),
        ("dup", m[8], "decrypted", texts[8]),
        ("dup", "not base64", "failed", None),
        ("dup", None, "skipped", None),
        ("id000007", m[9], "decrypted", texts[9]),
        ("e-inject", f"garbage\nid000007\t{m[9]}", "failed", None),
        ("e-inject-crlf", f"garbage\r\nid000007\t{m[9]}\r\n", "failed", None),
        ("e-inject-cr", f"garbage\rid000007\t{m[9]}", "failed", None),
        ("e-inject-last", f"{m[10]}\nid000007\t{m[9]}", "failed", None),
        # A TAB inside the base64 is a blank, dropped as spaces are (docs/line-format.md): the
        # row's own message opens, in the row's own record.
        ("tab-in-message", f"{m[11][:20]}\t{m[11][20:]}", "decrypted", texts[11]),
        ("nul-in-message", f"{m[11][:20]}\0{m[11][20:]}", "failed", None),
        ("wrapped-lf", wrapped(m[12], 64, "\n"), "decrypted", texts[12]),
        ("wrapped-crlf", wrapped(m[13], 76, "\r\n") + "\r\n", "decrypted", texts[13]),
    ]
    os.makedirs(folder, exist_ok=True)
    pd.DataFrame({"id": [r[0] for r in rows], "message": [r[1] for r in rows]}).to_parquet(
        os.path.join(folder, "table.parquet"), index=False)
    path = os.path.join(folder, "passwords")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(b"".join(label.encode() + b"\t" + value + b"\n" for label, value in labels.items()))
    return path, Counter((i, status, text) for i, _, status, text in rows)


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

    # 1. RDD.pipe on the CSV table: every row against the truth, and no password where every
    # process of the user can read it (the launcher's environment held them all, issue 28).
    output = os.path.join(args.work, "out-pipe-csv")
    passwords = os.path.join(args.data, "passwords")
    launcher = decrypt_table.pipe_launcher(args.rwsecret, b"", 1)[0]
    sampler = leak_sampler.Sampler(leak_sampler.needles(passwords), [launcher, args.rwsecret]).start()
    try:
        job("pipe", "csv", passwords, output)
    finally:
        sampler.stop()
    ok, bad = check.compare(os.path.join(args.data, "truth.jsonl"), output)
    print(f"pipe engine, CSV table: {ok} rows right, {bad} wrong")
    passed, failed = (passed + 1, failed) if bad == 0 else (passed, failed + 1)
    fine, line = sampler.report("pipe engine")
    print(line)
    passed, failed = (passed + 1, failed) if fine else (passed, failed + 1)

    # 2. CR, LF, TAB and NUL in ids and messages, repeated ids, messages made to pass for
    # another row: through both engines, one row per input row with its own result.
    folder = os.path.join(args.work, "injection")
    injection_passwords, expected = injection_table(args.rwsecret, folder)
    for engine in ["pandas", "pipe"]:
        output = os.path.join(args.work, f"out-injection-{engine}")
        try:
            decrypt_table.run(spark, decrypt_table.parse_args([
                "--input", os.path.join(folder, "table.parquet"), "--engine", engine, "--output", output,
                "--passwords", injection_passwords, "--rwsecret", args.rwsecret, "--partitions", "2"]))
            out = pd.read_parquet(output)
            got = Counter((r["id"], r["status"], None if r["plaintext"] is None else r["plaintext"].encode())
                          for r in out.to_dict("records"))
            problem = None if got == expected else (
                f"{len(out)} rows for {sum(expected.values())}; missing {sorted((expected - got).items(), key=repr)}, "
                f"unexpected {sorted((got - expected).items(), key=repr)}")
        except Exception as e:  # the job failed
            problem = f"the job failed: {str(e)[:1500]}"
        if problem is None:
            print(f"{engine} engine, CR/LF/TAB/NUL in ids and messages: {len(out)} rows, each with its own result")
            passed += 1
        else:
            print(f"FAILED: {engine} engine, CR/LF/TAB/NUL in ids and messages: {problem}")
            failed += 1

    # 3. An empty chain fails the job loudly, with rwsecret's reason, and writes nothing.
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

    # 4. A missing password file fails the driver before any task.
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
