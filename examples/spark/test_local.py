#!/usr/bin/env python3
"""The part of `make test-spark` that needs no Spark session (no JVM: seconds, not minutes).

    python test_local.py --data DIR --work DIR --rwsecret BIN [--venv VENV]

Checks:
- the pipe engine's launcher, started as decrypt_table.py starts it, in the middle of a
  partition (records already out, more rows to come): no password in the command line or
  environment of any process, the launcher and rwsecret included (issue 28: the launcher
  shell kept them all in its environment for the whole partition); and that it refuses the
  old RWSECRET_PIPE_PASSWORDS and a stdin without the passwords' line;
- the README's GNU parallel recipe (`--pipe -k -N`) on DIR's rows with ids that do not start
  with `row-`, one of them repeated: it splits the input (several rwsecret runs, so it runs
  in parallel), and record N of the output is the record of input line N, right against
  DIR/truth.jsonl (issue 28: `--recstart 'row-'` sent it all as one block);
- the venv's pandas and pyarrow are versions PySpark supports, without its warning
  (issue 28: `pandas>=2.2` installed pandas 3).
Prints `N passed, M failed`.
"""
import argparse
import base64
import json
import os
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import decrypt_table  # noqa: E402
import leak_sampler  # noqa: E402

# Every read of a child's output and every child has a deadline: a child that holds a
# record back fails the check instead of hanging `make test-spark` (and CI) for ever.
READ_TIMEOUT = 120
RUN_TIMEOUT = 600


