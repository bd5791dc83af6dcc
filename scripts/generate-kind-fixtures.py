#!/usr/bin/env python3
"""Writes Fixtures/kinds/: age and Ansible Vault messages made by the peers themselves
(Debian `age` and `ansible-core`), with random ASCII and Unicode passwords, and
Fixtures/kinds/manifest.tsv that says how each opens.

manifest.tsv columns (tab-separated; '#' lines are comments):
  file  kind  credential  secret-hex  key  line  plaintext-sha256  plaintext-hex
credential is "password" (secret-hex: its UTF-8 bytes) or "identity" (secret-hex: the
identity file's name, hex-encoded). key and line name a !vault value of a YAML file ("-" for
whole files). plaintext-hex is "-" when the plaintext is larger than 256 bytes.

Passwords never reach argv: ansible-vault reads a 0600 file, age -p gets them on its terminal
through scripts/age-pty.py. Run again to make new messages (the tests read whatever is here).
"""
import hashlib
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fixtures", "kinds")
PTY = os.path.join(ROOT, "scripts", "age-pty.py")
from fixture_passwords import password


def main():
    os.makedirs(OUT, exist_ok=True)
    rows = []
    tmp = tempfile.mkdtemp()

    def plaintext(size, text=None):
        data = text.encode() if text is not None else os.urandom(size)
        path = os.path.join(tmp, "plain")
        with open(path, "wb") as f:
            f.write(data)
        return path, data

    def row(name, kind, credential, secret, data, key="-", line="-"):
        rows.append([name, kind, credential, secret.hex(), key, str(line), hashlib.sha256(data).hexdigest(),
                     data.hex() if len(data) <= 256 else "-"])

    # age -p: binary and armored, ASCII and Unicode passwords, empty and a little text.
    for name, unicode, armor, size, text in [("age-scrypt-ascii.age", False, False, 0, None),
                                             ("age-scrypt-unicode.age", True, True, 0, "a line of text\n"),
                                             ("age-scrypt-binary-4k.age", True, False, 4096, None)]:
        pw = password(unicode)
        src, data = plaintext(size, text)
        out = os.path.join(OUT, name)
        if os.path.exists(out):
            os.remove(out)
        subprocess.run([sys.executable, PTY, "age", "-p"] + (["-a"] if armor else []) + ["-o", out, src],
                       input=(pw + "\n").encode(), check=True)
        row(name, "age", "password", pw.encode(), data)

    # age X25519: an identity made for the fixtures, two recipients (ours second).
    identity = os.path.join(OUT, "age-identity.txt")
    if os.path.exists(identity):
        os.remove(identity)
    subprocess.run(["age-keygen", "-o", identity], check=True, capture_output=True)
    ours = [l.split(": ")[1] for l in open(identity).read().splitlines() if l.startswith("# public key: ")][0]
    other = os.path.join(tmp, "other.key")
    subprocess.run(["age-keygen", "-o", other], check=True, capture_output=True)
    theirs = [l.split(": ")[1] for l in open(other).read().splitlines() if l.startswith("# public key: ")][0]
    for name, armor, size in [("age-x25519.age", False, 70000), ("age-x25519-armored.age", True, 100)]:
        src, data = plaintext(size)
        out = os.path.join(OUT, name)
        subprocess.run(["age"] + (["-a"] if armor else []) + ["-r", theirs, "-r", ours, "-o", out, src], check=True)
        row(name, "age", "identity", b"age-identity.txt", data)
    # Only a recipient that is not ours: the hint names its type.
    src, data = plaintext(10)
    subprocess.run(["age", "-r", theirs, "-o", os.path.join(OUT, "age-foreign-recipient.age"), src], check=True)

    # Ansible Vault: whole files, 1.1 and 1.2 with vault ids.
    for name, unicode, vault_id, size, text in [("ansible-1.1.vault", False, None, 0, "db_password: hunter2\n"),
                                                ("ansible-1.2-prod.vault", True, "prod", 300, None),
                                                ("ansible-1.1-empty.vault", True, None, 0, "")]:
        pw = password(unicode)
        pwfile = os.path.join(tmp, "pw")
        with open(pwfile, "w", encoding="utf-8") as f:
            f.write(pw)
        os.chmod(pwfile, 0o600)
        src, data = plaintext(size, text)
        out = os.path.join(OUT, name)
        if os.path.exists(out):
            os.remove(out)
        cred = ["--vault-id", f"{vault_id}@{pwfile}"] if vault_id else ["--vault-password-file", pwfile]
        subprocess.run(["ansible-vault", "encrypt"] + cred + ["--output", out, src], check=True, capture_output=True)
        row(name, "ansible-vault", "password", pw.encode(), data)

    # A YAML file with encrypt_string values, each with its own password.
    yaml = "# group_vars/all.yml\napp_name: demo\n"
    for key, vault_id, value in [("db_password", "prod", "s3cr3t ✓"), ("api_token", None, "tok-" + password(False))]:
        pw = password(True)
        pwfile = os.path.join(tmp, "pw")
        with open(pwfile, "w", encoding="utf-8") as f:
            f.write(pw)
        os.chmod(pwfile, 0o600)
        cred = ["--vault-id", f"{vault_id}@{pwfile}"] if vault_id else ["--vault-password-file", pwfile]
        made = subprocess.run(["ansible-vault", "encrypt_string"] + cred + ["--stdin-name", key],
                              input=value.encode(), check=True, capture_output=True)
        line = yaml.count("\n") + 1
        yaml += made.stdout.decode() + "\n"
        row("ansible-values.yml", "ansible-vault", "password", pw.encode(), value.encode(), key, line)
    yaml += "port: 5432\n"
    with open(os.path.join(OUT, "ansible-values.yml"), "w", encoding="utf-8") as f:
        f.write(yaml)

    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write("# made by scripts/generate-kind-fixtures.py with " +
                subprocess.run(["age", "--version"], capture_output=True, text=True).stdout.strip() + " (age) and " +
                subprocess.run(["ansible-vault", "--version"], capture_output=True, text=True).stdout.splitlines()[0] + "\n")
        f.write("# file\tkind\tcredential\tsecret-hex\tkey\tline\tplaintext-sha256\tplaintext-hex\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main()
