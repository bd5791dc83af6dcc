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

Needs: pip install rncryptor   (it brings pycryptodome). PyPI rncryptor draws salts
and IVs from pycryptodome's Random; the generator overrides those three properties
(the only hook PyPI's API offers) with a seeded generator, so a rerun rewrites the
same bytes. Everything else -- KDF, AES, HMAC, padding, layout -- is PyPI's code.

--check is stricter than PyPI's own decrypt (which ignores the version and options
bytes and strips padding without checking it): each line must be strict base64 of a
v3 password-based message (03 01) whose HMAC verifies and whose PKCS#7 padding is valid.
"""
import base64
import binascii
import os
import random
import sys

import rncryptor

HERE = os.path.dirname(os.path.abspath(__file__))


class BytesCryptor(rncryptor.RNCryptor):
    """PyPI's RNCryptor decodes plaintexts as UTF-8; keep them as bytes instead."""

    def post_decrypt_data(self, data):
        return data[:-data[-1]]


class SeededCryptor(rncryptor.RNCryptor):
    """PyPI's RNCryptor with salts and IV from a seeded generator (fixtures only!)."""

    def __init__(self, rng):
        self.rng = rng

    @property
    def encryption_salt(self):
        return self.rng.randbytes(self.SALT_SIZE)

    @property
    def hmac_salt(self):
        return self.rng.randbytes(self.SALT_SIZE)

    @property
    def iv(self):
        return self.rng.randbytes(16)


RNG = random.Random(0x5EC2E7)  # one stream for every file, drawn in a fixed order


def encrypt(plaintext: bytes, password: str) -> bytes:
    message = SeededCryptor(RNG).encrypt(plaintext, password)
    # Prove every message round-trips through the generator's own library too.
    assert BytesCryptor().decrypt(message, password) == plaintext
    return message


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
            f.write("%s\t%s\t%s\n" % (password.encode().hex(), plaintext.hex(), base64.b64encode(message).decode()))


def strict_decrypt(message: bytes, password: str) -> bytes:
    """PyPI rncryptor's decrypt, plus the checks it leaves out."""
    if len(message) < 34 + 16 + 32:
        raise ValueError("too short: %d bytes" % len(message))
    if message[0] != 3 or message[1] != 1:
        raise ValueError("not a v3 password-based message (version %d, options %d)" % (message[0], message[1]))
    if (len(message) - 34 - 32) % 16:
        raise ValueError("ciphertext is not whole blocks")
    cryptor = BytesCryptor()
    plaintext = cryptor.decrypt(message, password)  # raises DecryptionError on an HMAC mismatch
    # Re-decipher to see the padding PyPI strips without looking.
    salt = message[2:10]
    key = cryptor._pbkdf2(rncryptor.to_bytes(password), salt)
    padded = cryptor._aes_decrypt(key, message[18:34], message[34:-32])
    pad = padded[-1]
    if not 1 <= pad <= 16 or padded[-pad:] != bytes([pad]) * pad:
        raise ValueError("bad PKCS#7 padding")
    return plaintext


def check(path, password):
    failures = 0
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                plaintext = strict_decrypt(base64.b64decode(line, validate=True), password)
                sys.stdout.write(plaintext.decode("utf-8", "backslashreplace") + "\n")
            except (ValueError, binascii.Error, rncryptor.RNCryptorError) as error:
                print("%s:%d: %s" % (path, number, error or type(error).__name__), file=sys.stderr)
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    if len(sys.argv) != 1:
        sys.exit(__doc__)
    write_interop()
    write_demo()
