#!/usr/bin/env python3
"""The side-by-side: rwsecret against RNCryptor-C, PyPI rncryptor and OpenSSL's own tools,
round-robin in one run, every output checked before its time is kept.

Run by scripts/side-by-side.sh (`make bench-peers`), which finds or prepares the contenders
and passes them in the environment:
  RWSECRET      the rwsecret binary (the static release build)
  RN_DECRYPT    RNCryptor-C's rn_decrypt (empty: its rows are skipped)
  PYPI_PYTHON   a Python that can `import rncryptor` (empty: its rows are skipped)
  FLOOR         the C + libcrypto floor program (scripts/side-by-side/floor.c)
  WORK          a scratch folder (emptied first)
Settings (environment): SIZES (MiB, default "16 256 1024"), QUICK=1 (a smoke run),
ROUNDS, MANY_ROUNDS, LARGE_ROUNDS, HUGE_ROUNDS, MESSAGES, PYPI_MESSAGES, PEER_RSS_LIMIT_MIB,
CALLGRIND (0 to leave out), CALLGRIND_PYPI (0 to leave PyPI out of it).
The table (markdown) goes to stdout and to WORK/side-by-side.md; progress to stderr.
"""
import base64
import datetime
import hashlib
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

# ---------------------------------------------------------------- settings

QUICK = os.environ.get("QUICK", "") not in ("", "0")


def setting(name, default, quick):
    value = os.environ.get(name)
    if value:
        return int(value)
    return quick if QUICK else default


ROUNDS = setting("ROUNDS", 21, 5)            # small message, whole process
MANY_ROUNDS = setting("MANY_ROUNDS", 3, 1)   # many messages; key counts
LARGE_ROUNDS = setting("LARGE_ROUNDS", 3, 1)  # large messages below 1 GiB
HUGE_ROUNDS = setting("HUGE_ROUNDS", 3, 1)   # large messages of 1 GiB and more
MESSAGES = setting("MESSAGES", 1000, 100)
PYPI_MESSAGES = setting("PYPI_MESSAGES", 100, 10)
SIZES = [int(s) for s in os.environ.get("SIZES", "4 16" if QUICK else "16 256 1024").split()]
CALLGRIND = os.environ.get("CALLGRIND", "1") != "0" and shutil.which("valgrind") is not None
CALLGRIND_PYPI = os.environ.get("CALLGRIND_PYPI", "0" if QUICK else "1") != "0"


def mem_available_mib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return 0


