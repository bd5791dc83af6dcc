#!/usr/bin/env python3
"""Make rwsecret's interop fixtures with the PyPI `rncryptor` package (an RNCryptor
implementation nobody on this project wrote), or check messages with it.

    python3 Fixtures/generate_pypi_fixtures.py            # rewrite the fixtures below
    python3 Fixtures/generate_pypi_fixtures.py --check FILE PASSWORD
                                                          # decrypt each base64 line of FILE
                                                          # with PyPI rncryptor; print plaintexts

Writes (the output is committed, so the tests need no Python):
  Fixtures/pypi/messages.tsv   password_hex <TAB> plaintext_hex <TAB> message_base64, one per line
  Fixtures/messages.txt        the demo input: three passwords, comments, three bad lines
  Fixtures/messages.expected   what `rwsecret decrypt` prints for it on stdout
  Fixtures/messages.bad        the intended failures, as "LINE: REASON"

Needs: pip install rncryptor   (it brings pycryptodome). Salts and IVs are random,
so every run writes different (equally valid) messages.
"""
import base64
import os
import sys

import rncryptor

HERE = os.path.dirname(os.path.abspath(__file__))


class BytesCryptor(rncryptor.RNCryptor):
    """PyPI's RNCryptor decodes plaintexts as UTF-8; keep them as bytes instead."""

    def post_decrypt_data(self, data):
        return data[:-data[-1]]


def encrypt(plaintext: bytes, password: str) -> bytes:
    return rncryptor.RNCryptor().encrypt(plaintext, password)


def interop_records():
    passwords = [
        "password",
        "correct horse battery staple",
        "中文密码",
        "pässwörd ✓ 🔑",
        "L" * 200,
        "x",
    ]
    plaintexts = [
        b"",
        b"Hello from PyPI rncryptor",
        "unicode ☃ 中文 🔐".encode(),
        b"exactly 16 bytes",
        b"fifteen bytes!!",
        b"seventeen bytes!!",
        bytes(range(256)),
        ("long " * 2048).encode(),
    ]
    records = []
    for i, password in enumerate(passwords):
        for j, plaintext in enumerate(plaintexts):
            if (i + j) % 2 == 0 or password == "password":
                records.append((password, plaintext, encrypt(plaintext, password)))
    return records


DEMO = [
    ("password", "Meet at the usual place at noon."),
    ("ray", "The spare key is under the blue flowerpot."),
    ("raywender", "Wi-Fi: tutorials-team / swift-is-fun"),
    ("password", "Remember to water the plants on Friday."),
    ("ray", "Launch codes are in the other drawer. Just kidding."),
    ("raywender", "The answer is 42."),
]


def write_demo():
    lines, expected, bad = [], [], []
    lines.append("# rwsecret demo messages, made with the PyPI rncryptor package.")
    lines.append("# Three passwords open them: password, ray, raywender.")
    lines.append("")
    for k, (password, text) in enumerate(DEMO):
        lines.append(base64.b64encode(encrypt(text.encode(), password)).decode())
        expected.append(text)
        if k == 1:
            lines.append("this is not base64!")
            bad.append((len(lines), "bad base64"))
        if k == 3:
            lines.append("AwE=")
            bad.append((len(lines), "too short"))
    lines.append("# encrypted under a password the demo does not know:")
    lines.append(base64.b64encode(encrypt(b"nobody can read this", "not-one-of-the-three")).decode())
    bad.append((len(lines), "no password opened it (tried 3)"))
    with open(os.path.join(HERE, "messages.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(HERE, "messages.expected"), "w") as f:
        f.write("\n".join(expected) + "\n")
    with open(os.path.join(HERE, "messages.bad"), "w") as f:
        f.write("".join(f"{line}: {reason}\n" for line, reason in bad))


def write_interop():
    os.makedirs(os.path.join(HERE, "pypi"), exist_ok=True)
    with open(os.path.join(HERE, "pypi", "messages.tsv"), "w") as f:
        f.write("# password_hex\tplaintext_hex\tmessage_base64 (made by PyPI rncryptor %s)\n"
                % getattr(rncryptor, "__version__", "3.x"))
        for password, plaintext, message in interop_records():
            # Prove the record round-trips through the generator's own library too.
            assert BytesCryptor().decrypt(message, password) == plaintext
            f.write("%s\t%s\t%s\n" % (password.encode().hex(), plaintext.hex(), base64.b64encode(message).decode()))


def check(path, password):
    failures = 0
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                plaintext = BytesCryptor().decrypt(base64.b64decode(line), password)
                sys.stdout.write(plaintext.decode("utf-8", "backslashreplace") + "\n")
            except Exception as error:  # noqa: BLE001 - report any failure of the peer
                print("%s:%d: %s" % (path, number, error), file=sys.stderr)
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    if len(sys.argv) != 1:
        sys.exit(__doc__)
    write_interop()
    write_demo()
