#!/usr/bin/env python3
"""Write the fuzz targets' seed corpora, Fuzz/corpus/{line,stream,vault}/ (committed:
`make fuzz` needs neither this script nor the official vectors).

    python3 Fuzz/make_seeds.py [VECTORS]     # VECTORS: ../shared/rncryptor-spec-vectors by default

Seeds are real messages:
- every official RNCryptor-Spec vector (v1, v2, v3 password; v3 key) as published;
- the same vectors re-encrypted (same version, salts, IV, password, plaintext) with PBKDF2 at
  FUZZ_ITERATIONS, the count the targets run at, so that the targets can open them and reach
  the padding check and the plaintext comparisons;
- v1/v2/v3 messages under the targets' own password and key pair, of several lengths, and
  authentic messages with broken padding;
- vault plaintexts in VaultContents' format.
Needs Python's `cryptography` (AES); hashlib and hmac do the rest. Deterministic: a rerun
writes the same files.
"""
import base64
import hashlib
import hmac
import os
import shutil
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

FUZZ_ITERATIONS = 3                 # Fuzz/Sources/FuzzSupport.swift, fuzzIterations
FUZZ_PASSWORD = "fuzz"              # FuzzSecrets.password
VECTOR_PASSWORDS = ["a", "password", "thepassword", "中文密码",  # FuzzSecrets.vectorPasswords
                    "It was the best of times, it was the worst of times; it was the age of wisdom, it was the age of foolishness;"]
FUZZ_KEYS = (bytes(range(0, 32)), bytes(range(32, 64)))           # FuzzSecrets.keys (encryption, HMAC)
# fuzz-stream's credential table (byte 0 of its input): 0 FUZZ_PASSWORD, 1 FUZZ_KEYS,
# 2… VECTOR_PASSWORDS, then the official v3/key vectors' key pairs in file order.
STREAM_PASSWORD_INDEX = {FUZZ_PASSWORD: 0, **{p: 2 + i for i, p in enumerate(VECTOR_PASSWORDS)}}
STREAM_FUZZ_KEYS = 1
STREAM_FIRST_VECTOR_KEYS = 2 + len(VECTOR_PASSWORDS)

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def read_vectors(path):
    records, fields = [], {}
    with open(path, encoding="utf-8") as f:
        for raw in f.read().split("\n") + [""]:
            line = raw.strip()
            if not line:
                if fields:
                    records.append(fields)
                fields = {}
                continue
            if line.startswith("#") or ":" not in line:
                continue
            key, value = line.split(":", 1)
            fields[key.strip()] = value.strip()
    return records


def unhex(text):
    return bytes.fromhex("".join(text.split()))