PEER_RSS_LIMIT_MIB = setting("PEER_RSS_LIMIT_MIB", min(8192, mem_available_mib() // 2),
                             min(8192, mem_available_mib() // 2))

RWSECRET = os.environ["RWSECRET"]
RN_DECRYPT = os.environ.get("RN_DECRYPT", "")
PYPI_PYTHON = os.environ.get("PYPI_PYTHON", "")
FLOOR = os.environ.get("FLOOR", "")
WORK = os.environ["WORK"]
OPENSSL = shutil.which("openssl") or ""

RIGHT = "right-password"
WRONG = ["wrong-password-1", "wrong-password-2"]

failures = []   # outputs that did not match: the run ends non-zero
notes = []      # skipped rows and why


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- running and timing


class Run:
    def __init__(self, wall, cpu, rss_kib, status):
        self.wall, self.cpu, self.rss_kib, self.status = wall, cpu, rss_kib, status

    def __add__(self, other):  # processes run one after the other
        return Run(self.wall + other.wall, self.cpu + other.cpu,
                   max(self.rss_kib, other.rss_kib), self.status if self.status else other.status)


def child_env(extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RWSECRET_") and k not in ("RNCPASS", "PYPW")}
    env["TMPDIR"] = os.path.join(WORK, "tmp")
    env.update(extra)
    return env


def spawn(argv, env=None, stdout=None, stderr=None, stdin=None):
    """One process, timed by wall clock around posix_spawn … wait4; CPU time (user + system)
    and peak RSS from wait4's rusage (the same figures /usr/bin/time -v prints)."""
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, stdin or "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, stdout or "/dev/null", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        (os.POSIX_SPAWN_OPEN, 2, stderr or "/dev/null", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
    ]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, child_env(env or {}), file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status))


def out_path(name):
    return os.path.join(WORK, name)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return h.hexdigest()
            h.update(chunk)


def check(label, ok, detail=""):
    if not ok:
        failures.append(f"{label}: wrong output {detail}".strip())
        log(f"  WRONG OUTPUT: {label} {detail}")
    return ok


class Contender:
    """A named way to run something; `run()` returns a Run after checking the output
    (the Run is None when the output was wrong)."""

    def __init__(self, name, how, run):
        self.name, self.how, self._run = name, how, run
        self.samples = []

    def run(self):
        result = self._run()
        if result is not None:
            self.samples.append(result)


def round_robin(contenders, rounds):
    """Each round runs every contender once; the order rotates from round to round."""
    for r in range(rounds):
        k = r % len(contenders)
        for c in contenders[k:] + contenders[:k]:
            c.run()


def med(values):
    return statistics.median(values) if values else float("nan")


def wall(c):
    return med([s.wall for s in c.samples])


def cpu(c):
    return med([s.cpu for s in c.samples])


def rss(c):
    return f"{max(s.rss_kib for s in c.samples) / 1024:.0f} MiB" if c.samples else "–"


def ms(seconds):
    if seconds != seconds:
        return "–"
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def ratio(a, b):
    if a != a or b != b or b == 0:
        return "–"
    return f"{a / b:.2f}×"


# ---------------------------------------------------------------- making messages


def rwsecret_encrypt_lines(lines, password, path):
    """Each line one message, with rwsecret's own encrypt (fresh salts and IV per message)."""
    src = path + ".plain"
    with open(src, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    r = spawn([RWSECRET, "encrypt", src], env={"RWSECRET_PASSWORD": password}, stdout=path)
    os.unlink(src)
    if r.status != 0:
        sys.exit(f"rwsecret encrypt failed ({r.status})")
    return read(path).decode().splitlines()


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))


def password_file(name, passwords):
    path = out_path(name)
    write_lines(path, passwords)
    os.chmod(path, 0o600)
    return path


def pbkdf2(password, salt):
    return hashlib.pbkdf2_hmac("sha1", password.encode(), salt, 10000, 32)


# The PyPI driver: one process; a file of base64 lines (the first N) or one raw message
# (written to OUT); each message tries the passwords of PYPW (newline-separated) in order.
# PyPI's decrypt returns text; post_decrypt_data is replaced to return the unpadded bytes.
PY_DRIVER = r"""
import base64, os, sys, rncryptor
mode, path = sys.argv[1], sys.argv[2]
passwords = os.environ["PYPW"].split("\n")
c = rncryptor.RNCryptor()
c.post_decrypt_data = lambda x: x[:-x[-1]]
def one(data):
    for p in passwords:
        try:
            return c.decrypt(data, p)
        except rncryptor.RNCryptorError:
            pass
    sys.exit(1)
if mode == "lines":
    limit, out = int(sys.argv[3]), sys.stdout.buffer
    with open(path) as f:
        for i, line in enumerate(f):
            if i >= limit:
                break
            out.write(one(base64.b64decode(line)) + b"\n")
else:
    result = one(open(path, "rb").read())
    with open(sys.argv[3], "wb") as f:
        f.write(result)
"""


# ---------------------------------------------------------------- report

report = []


def emit(line=""):
    report.append(line)
    print(line, flush=True)


def command_output(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def versions():
    items = []
    rev = command_output(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "describe",
                          "--always", "--dirty"])
    items.append(f"rwsecret {command_output([RWSECRET, '--version'])} ({rev or 'no git'}, `make release`)")
    if RN_DECRYPT:
        folder = os.path.dirname(RN_DECRYPT)
        v = read(os.path.join(folder, "VERSION")).decode().strip() if os.path.exists(os.path.join(folder, "VERSION")) else "?"
        c = read(os.path.join(folder, "COMMIT")).decode().strip()[:12] if os.path.exists(os.path.join(folder, "COMMIT")) else ""
        items.append(f"RNCryptor-C {v}{' (' + c + ')' if c else ''} `rn_decrypt`")
    if PYPI_PYTHON:
        v = command_output([PYPI_PYTHON, "-c",
                            "import importlib.metadata as m, platform; print(m.version('rncryptor'), m.version('pycryptodome'), platform.python_version())"]).split()
        if len(v) == 3:
            items.append(f"PyPI rncryptor {v[0]} (pycryptodome {v[1]}, Python {v[2]})")
    items.append(command_output([OPENSSL, "version"]) if OPENSSL else "no openssl")
    if CALLGRIND:
        items.append(command_output(["valgrind", "--version"]))
    return "; ".join(items)


