#!/usr/bin/env python3
"""make bench-spark: the Spark example against one local `rwsecret decrypt`, same data, same run.

    python bench.py --venv VENV --rwsecret BIN --work DIR [--rows N]

Makes a table of N messages (make_table.py), then decrypts the same rows twice:
  local  one `rwsecret decrypt --in-band --id-column` over rows.tsv (its default --jobs);
  spark  spark-submit decrypt_table.py in local[2] (mapInPandas, Parquet in and out).
and prints, for each, messages per second (wall clock, start-up included) and CPU per
message: all the CPU time of the process tree (the JVM, the Python workers and every
rwsecret), read from a cgroup made for the run when this user may make one (root), else
from getrusage(RUSAGE_CHILDREN), which misses descendants that are not waited for
(Spark's Python daemon): the method is printed with the figures.
"""
import argparse
import os
import re
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))


class CPUMeter:
    """CPU seconds used by a command and everything it starts."""

    def __init__(self):
        self.group = None
        for parent, usage in [("/sys/fs/cgroup/cpuacct", "cpuacct.usage"), ("/sys/fs/cgroup", "cpu.stat"),
                              ("/sys/fs/cgroup/unified", "cpu.stat")]:
            path = os.path.join(parent, f"rwsecret-bench-{uuid.uuid4().hex[:8]}")
            try:
                os.mkdir(path)
            except OSError:
                continue
            if os.path.exists(os.path.join(path, usage)) and os.access(os.path.join(path, "cgroup.procs"), os.W_OK):
                self.group, self.usage = path, usage
                break
            os.rmdir(path)
        self.method = f"cgroup {self.group}" if self.group else "getrusage(RUSAGE_CHILDREN)"

    def _read(self):
        with open(os.path.join(self.group, self.usage)) as f:
            text = f.read()
        if self.usage == "cpuacct.usage":
            return int(text) / 1e9
        return int(re.search(r"usage_usec (\d+)", text).group(1)) / 1e6

    def run(self, command, **kwargs):
        """Runs `command`; returns (wall seconds, CPU seconds, completed process)."""
        group = self.group
        before = self._read() if group else None
        rusage_before = os.times()

        def enter():
            if group:
                with open(os.path.join(group, "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))
        started = time.monotonic()
        process = subprocess.run(command, preexec_fn=enter, **kwargs)
        wall = time.monotonic() - started
        if group:
            cpu = self._read() - before
        else:
            after = os.times()
            cpu = (after.children_user - rusage_before.children_user) + (after.children_system - rusage_before.children_system)
        return wall, cpu, process

    def close(self):
        if self.group:
            try:
                os.rmdir(self.group)
            except OSError:
                pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", required=True)
    parser.add_argument("--rwsecret", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--rows", type=int, default=10000)
    args = parser.parse_args()
    python = os.path.join(args.venv, "bin", "python")
    data = os.path.join(args.work, "data")
    subprocess.run([python, os.path.join(HERE, "make_table.py"), "--rwsecret", args.rwsecret, "--rows", str(args.rows),
                    "--out", data], check=True)
    small = os.path.join(args.work, "data-small")
    subprocess.run([python, os.path.join(HERE, "make_table.py"), "--rwsecret", args.rwsecret, "--rows", "20",
                    "--out", small], check=True, stdout=subprocess.DEVNULL)

    def count_messages(folder):
        with open(os.path.join(folder, "truth.jsonl")) as f:
            return sum(1 for line in f if '"status": "skipped"' not in line)
    messages, small_messages = count_messages(data), count_messages(small)
    meter = CPUMeter()
    try:
        # Local: the same rows (wrapped ones over several lines), passwords over a pipe.
        read_end, write_end = os.pipe()
        with open(os.path.join(data, "passwords"), "rb") as f:
            os.write(write_end, f.read())
        os.close(write_end)
        with open(os.path.join(data, "rows.tsv"), "rb") as rows, open(os.devnull, "wb") as null:
            local_wall, local_cpu, local = meter.run(
                [args.rwsecret, "decrypt", "--in-band", "--id-column", "--no-store", "--verbose",
                 "--password-fd", str(read_end)],
                stdin=rows, stdout=null, stderr=subprocess.PIPE, pass_fds=(read_end,))
        os.close(read_end)
        jobs = re.search(rb"jobs: (\d+)", local.stderr)
        if local.returncode != 0:
            sys.exit(f"bench-spark: the local run failed: {local.stderr.decode(errors='replace')}")

        env = dict(os.environ, PYSPARK_PYTHON=python, PYSPARK_DRIVER_PYTHON=python, SPARK_LOCAL_IP="127.0.0.1")

        def spark_job(folder, name):
            log = os.path.join(args.work, f"spark-{name}.log")
            with open(log, "wb") as out:
                wall, cpu, job = meter.run(
                    [os.path.join(args.venv, "bin", "spark-submit"), "--master", "local[2]", "--conf", "spark.ui.enabled=false",
                     os.path.join(HERE, "decrypt_table.py"), "--input", os.path.join(folder, "table.parquet"),
                     "--output", os.path.join(args.work, f"out-{name}"), "--passwords", os.path.join(folder, "passwords"),
                     "--rwsecret", args.rwsecret], env=env, stdout=out, stderr=subprocess.STDOUT)
            if job.returncode != 0:
                sys.exit(f"bench-spark: the Spark job failed; see {log}")
            with open(log, "rb") as f:
                found = re.search(rb"decrypt_table: \d+ rows in ([\d.]+) s", f.read())
            return wall, cpu, float(found.group(1)) if found else None
        # A 20-row job first: what Spark costs whatever the table (JVM, session, Python workers).
        fixed_wall, fixed_cpu, fixed_job = spark_job(small, "small")
        spark_wall, spark_cpu, spark_job_time = spark_job(data, "big")
    finally:
        meter.close()

    def line(name, wall, cpu):
        return f"{name}: {messages / wall:,.0f} msg/s, {cpu / messages * 1000:.2f} ms CPU per message ({wall:.1f} s wall, {cpu:.1f} s CPU)"
    marginal = (spark_cpu - fixed_cpu) / (messages - small_messages)
    print(f"bench-spark: {messages:,} messages in {args.rows:,} rows; CPU measured by {meter.method}")
    print("  " + line(f"local rwsecret decrypt (--jobs {jobs.group(1).decode() if jobs else '?'})", local_wall, local_cpu))
    print("  " + line("Spark local[2], mapInPandas, 2 partitions, whole spark-submit", spark_wall, spark_cpu)
          + (f"; the job itself {spark_job_time:.1f} s" if spark_job_time else ""))
    print(f"  Spark's fixed cost (the same job on {small_messages} messages): {fixed_wall:.1f} s wall, {fixed_cpu:.1f} s CPU")
    print(f"  Spark per message beyond that: {marginal * 1000:.2f} ms CPU = {marginal / (local_cpu / messages):.2f}x the local run's")
    print(f"  Spark/local, whole runs: {spark_wall / local_wall:.2f}x the wall time, {spark_cpu / local_cpu:.2f}x the CPU")

if __name__ == "__main__":
    main()
