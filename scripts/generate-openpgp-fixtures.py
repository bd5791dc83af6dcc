#!/usr/bin/env python3
"""Writes Fixtures/kinds/openpgp/: OpenPGP messages made by Debian's gnupg 2.2 itself (`gpg -c`
and friends), with random ASCII and Unicode passphrases, and manifest.tsv that says how each
opens or why it is refused.

manifest.tsv columns (tab-separated; '#' lines are comments):
  file  passphrase-hex  outcome  plaintext-sha256  plaintext-hex  literal-name
outcome is "open" or "refused:TEXT" (a fragment of the one line). plaintext-hex is "-" when the
plaintext is larger than 256 bytes; passphrase-hex is "-" for a message no passphrase opens.

Passphrases never reach argv: gpg reads them from an inherited pipe (--passphrase-fd), with a
private GNUPGHOME. Most messages use --s2k-count 65536, so that the tests' wrong passphrases cost
little (gpg takes a count that encodes to 0, such as 1024, as "the agent's default": 65011712);
one keeps gpg's default. Run again to make new messages (the tests read whatever is here).
"""
import hashlib
import os
import random
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fixtures", "kinds", "openpgp")
from fixture_passwords import password as passphrase


def gpg(home, args, secret=b"", stdin=None):
    """Runs gpg with `secret` on an inherited pipe (--passphrase-fd), never on argv."""
    read, write = os.pipe()
    os.write(write, secret)
    os.close(write)
    try:
        cmd = ["gpg", "--homedir", home, "--batch", "--yes", "--pinentry-mode", "loopback",
               "--passphrase-fd", str(read)] + args
        subprocess.run(cmd, check=True, pass_fds=(read,), input=stdin, capture_output=True)
    finally:
        os.close(read)


# (name, gpg options, unicode passphrase, plaintext size or text)
SETTINGS = [
    ("aes256-sha256-zlib.gpg", ["--cipher-algo", "AES256", "--s2k-digest-algo", "SHA256", "--compress-algo", "zlib"], False, "a line of text\n"),
    ("aes128-sha1-zip.asc", ["--armor", "--cipher-algo", "AES", "--s2k-digest-algo", "SHA1", "--compress-algo", "zip"], True, "une ligne de texte ✓\n"),
    ("aes192-sha512-bzip2.gpg", ["--cipher-algo", "AES192", "--s2k-digest-algo", "SHA512", "--compress-algo", "bzip2"], False, 4096),
    ("camellia128-sha384-none.asc", ["--armor", "--cipher-algo", "CAMELLIA128", "--s2k-digest-algo", "SHA384", "--compress-algo", "none"], True, 300),
    ("camellia192-sha224-zlib.gpg", ["--cipher-algo", "CAMELLIA192", "--s2k-digest-algo", "SHA224", "--compress-algo", "zlib"], False, "camellia\n"),
    ("camellia256-ripemd160-zip.gpg", ["--cipher-algo", "CAMELLIA256", "--s2k-digest-algo", "RIPEMD160", "--compress-algo", "zip"], True, 1000),
    ("cast5-md5-bzip2.asc", ["--armor", "--cipher-algo", "CAST5", "--s2k-digest-algo", "MD5", "--compress-algo", "bzip2"], False, "cast5\n"),
    ("3des-salted-sha1.gpg", ["--cipher-algo", "3DES", "--s2k-mode", "1", "--s2k-digest-algo", "SHA1"], True, 100),
    ("blowfish-simple-md5.gpg", ["--cipher-algo", "BLOWFISH", "--s2k-mode", "0", "--s2k-digest-algo", "MD5", "--compress-algo", "none"], False, "blowfish\n"),
    ("aes256-empty.asc", ["--armor", "--cipher-algo", "AES256"], True, 0),
    ("aes256-default-count.gpg", ["--cipher-algo", "AES256", "--s2k-count", "65011712"], False, "the default count\n"),
]