def machine():
    model = ""
    for line in command_output(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    flags = set(read("/proc/cpuinfo").decode().split())
    ext = [f for f in ("sha_ni", "aes", "avx2") if f in flags]
    mem = 0
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) // (1024 * 1024)
    return f"{os.cpu_count()} CPUs ({len(os.sched_getaffinity(0))} usable), {model or platform.processor()} ({', '.join(ext)}), {mem} GiB, Linux {platform.release()}"


def loadavg():
    return " ".join(read("/proc/loadavg").decode().split()[:3])


# ---------------------------------------------------------------- (a) one small message


def small_message():
    log("(a) one small message, whole process")
    secret = "a small secret"
    [line] = rwsecret_encrypt_lines([secret], RIGHT, out_path("one.b64"))
    with open(out_path("one.bin"), "wb") as f:
        f.write(base64.b64decode(line))
    stdout = out_path("small.out")

    def runner(argv, env, expected):
        def run():
            r = spawn(argv, env=env, stdout=stdout)
            got = read(stdout)
            return r if check(argv[0], r.status == 0 and got == expected, f"(exit {r.status}, {got[:40]!r})") else None
        return run

    cs = [Contender("rwsecret", "`RWSECRET_PASSWORD=… rwsecret decrypt --no-store one.b64`",
                    runner([RWSECRET, "decrypt", "--no-store", out_path("one.b64")],
                           {"RWSECRET_PASSWORD": RIGHT}, (secret + "\n").encode()))]
    if RN_DECRYPT:
        cs.append(Contender("RNCryptor-C", "`RNCPASS=… rn_decrypt one.bin -`",
                            runner([RN_DECRYPT, out_path("one.bin"), "-"], {"RNCPASS": RIGHT}, secret.encode())))
    if PYPI_PYTHON:
        cs.append(Contender("PyPI rncryptor", "`python3 -c …` (reads the file, `RNCryptor().decrypt`)",
                            runner([PYPI_PYTHON, "-c", PY_DRIVER, "lines", out_path("one.b64"), "1"],
                                   {"PYPW": RIGHT}, (secret + "\n").encode())))
        cs.append(Contender("floor: Python, `import rncryptor`", "no decryption",
                            runner([PYPI_PYTHON, "-c", "import base64, os, sys, rncryptor"], {}, b"")))
    if FLOOR:
        cs.append(Contender("floor: C + libcrypto", "`OPENSSL_init_crypto`, nothing else",
                            runner([FLOOR], {}, b"")))
    round_robin(cs, ROUNDS)
    base = cs[0]
    emit(f"### One small message, right password, whole process (median of {ROUNDS}, round-robin)")
    emit()
    emit("| tool | wall | CPU | wall ÷ rwsecret | command |")
    emit("|---|---|---|---|---|")
    for c in cs:
        emit(f"| {c.name} | {ms(wall(c))} | {ms(cpu(c))} | {ratio(wall(c), wall(base))} | {c.how} |")
    emit()


# ---------------------------------------------------------------- (b) many messages