def kdf_password(password, version):
    data = password.encode("utf-8")
    if version == 2:  # v2's bug: the UTF-16 length taken as a byte count
        return data[: len(password.encode("utf-16-le")) // 2]
    return data


def pbkdf2(password, salt, version, iterations=FUZZ_ITERATIONS):
    return hashlib.pbkdf2_hmac("sha1", kdf_password(password, version), salt, iterations, 32)


def aes_cbc(key, iv, data):
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return encryptor.update(data) + encryptor.finalize()


def pkcs7(data):
    n = 16 - len(data) % 16
    return data + bytes([n]) * n


def message(version, salts, iv, enc_key, hmac_key, blocks):
    """`blocks` (already padded, or deliberately not) framed and authenticated as `version` does."""
    header = bytes([version, 0 if salts is None else 1]) + (salts[0] + salts[1] if salts else b"") + iv
    ciphertext = aes_cbc(enc_key, iv, blocks)
    covered = ciphertext if version == 1 else header + ciphertext
    return header + ciphertext + hmac.new(hmac_key, covered, hashlib.sha256).digest()


def password_message(version, password, salts, iv, plaintext, padded=None):
    blocks = pkcs7(plaintext) if padded is None else padded
    return message(version, salts, iv, pbkdf2(password, salts[0], version), pbkdf2(password, salts[1], version), blocks)


def counter_bytes(n, start=0):
    return bytes((start + 7 * i) % 256 for i in range(n))


class Corpus:
    def __init__(self):
        for target in ("line", "stream", "vault"):
            shutil.rmtree(os.path.join(CORPUS, target), ignore_errors=True)
            os.makedirs(os.path.join(CORPUS, target))
        self.counts = {}

    def write(self, target, name, data):
        with open(os.path.join(CORPUS, target, name), "wb") as f:
            f.write(data)
        self.counts[target] = self.counts.get(target, 0) + 1

    def line(self, name, *messages, url_safe=False, unpadded=False, decorate=False):
        lines = []
        for m in messages:
            text = (base64.urlsafe_b64encode(m) if url_safe else base64.b64encode(m)).decode()
            if unpadded:
                text = text.rstrip("=")
            lines.append(f"  {text}\t\r" if decorate else text)
        body = "\n".join(lines) + "\n"
        if decorate:
            body = "# a comment line\n\n" + body
        self.write("line", name + ".txt", body.encode())

    def stream(self, name, credential, m, seed=0, mode=0):
        self.write("stream", name + ".bin", bytes([credential, seed, mode]) + m)


def main():
    vectors = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "rncryptor-spec-vectors")
    if not os.path.exists(os.path.join(vectors, "v3", "password")):
        sys.exit(f"make_seeds.py: no vectors in {vectors} (give the folder as the argument)")
    corpus = Corpus()

    # 1. Official password vectors: as published, and re-encrypted at FUZZ_ITERATIONS.
    mode = 0
    for version in (1, 2, 3):
        for i, v in enumerate(read_vectors(os.path.join(vectors, f"v{version}", "password"))):
            published = unhex(v["ciphertext_hex"])
            password = v["password"]
            # v1/password lists salts that differ from the ones in its ciphertext: the message's count.
            salts = (published[2:10], published[10:18])
            iv = published[18:34]
            again = password_message(version, password, salts, iv, unhex(v.get("plaintext_hex", "")))
            name = f"v{version}-password-{i}"
            corpus.line(name + "-published", published)
            corpus.line(name, again)
            corpus.stream(name + "-published", STREAM_PASSWORD_INDEX[password], published, seed=i, mode=mode)
            corpus.stream(name, STREAM_PASSWORD_INDEX[password], again, seed=i + 1, mode=mode + 1)
            mode += 2

    # 2. Official key vectors: as published (fuzz-stream knows their keys), and under FUZZ_KEYS.
    for i, v in enumerate(read_vectors(os.path.join(vectors, "v3", "key"))):
        published = unhex(v["ciphertext_hex"])
        again = message(3, None, unhex(v["iv_hex"]), *FUZZ_KEYS, pkcs7(unhex(v.get("plaintext_hex", ""))))
        corpus.line(f"v3-key-{i}-published", published)
        corpus.line(f"v3-key-{i}", again)
        corpus.stream(f"v3-key-{i}-published", STREAM_FIRST_VECTOR_KEYS + i, published, seed=3 * i, mode=i)
        corpus.stream(f"v3-key-{i}", STREAM_FUZZ_KEYS, again, seed=3 * i + 1, mode=5 + i)

    # 3. Our own messages under the fuzz password, every version, several lengths.
    salts = (bytes([0x5A] * 8), bytes([0xA5] * 8))
    iv = bytes(range(16))
    for version in (1, 2, 3):
        for length in (0, 1, 15, 16, 17, 33, 100):
            m = password_message(version, FUZZ_PASSWORD, salts, iv, counter_bytes(length, version))
            corpus.stream(f"fuzz-v{version}-{length}", STREAM_PASSWORD_INDEX[FUZZ_PASSWORD], m, seed=length, mode=length + version)
        corpus.line(f"fuzz-v{version}", password_message(version, FUZZ_PASSWORD, salts, iv, counter_bytes(40, version)))
        # v2 and the multibyte password: only the first 4 of its 12 bytes reach PBKDF2.
        m = password_message(version, "中文密码", salts, iv, b"multibyte password")
        corpus.line(f"multibyte-v{version}", m)
        corpus.stream(f"multibyte-v{version}", STREAM_PASSWORD_INDEX["中文密码"], m, seed=version, mode=version)
    # A long one, in big chunks.
    long_message = password_message(3, FUZZ_PASSWORD, salts, iv, counter_bytes(3000))
    corpus.stream("fuzz-v3-3000", STREAM_PASSWORD_INDEX[FUZZ_PASSWORD], long_message, seed=9, mode=16)
    # Key-based, several lengths.
    for length in (0, 16, 50):
        m = message(3, None, bytes(range(100, 116)), *FUZZ_KEYS, pkcs7(counter_bytes(length)))
        corpus.stream(f"keys-{length}", STREAM_FUZZ_KEYS, m, seed=length, mode=length)

    # 4. Authentic messages whose padding is broken (the HMAC verifies; the padding check decides).
    for name, blocks in (("zero", bytes(16)), ("seventeen", counter_bytes(15) + b"\x11"),
                         ("inconsistent", counter_bytes(13) + b"\x01\x02\x03"), ("two-blocks-bad", counter_bytes(31) + b"\x00")):
        m = password_message(3, FUZZ_PASSWORD, salts, iv, b"", padded=blocks)
        corpus.line(f"bad-padding-{name}", m)
        corpus.stream(f"bad-padding-{name}", STREAM_PASSWORD_INDEX[FUZZ_PASSWORD], m, seed=len(name), mode=len(name))
        k = message(3, None, iv, *FUZZ_KEYS, blocks)
        corpus.stream(f"bad-padding-keys-{name}", STREAM_FUZZ_KEYS, k, seed=1, mode=2)

    # 5. Input files of several lines: the chain reorders itself; base64 in its other spellings.
    a = password_message(3, "thepassword", salts, iv, b"first")
    b = password_message(2, FUZZ_PASSWORD, salts, iv, b"second")
    c = password_message(1, "a", salts, iv, b"third")
    k = message(3, None, iv, *FUZZ_KEYS, pkcs7(b"keyed"))
    corpus.line("lines-several", a, b, c, a, k, b)
    corpus.line("lines-url-safe-unpadded", a, c, url_safe=True, unpadded=True)
    corpus.line("lines-decorated", b, k, decorate=True)
    corpus.write("line", "lines-bad-base64.txt", b"AAAA=\nA\n====\n!!!!\nAA==AA==\n")

    # 6. Vault plaintexts: RWV1, count, then (label length, label, secret length, secret) per entry.
    def vault(entries, count=None):
        out = b"RWV1" + struct.pack(">I", len(entries) if count is None else count)
        for label, secret in entries:
            out += struct.pack(">I", len(label)) + label + struct.pack(">I", len(secret)) + secret
        return out
    corpus.write("vault", "empty.bin", vault([]))
    corpus.write("vault", "one.bin", vault([(b"1", b"hunter2")]))
    corpus.write("vault", "several.bin", vault([(b"work", b"correct horse"), ("caf\u00e9 \u4e2d\u6587".encode(), b"\x00\n\xff secret"),
                                                 (b"", b""), (b"3", bytes(range(256)))]))
    corpus.write("vault", "count-too-big.bin", vault([(b"a", b"b")], count=2))
    corpus.write("vault", "trailing-byte.bin", vault([(b"a", b"b")]) + b"\x00")
    corpus.write("vault", "bad-utf8-label.bin", vault([(b"\xc3\x28", b"x")]))
    corpus.write("vault", "huge-count.bin", vault([], count=0xFFFFFFFF))
    corpus.write("vault", "huge-length.bin", b"RWV1" + struct.pack(">II", 1, 0xFFFFFFF0) + b"label")
    corpus.write("vault", "bad-magic.bin", b"RWV2" + struct.pack(">I", 0))
    # Identities after the passwords: RWI1, count, then (label, kind, secret), each length-prefixed.
    def identities(entries, count=None):
        out = b"RWI1" + struct.pack(">I", len(entries) if count is None else count)
        for label, kind, secret in entries:
            for part in (label, kind, secret):
                out += struct.pack(">I", len(part)) + part
        return out
    key = b"AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX"
    corpus.write("vault", "identities.bin", vault([(b"1", b"hunter2")]) + identities([(b"me", b"age-x25519", key)]))
    corpus.write("vault", "identities-empty-section.bin", vault([]) + identities([]))
    corpus.write("vault", "identities-unknown-kind.bin", vault([]) + identities([(b"me", b"age-pq", key)]))

    for target, n in sorted(corpus.counts.items()):
        print(f"Fuzz/corpus/{target}: {n} seeds")


if __name__ == "__main__":
    main()