def main():
    random.seed()
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    home = tempfile.mkdtemp()
    os.chmod(home, 0o700)
    tmp = tempfile.mkdtemp()
    rows = []

    def plain(size_or_text, literal="plain.txt"):
        data = size_or_text.encode() if isinstance(size_or_text, str) else os.urandom(size_or_text)
        path = os.path.join(tmp, literal)
        with open(path, "wb") as f:
            f.write(data)
        return path, data

    def row(name, secret, outcome, data, literal="-"):
        rows.append([name, secret.hex() if secret is not None else "-", outcome,
                     hashlib.sha256(data).hexdigest() if data is not None else "-",
                     data.hex() if data is not None and len(data) <= 256 else "-", literal])

    for name, options, unicode, content in SETTINGS:
        secret = passphrase(unicode).encode()
        path, data = plain(content)
        count = [] if "--s2k-count" in options else ["--s2k-count", "65536"]
        gpg(home, options + count + ["-o", os.path.join(OUT, name), "--symmetric", path], secret)
        row(name, secret, "open", data, "plain.txt")

    # Refused: Twofish (not in OpenSSL), SED (no MDC), signed or plain but not encrypted, to a public key.
    secret = passphrase(False).encode()
    path, data = plain("twofish\n")
    gpg(home, ["--cipher-algo", "TWOFISH", "--s2k-count", "65536", "-o", os.path.join(OUT, "twofish.gpg"), "--symmetric", path], secret)
    row("twofish.gpg", secret, "refused:Twofish", None)
    gpg(home, ["--rfc2440", "--cipher-algo", "CAST5", "--s2k-count", "65536", "-o", os.path.join(OUT, "sed-no-mdc.gpg"), "--symmetric", path], secret)
    row("sed-no-mdc.gpg", secret, "refused:unauthenticated, refused", None)
    gpg(home, ["--compress-algo", "none", "-o", os.path.join(OUT, "stored-literal.gpg"), "--store", path])
    row("stored-literal.gpg", None, "refused:not encrypted", None)
    gpg(home, ["--quick-gen-key", "fixture@example.org", "ed25519", "sign,cert", "never"])
    gpg(home, ["--quick-add-key", gpg_fingerprint(home), "cv25519", "encr", "never"])
    gpg(home, ["-o", os.path.join(OUT, "signed-only.gpg"), "--sign", path])
    row("signed-only.gpg", None, "refused:not encrypted", None)
    gpg(home, ["-o", os.path.join(OUT, "clear-signed.asc"), "--clearsign", path])
    row("clear-signed.asc", None, "refused:not encrypted", None)
    gpg(home, ["--trust-model", "always", "-r", "fixture@example.org", "-o", os.path.join(OUT, "public-key-only.gpg"), "--encrypt", path])
    row("public-key-only.gpg", None, "refused:encrypted to a public key", None)
    # A public key and a passphrase: the SKESK carries an encrypted session key.
    secret = passphrase(True).encode()
    gpg(home, ["--trust-model", "always", "-r", "fixture@example.org", "--s2k-count", "65536", "-o",
               os.path.join(OUT, "public-key-and-passphrase.gpg"), "--encrypt", "--symmetric", path], secret)
    row("public-key-and-passphrase.gpg", secret, "open", data, "plain.txt")
    # Signed and encrypted to a passphrase: opens (the signature is not checked here).
    secret = passphrase(False).encode()
    gpg(home, ["--s2k-count", "65536", "-o", os.path.join(OUT, "signed-and-encrypted.asc"), "--armor", "--sign", "--symmetric", path], secret)
    row("signed-and-encrypted.asc", secret, "open", data, "plain.txt")

    version = subprocess.run(["gpg", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write(f"# made by scripts/generate-openpgp-fixtures.py with {version}\n")
        f.write("# file\tpassphrase-hex\toutcome\tplaintext-sha256\tplaintext-hex\tliteral-name\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    subprocess.run(["gpgconf", "--homedir", home, "--kill", "gpg-agent"], capture_output=True)
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(tmp, ignore_errors=True)


def gpg_fingerprint(home):
    out = subprocess.run(["gpg", "--homedir", home, "--batch", "--with-colons", "--list-keys", "fixture@example.org"],
                         capture_output=True, text=True, check=True).stdout
    return next(line.split(":")[9] for line in out.splitlines() if line.startswith("fpr:"))


if __name__ == "__main__":
    main()