def many_messages():
    n = MESSAGES
    log(f"(b) {n} messages, one password")
    plain = [f"message {i}" for i in range(n)]
    lines = rwsecret_encrypt_lines(plain, RIGHT, out_path("many.b64"))
    expected = "".join(p + "\n" for p in plain).encode()
    stdout = out_path("many.out")
    cs = []

    def rw(jobs):
        def run():
            r = spawn([RWSECRET, "decrypt", "--no-store", "--jobs", str(jobs), out_path("many.b64")],
                      env={"RWSECRET_PASSWORD": RIGHT}, stdout=stdout)
            return r if check(f"rwsecret --jobs {jobs}", r.status == 0 and read(stdout) == expected) else None
        return run

    cs.append(Contender("rwsecret `--jobs 1`", "one process reads all", rw(1)))
    cs.append(Contender("rwsecret `--jobs 2`", "one process reads all", rw(2)))
    if RN_DECRYPT:
        folder = out_path("many-bin")
        os.makedirs(folder, exist_ok=True)
        for i, line in enumerate(lines):
            with open(os.path.join(folder, f"{i}.bin"), "wb") as f:
                f.write(base64.b64decode(line))

        def run_c():
            total = None
            for i in range(n):
                r = spawn([RN_DECRYPT, os.path.join(folder, f"{i}.bin"), "-"], env={"RNCPASS": RIGHT}, stdout=stdout)
                if not check("rn_decrypt (many)", r.status == 0 and read(stdout) == plain[i].encode(), f"message {i}"):
                    return None
                total = r if total is None else total + r
            return total
        cs.append(Contender("RNCryptor-C", f"one `rn_decrypt` process per message ({n} processes)", run_c))
    m = min(PYPI_MESSAGES, n)
    if PYPI_PYTHON:
        expected_py = "".join(p + "\n" for p in plain[:m]).encode()

        def run_py():
            r = spawn([PYPI_PYTHON, "-c", PY_DRIVER, "lines", out_path("many.b64"), str(m)],
                      env={"PYPW": RIGHT}, stdout=stdout)
            return r if check("PyPI (many)", r.status == 0 and read(stdout) == expected_py) else None
        cs.append(Contender("PyPI rncryptor", f"one process, a loop over the first {m} messages", run_py))
    round_robin(cs, MANY_ROUNDS)
    emit(f"### {n} small messages, one password (median of {MANY_ROUNDS}, round-robin)")
    emit()
    emit("| tool | messages | wall | CPU | CPU per message | CPU per message ÷ rwsecret `--jobs 1` | how |")
    emit("|---|---|---|---|---|---|---|")
    per1 = cpu(cs[0]) / n
    for c in cs:
        count = m if c.name.startswith("PyPI") else n
        per = cpu(c) / count
        emit(f"| {c.name} | {count} | {ms(wall(c))} | {ms(cpu(c))} | {'–' if per != per else f'{per * 1e3:.2f} ms'} | {ratio(per, per1)} | {c.how} |")
    emit()


# ---------------------------------------------------------------- (c) large messages


def large_messages():
    emit("### Large messages, file input, plaintext to a file")
    emit()
    emit("Candidates are tried wrong, wrong, right. rwsecret: `decrypt --no-store --password-file P "
         "--binary -o OUT MSG` (default `--jobs`, one process). RNCryptor-C: one `rn_decrypt MSG OUT` "
         "process per candidate. PyPI: one process, reads MSG once, tries each candidate in turn. "
         "OpenSSL floor: `openssl dgst -sha256 -mac HMAC -macopt hexkey:…` over header + ciphertext "
         "(once per candidate), then `openssl enc -d -aes-256-cbc -K … -iv … -nosalt` over the ciphertext "
         "(keys derived beforehand, outside the timing); the times of those processes added up. "
         "The message is in the page cache for everyone. Peak RSS is the largest of the processes'.")
    emit()
    emit("| size | candidates | tool | wall | CPU | peak RSS | wall ÷ OpenSSL floor | wall ÷ rwsecret |")
    emit("|---|---|---|---|---|---|---|---|")
    peer_rss = {}  # tool -> (size MiB, peak RSS MiB) at the largest size measured so far
    for size in SIZES:
        free = shutil.disk_usage(WORK).free // (1 << 20)
        if free < 5 * size + 512:
            notes.append(f"{size} MiB skipped: {free} MiB free on {WORK}, it needs about {5 * size + 512} MiB")
            continue
        large_size(size, peer_rss)
    emit()