class TimedLines:
    """The lines of a child's stdout, each read with a deadline (select, then os.read)."""

    def __init__(self, stream, timeout=READ_TIMEOUT):
        self.fd, self.timeout, self.pending = stream.fileno(), timeout, b""

    def _more(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            raise TimeoutError(f"no output within {self.timeout} s")
        chunk = os.read(self.fd, 65536)
        self.pending += chunk
        return bool(chunk)

    def readline(self):
        """The next line with its LF (b"" at the end); TimeoutError when none comes in time."""
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self.pending:
            if not self._more(deadline):
                line, self.pending = self.pending, b""
                return line
        line, _, self.pending = self.pending.partition(b"\n")
        return line + b"\n"

    def read(self):
        """The rest, to the end; TimeoutError when it does not end in time."""
        deadline = time.monotonic() + self.timeout
        while self._more(deadline):
            pass
        rest, self.pending = self.pending, b""
        return rest


def launcher_mid_partition(rwsecret, data):
    """Problems found with the pipe launcher stopped in the middle of a partition (none: [])."""
    passwords_path = os.path.join(data, "passwords")
    with open(passwords_path, "rb") as f:
        passwords = f.read()
    command, env, first_line = decrypt_table.pipe_launcher(rwsecret, passwords, 1)
    with open(os.path.join(data, "rows.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t", 1) for line in f if "\t" in line][:40]
    lines = list(decrypt_table.pipe_input(first_line, rows))
    problems = []
    process = subprocess.Popen([command], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = TimedLines(process.stdout)
    try:
        # The passwords and half the rows; the records of those rows show that rwsecret has
        # read the passwords and is at work, waiting for more rows.
        half = 1 + len(rows) // 2
        process.stdin.write("".join(line + "\n" for line in lines[:half]).encode())
        process.stdin.flush()
        try:
            records = [json.loads(out.readline()) for _ in range(half - 1)]
        except TimeoutError as error:
            return [f"the records of the first {half - 1} rows, with stdin still open: {error} (a row waits for the next)"]
        if [r.get("line") for r in records] != list(range(1, half)):
            problems.append(f"records for lines {[r.get('line') for r in records]}")
        tree = process_tree(process.pid)
        if len(tree) < 2:
            problems.append(f"the launcher's process tree is {tree}: rwsecret is not running")
        sampler = leak_sampler.Sampler(leak_sampler.needles(passwords_path), [command, rwsecret])
        sampler.sample()
        for pid in tree:  # the launcher's own processes, whatever the sampler's matching
            for part in ["environ", "cmdline"]:
                with open(f"/proc/{pid}/{part}", "rb") as f:
                    sampler._leaks(f"/proc/PID/{part} of pid {pid} in the launcher's tree", f.read())
        ok, line = sampler.report("pipe launcher in the middle of a partition")
        if not ok:
            problems.append(line)
        process.stdin.write("".join(line + "\n" for line in lines[half:]).encode())
        process.stdin.close()
        try:
            rest = out.read().decode().splitlines()
            code = process.wait(timeout=READ_TIMEOUT)
        except (TimeoutError, subprocess.TimeoutExpired) as error:
            return [f"the rest of the records: {error}"]
        if code != 0:
            problems.append(f"the launcher exited {process.returncode}")
        results = list(decrypt_table.pipe_output(iter([json.dumps(r) for r in records] + rest)))
        if [r["id"] for r in results] != [row[0] for row in rows]:
            problems.append("the results are not the rows' (ids differ)")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return problems


def process_tree(root):
    """root and its descendants, from /proc/PID/task/*/children."""
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return tree


def launcher_refuses(rwsecret, data):
    """Problems with the launcher's refusals: passwords in its environment, no passwords' line."""
    with open(os.path.join(data, "passwords"), "rb") as f:
        passwords = f.read()
    command, env, first_line = decrypt_table.pipe_launcher(rwsecret, passwords, 1)
    problems = []
    for name, extra_env, stdin in [
            ("RWSECRET_PIPE_PASSWORDS set", {"RWSECRET_PIPE_PASSWORDS": "x"}, first_line + "\nr1\t\n"),
            ("no passwords' line", {}, "r1\t\n"),
            ("empty stdin", {}, "")]:
        run = subprocess.run([command], env=dict(env, **extra_env), input=stdin.encode(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=RUN_TIMEOUT)
        if run.returncode != 64 or run.stdout or b"rwsecret-pipe.sh: " not in run.stderr:
            problems.append(f"{name}: exit {run.returncode}, stdout {run.stdout[:200]!r}, stderr {run.stderr[:300]!r}")
    return problems


# The README's recipe, with a smaller -N so that the test's few thousand rows make several blocks.
PARALLEL_RECIPE = ("RWSECRET_JOBS=1 parallel --pipe -k -N {n} -j 2 "
                   "{rwsecret} decrypt --in-band --id-column --no-store --password-file {passwords} "
                   "< {rows} > {results}")


def parallel_recipe(rwsecret, data, work, rows_per_block=500, recipe=PARALLEL_RECIPE):
    """(problems, summary) of the GNU parallel recipe on DIR's rows, ids renamed `x…`."""
    import pandas as pd

    table = pd.read_parquet(os.path.join(data, "table.parquet"))
    with open(os.path.join(data, "truth.jsonl")) as f:
        truth = {t["id"]: t for t in map(json.loads, f)}
    ids = ["x" + i[len("row-"):] for i in table["id"]]
    truths = [truth[i] for i in table["id"]]
    ids[len(ids) // 2] = ids[0]  # a repeated id: records are told apart by position, not id
    rows_path, results_path = os.path.join(work, "parallel-rows.tsv"), os.path.join(work, "parallel-results.jsonl")
    with open(rows_path, "w", encoding="utf-8") as f:
        for row_id, message in zip(ids, table["message"]):
            f.write(decrypt_table.row_line(row_id, message) + "\n")  # one line per row
    command = recipe.format(n=rows_per_block, rwsecret=rwsecret, passwords=os.path.join(data, "passwords"),
                            rows=rows_path, results=results_path)
    run = subprocess.run(["bash", "-c", command], stderr=subprocess.PIPE, timeout=RUN_TIMEOUT)
    problems = []
    if run.returncode != 0:
        return [f"parallel exited {run.returncode}: {run.stderr.decode(errors='replace')[-500:]}"], ""
    with open(results_path) as f:
        records = [json.loads(line) for line in f]
    if len(records) != len(ids):
        problems.append(f"{len(records)} records for {len(ids)} rows")
    blocks = sum(1 for r in records if r.get("line") == 1)
    if blocks < 2:
        problems.append(f"one block ({len(ids)} rows, -N {rows_per_block}): one rwsecret did it all, nothing in parallel")
    wrong = 0
    for row_id, expected, record in zip(ids, truths, records):
        got = record.get("plaintext_base64") or (base64.b64encode(record["plaintext"].encode()).decode()
                                                 if record.get("plaintext") is not None else None)
        if (record.get("id"), record.get("status"), got, record.get("error")) != (
                row_id, expected["status"], expected["plaintext_base64"], expected["error"]):
            wrong += 1
    if wrong:
        problems.append(f"{wrong} records are not their row's")
    return problems, f"{len(records)} records in {blocks} blocks"


def pandas_supported(venv):
    """Problems with the venv's pandas and pyarrow, as PySpark itself sees them (warnings are errors)."""
    python = os.path.join(venv, "bin", "python") if venv else sys.executable
    check = ("from pyspark.sql.pandas.utils import require_minimum_pandas_version as p, "
             "require_minimum_pyarrow_version as a; p(); a(); import pandas, pyarrow; "
             "print(pandas.__version__, pyarrow.__version__)")
    run = subprocess.run([python, "-W", "error", "-c", check], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=RUN_TIMEOUT)
    if run.returncode != 0:
        return [run.stderr.decode(errors="replace").strip().splitlines()[-1]], ""
    return [], run.stdout.decode().strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--rwsecret", required=True)
    parser.add_argument("--venv")
    args = parser.parse_args()
    passed = failed = 0

    def result(name, problems, done=""):
        nonlocal passed, failed
        if problems:
            print(f"FAILED: {name}: " + "; ".join(problems))
            failed += 1
        else:
            print(f"{name}: {done or 'right'}")
            passed += 1
    result("pipe launcher, in the middle of a partition", launcher_mid_partition(args.rwsecret, args.data),
           "no password in any command line or environment, the records right")
    result("pipe launcher, refusals", launcher_refuses(args.rwsecret, args.data),
           "RWSECRET_PIPE_PASSWORDS, no passwords' line, empty stdin: exit 64 with a reason")
    problems, summary = parallel_recipe(args.rwsecret, args.data, args.work)
    result("GNU parallel --pipe -k -N, ids not row-…, one repeated", problems, f"{summary}, each its row's")
    problems, versions = pandas_supported(args.venv)
    result("pandas and pyarrow as PySpark supports them", problems, f"pandas, pyarrow {versions}: no warning")
    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
