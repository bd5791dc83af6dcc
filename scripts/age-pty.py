#!/usr/bin/env python3
"""Runs an `age` command that asks for a passphrase on its terminal, and answers it.

age -p (and age -d of a passphrase file) reads the passphrase from /dev/tty only, never from
stdin or the environment. This script gives the command a pseudo-terminal of its own, reads the
passphrase from its own stdin (one line, UTF-8; never from argv), and types it at every
"passphrase" prompt. Its exit status is the command's.

    printf '%s\n' "$PASS" | scripts/age-pty.py age -p -o OUT IN
"""
import os
import pty
import select
import sys


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: age-pty.py COMMAND [ARG...] (passphrase on stdin)", file=sys.stderr)
        return 64
    passphrase = sys.stdin.buffer.readline().rstrip(b"\n")
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(sys.argv[1], sys.argv[1:])
    seen = b""
    answered = 0
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], 120)
        except InterruptedError:
            continue
        if not ready:
            os.kill(pid, 9)
            print("age-pty.py: no output for 120 s", file=sys.stderr)
            break
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        seen += data
        # One answer per prompt ("Enter passphrase…:", "Confirm passphrase:").
        while seen.lower().count(b"passphrase") > answered and seen.rstrip().endswith(b":"):
            os.write(fd, passphrase + b"\n")
            answered += 1
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.stderr.buffer.write(seen.replace(passphrase, b"<passphrase>"))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