def large_size(size, peer_rss):
    rounds = HUGE_ROUNDS if size >= 1024 else LARGE_ROUNDS
    log(f"(c) {size} MiB, {rounds} round(s)")
    plain, msg = out_path("big.plain"), out_path("big.rncryptor")
    hmac_in, ct, out = out_path("big.hmac-input"), out_path("big.ct"), out_path("big.out")
    h = hashlib.sha256()
    with open(plain, "wb") as f:
        for _ in range(size):
            chunk = os.urandom(1 << 20)
            h.update(chunk)
            f.write(chunk)
    digest = h.hexdigest()
    r = spawn([RWSECRET, "encrypt", "--binary", "-o", msg, plain], env={"RWSECRET_PASSWORD": RIGHT})
    if r.status != 0:
        sys.exit(f"rwsecret encrypt --binary failed ({r.status})")
    os.unlink(plain)
    total = os.path.getsize(msg)
    with open(msg, "rb") as f:
        header = f.read(34)
        f.seek(total - 32)
        tag = f.read(32)
    with open(msg, "rb") as src, open(hmac_in, "wb") as a, open(ct, "wb") as b:
        left = total - 32
        pos = 0
        while left:
            chunk = src.read(min(1 << 20, left))
            left -= len(chunk)
            a.write(chunk)
            start = max(0, 34 - pos)
            b.write(chunk[start:])
            pos += len(chunk)
    enc_salt, hmac_salt, iv = header[2:10], header[10:18], header[18:34]
    keys = {p: (pbkdf2(p, enc_salt), pbkdf2(p, hmac_salt)) for p in WRONG + [RIGHT]}
    pw1, pw3 = password_file("big.pw1", [RIGHT]), password_file("big.pw3", WRONG + [RIGHT])
    os.sync()  # the files just written go to disk now, not during the timed runs

    def check_out(label, r, ok_status=0):
        good = r.status == ok_status and os.path.exists(out) and sha256_file(out) == digest
        if os.path.exists(out):
            os.unlink(out)
        return r if check(f"{label} {size} MiB", good, f"(exit {r.status})") else None

    def rw(pwfile):
        return lambda: check_out("rwsecret", spawn([RWSECRET, "decrypt", "--no-store", "--password-file", pwfile,
                                                    "--binary", "-o", out, msg]))

    def floor(candidates):
        def run():
            total = None
            for p in candidates:
                hexkey = keys[p][1].hex()
                dgst_out = out_path("dgst.out")
                r = spawn([OPENSSL, "dgst", "-sha256", "-mac", "HMAC", "-macopt", f"hexkey:{hexkey}", hmac_in],
                          stdout=dgst_out)
                matches = read(dgst_out).decode().strip().endswith(tag.hex())
                if not check(f"openssl dgst {size} MiB", r.status == 0 and matches == (p == RIGHT)):
                    return None
                total = r if total is None else total + r
            r = spawn([OPENSSL, "enc", "-d", "-aes-256-cbc", "-K", keys[RIGHT][0].hex(), "-iv", iv.hex(),
                       "-nosalt", "-in", ct, "-out", out])
            r = check_out("openssl enc", r)
            return None if r is None else total + r
        return run

    def c_peer(candidates):
        def run():
            wrong = []
            for p in candidates:
                r = spawn([RN_DECRYPT, msg, out], env={"RNCPASS": p})
                if p != RIGHT:  # a wrong password must fail and write nothing
                    if not check(f"rn_decrypt wrong password {size} MiB", r.status != 0 and not os.path.exists(out)):
                        return None
                    wrong.append(r)
                    continue
                if check_out("rn_decrypt", r) is None:
                    return None
                for w in wrong:  # the time of the failed tries, with the right one's status
                    r = Run(r.wall + w.wall, r.cpu + w.cpu, max(r.rss_kib, w.rss_kib), r.status)
                return r
        return run

    def py_peer(candidates):
        return lambda: check_out("PyPI", spawn([PYPI_PYTHON, "-c", PY_DRIVER, "raw", msg, out],
                                               env={"PYPW": "\n".join(candidates)}))

    def peer_allowed(tool):
        if tool not in peer_rss:
            projected = 4 * size  # before any measurement: four copies of the message
        else:
            at, peak = peer_rss[tool]
            projected = peak * size / at
        if projected > PEER_RSS_LIMIT_MIB:
            notes.append(f"{tool} at {size} MiB skipped: projected peak RSS {projected:.0f} MiB "
                         f"(from its peak at the previous size) is over the limit of {PEER_RSS_LIMIT_MIB} MiB "
                         "(PEER_RSS_LIMIT_MIB; default half the available memory, at most 8 GiB)")
            return False
        return True

    for count, candidates, pwfile in ((1, [RIGHT], pw1), (3, WRONG + [RIGHT], pw3)):
        cs = [Contender("rwsecret", "", rw(pwfile))]
        if OPENSSL:
            cs.append(Contender("OpenSSL floor", "", floor(candidates)))
        if RN_DECRYPT and peer_allowed("RNCryptor-C"):
            cs.append(Contender("RNCryptor-C", "", c_peer(candidates)))
        if PYPI_PYTHON and peer_allowed("PyPI rncryptor"):
            cs.append(Contender("PyPI rncryptor", "", py_peer(candidates)))
        round_robin(cs, rounds)
        base = cs[0]
        fl = next((c for c in cs if c.name == "OpenSSL floor"), None)
        for c in cs:
            if c.name in ("RNCryptor-C", "PyPI rncryptor") and c.samples:
                peer_rss[c.name] = (size, max(s.rss_kib for s in c.samples) / 1024)
            emit(f"| {size} MiB | {count} | {c.name} | {ms(wall(c))} | {ms(cpu(c))} | {rss(c)} | "
                 f"{ratio(wall(c), wall(fl)) if fl else '–'} | {ratio(wall(c), wall(base))} |")
    for p in (msg, hmac_in, ct):
        os.unlink(p)


