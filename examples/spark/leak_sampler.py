#!/usr/bin/env python3
"""Looks for the passwords where every process of the same user can read them, while a job runs.

    python leak_sampler.py --passwords FILE --name NAME [--expect=PATH ...]

Until SIGTERM, samples over and over, in every process of the machine: the command line and
environment in /proc/PID/cmdline and /proc/PID/environ, and every tenth sample `ps axeww`
(command lines with their environments). Looks there for each secret of FILE (LABEL<TAB>SECRET
or SECRET lines) and for the file as base64. Then prints one line, `leak sampler (NAME): ...`,
and exits 1 when a secret was found, or when no sample saw a process whose program or first
argument is each --expect PATH (the job was never watched at work: the check could not have
failed). Never prints a secret: only where one was found.
"""
import argparse
import base64
import os
import signal
import subprocess
import sys
import threading
import time


def needles(path):
    """The byte strings that must not be found: each secret, and the whole file as base64."""
    with open(path, "rb") as f:
        data = f.read()
    found = [line.split(b"\t", 1)[-1] for line in data.splitlines() if line.strip()]
    found.append(base64.b64encode(data))
    return [n for n in found if len(n) >= 8]


class Sampler:
    """Samples in a thread between start() and stop(); `found` lists where secrets were seen."""

    def __init__(self, secrets, expect=()):
        self.secrets = secrets
        self.expect = [e.encode() for e in expect]
        self.samples = 0
        self.watched = {e: 0 for e in self.expect}  # samples in which a process matched each
        self.found = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self

    def _leaks(self, where, text):
        for secret in self.secrets:
            if secret in text:
                self.found.add(where)

    def sample(self):
        seen = set()
        me = os.getpid()
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == me:
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    cmdline = f.read()
                with open(f"/proc/{name}/environ", "rb") as f:
                    environ = f.read()
            except OSError:  # gone, or not ours
                continue
            program = os.path.basename(cmdline.split(b"\0", 1)[0]).decode(errors="replace")
            self._leaks(f"/proc/PID/cmdline of {program}", cmdline)
            self._leaks(f"/proc/PID/environ of {program}", environ)
            seen.update(e for e in self.expect if e in cmdline.split(b"\0")[:2])
        if self.samples % 10 == 0:
            ps = subprocess.run(["ps", "axeww", "-o", "pid=,args="], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL).stdout
            self._leaks("ps axeww", ps)
        self.samples += 1
        for e in seen:
            self.watched[e] += 1

    def _run(self):
        while not self._stop.is_set():
            self.sample()
            time.sleep(0.02)

    def report(self, name):
        """(ok, line)."""
        unwatched = [e.decode() for e, n in self.watched.items() if n == 0]
        watched = ", ".join(f"{n} with {e.decode()!r} running" for e, n in self.watched.items())
        if self.found:
            return False, f"leak sampler ({name}): FAILED: a password was readable in {', '.join(sorted(self.found))} ({self.samples} samples)"
        if unwatched:
            return False, f"leak sampler ({name}): FAILED: no sample saw {', '.join(unwatched)} running ({self.samples} samples): nothing was checked"
        return True, f"leak sampler ({name}): no password in any command line or environment, {self.samples} samples ({watched})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--passwords", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--expect", action="append", default=[])
    args = parser.parse_args()
    sampler = Sampler(needles(args.passwords), args.expect).start()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    while not done.wait(0.2):
        pass
    ok, line = sampler.stop().report(args.name)
    print(line)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