# ---------------------------------------------------------------- (d) key counts


def chain_keys(draws, chain):
    """Keys a sequential walk needs: the password that opened the latest message goes first,
    then the chain in order; a wrong password costs one key (HMAC), the right one two."""
    head, keys = None, 0
    for p in draws:
        order = ([head] if head else []) + [q for q in chain if q != head]
        keys += order.index(p) + 2
        head = p
    return keys


def key_counts():
    log("(d) key counts")
    rng = random.Random(20261123)
    chain64 = [f"chain-password-{i:02d}" for i in range(1, 65)]
    chain3 = ["first-password", "second-password", "third-password"]
    cases = []
    # 64 passwords, the right one last, 20 messages
    plain20 = [f"chained {i}" for i in range(20)]
    rwsecret_encrypt_lines(plain20, chain64[-1], out_path("chain64.b64"))
    cases.append(("64 passwords, the right one last", 20, password_file("chain64.pw", chain64),
                  out_path("chain64.b64"), plain20, chain_keys([chain64[-1]] * 20, chain64)))
    # random draws from 3 passwords, MESSAGES messages
    n = MESSAGES
    draws = [rng.randrange(3) for _ in range(n)]
    plain = [f"drawn {i}" for i in range(n)]
    lines = [None] * n
    for k, p in enumerate(chain3):
        idx = [i for i in range(n) if draws[i] == k]
        for i, line in zip(idx, rwsecret_encrypt_lines([plain[i] for i in idx], p, out_path(f"draw{k}.b64"))):
            lines[i] = line
    write_lines(out_path("random3.b64"), lines)
    cases.append(("random draws from 3 passwords", n, password_file("random3.pw", chain3), out_path("random3.b64"),
                  plain, chain_keys([chain3[d] for d in draws], chain3)))

    rows = []
    for label, count, pwfile, path, plain_lines, sequential in cases:
        expected = "".join(p + "\n" for p in plain_lines).encode()
        cs = []
        for jobs in (1, 2):
            keys_seen = []

            def run(jobs=jobs, keys_seen=keys_seen, path=path, pwfile=pwfile, expected=expected):
                err = out_path("keys.err")
                r = spawn([RWSECRET, "decrypt", "--no-store", "--verbose", "--jobs", str(jobs), "--password-file",
                           pwfile, path], stdout=out_path("keys.out"), stderr=err)
                found = re.search(r"key derivations: (\d+)", read(err).decode())
                if not check(f"rwsecret --jobs {jobs} ({label})", r.status == 0 and found is not None
                             and read(out_path("keys.out")) == expected):
                    return None
                keys_seen.append(int(found.group(1)))
                return r
            c = Contender(f"`--jobs {jobs}`", "", run)
            c.keys = keys_seen
            cs.append(c)
        round_robin(cs, MANY_ROUNDS)
        rows.append((label, count, sequential, cs))
    emit(f"### Key derivations over a chain (rwsecret `--verbose`, median of {MANY_ROUNDS}, round-robin)")
    emit()
    emit("| chain | messages | jobs | key derivations | a sequential walk needs | wall | CPU |")
    emit("|---|---|---|---|---|---|---|")
    for label, count, sequential, cs in rows:
        if cs[0].keys and set(cs[0].keys) != {sequential}:
            notes.append(f"{label}: `--jobs 1` derived {sorted(set(cs[0].keys))} keys, not the {sequential} "
                         "that the chain order needs")
        for c in cs:
            k = sorted(c.keys)
            keys = "–" if not k else (str(k[0]) if k[0] == k[-1] else f"{k[0]}–{k[-1]}")
            emit(f"| {label} | {count} | {c.name} | {keys} | {sequential} | {ms(wall(c))} | {ms(cpu(c))} |")
    emit()


# ---------------------------------------------------------------- (e) instruction counts


def instruction_counts():
    log("(e) callgrind")
    # valgrind 3.19 cannot read the DWARF 5 debug information of the Swift build: a copy
    # without it (objcopy --strip-debug) runs the same code.
    stripped = out_path("rwsecret-nodebug")
    subprocess.run(["objcopy", "--strip-debug", RWSECRET, stripped], check=True)
    secret = b"a small secret"
    cases = [("rwsecret", [stripped, "decrypt", "--no-store", out_path("one.b64")], {"RWSECRET_PASSWORD": RIGHT},
              secret + b"\n")]
    if RN_DECRYPT:
        cases.append(("RNCryptor-C", [RN_DECRYPT, out_path("one.bin"), "-"], {"RNCPASS": RIGHT}, secret))
    if PYPI_PYTHON and CALLGRIND_PYPI:
        cases.append(("PyPI rncryptor", [PYPI_PYTHON, "-c", PY_DRIVER, "lines", out_path("one.b64"), "1"],
                      {"PYPW": RIGHT}, secret + b"\n"))
    if FLOOR:
        cases.append(("floor: C + libcrypto", [FLOOR], {}, b""))
    valgrind = shutil.which("valgrind")
    rows = []
    for name, argv, env, expected in cases:
        err = out_path("callgrind.err")
        r = spawn([valgrind, "--tool=callgrind", f"--callgrind-out-file={out_path('callgrind.out')}"] + argv,
                  env=env, stdout=out_path("callgrind.stdout"), stderr=err)
        found = re.search(r"Collected : (\d+)", read(err).decode())
        if check(f"callgrind {name}", r.status == 0 and found is not None and read(out_path("callgrind.stdout")) == expected):
            rows.append((name, int(found.group(1))))
    emit("### Instructions for one small message, whole process (callgrind, `Ir`, all threads)")
    emit()
    emit("| tool | instructions | ÷ rwsecret |")
    emit("|---|---|---|")
    base = rows[0][1] if rows and rows[0][0] == "rwsecret" else None
    for name, ir in rows:
        emit(f"| {name} | {ir / 1e6:.1f} M | {f'{ir / base:.2f}×' if base else '–'} |")
    emit()


# ---------------------------------------------------------------- main


def main():
    if os.path.isdir(WORK):
        shutil.rmtree(WORK)
    os.makedirs(os.path.join(WORK, "tmp"))
    started = time.time()
    load_start = loadavg()
    emit(f"## Side by side ({'quick smoke run, ' if QUICK else ''}{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC)")
    emit()
    emit(f"- machine: {machine()}")
    emit(f"- versions: {versions()}")
    emit(f"- load average at the start: {load_start}")
    for name, present in (("RNCryptor-C", RN_DECRYPT), ("PyPI rncryptor", PYPI_PYTHON)):
        if not present:
            notes.append(f"{name}: not available, its rows are left out (see scripts/side-by-side.sh)")
    emit()
    small_message()
    many_messages()
    large_messages()
    key_counts()
    if CALLGRIND:
        instruction_counts()
    emit(f"- load average at the end: {loadavg()}; the run took {time.time() - started:.0f} s")
    for n in notes:
        emit(f"- {n}")
    if failures:
        emit("- **WRONG OUTPUT** (those samples were dropped): " + "; ".join(failures))
    with open(os.path.join(WORK, "side-by-side.md"), "w") as f:
        f.write("\n".join(report) + "\n")
    log(f"table written to {os.path.join(WORK, 'side-by-side.md')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
