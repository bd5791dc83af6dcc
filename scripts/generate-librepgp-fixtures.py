#!/usr/bin/env python3
"""Writes Fixtures/kinds/openpgp-librepgp/: LibrePGP's AEAD form (a v5 SKESK and an AEAD
Encrypted Data packet, tag 20), which gpg 2.4 writes and Debian 12's gpg 2.2 cannot, made with
rnp (`rnp -c --aead=ocb|eax`), and manifest.tsv in the columns of Fixtures/kinds/openpgp's:

  file  passphrase-hex  outcome  plaintext-sha256  plaintext-hex  literal-name

gnupg's own two OCB samples are kept beside them (not remade). The layout is rfc4880bis-10's (5.3: SKESK v5 is version, cipher, AEAD mode, S2K, nonce, sealed
key and tag, with no count octet; 5.16: tag 20 is version 1, cipher, mode, chunk size octet,
starting nonce, chunks), which `gpg --list-packets` (2.2) shows for these files as gpg 2.4 writes
its own. The passphrase reaches rnp on an inherited pipe (--pass-fd), never argv.
Run again to make new messages (the tests read whatever is here).
"""
import hashlib
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fixtures", "kinds", "openpgp-librepgp")
PASSPHRASE = "libre ✓ pgp".encode()


def rnp(home, args):
    read, write = os.pipe()
    os.write(write, PASSPHRASE + b"\n")
    os.close(write)
    try:
        subprocess.run(["rnp", "--homedir", home, "--pass-fd", str(read)] + args, check=True, pass_fds=(read,), capture_output=True)
    finally:
        os.close(read)


def main():
    os.makedirs(OUT, exist_ok=True)
    home = tempfile.mkdtemp()
    rows = []
    try:
        text = "une ligne de texte ✓\n".encode()
        plain = os.path.join(home, "plain.txt")
        with open(plain, "wb") as f:
            f.write(text)
        for name, args in [
            ("ocb.pgp", ["--aead=ocb", "-z", "0"]),
            ("eax.pgp", ["--aead=eax", "-z", "0"]),
            ("ocb-zlib.asc", ["--aead=ocb", "--zlib", "--armor"]),
            ("eax-bzip2.asc", ["--aead=eax", "--bzip", "--armor"]),
            ("ocb-aes128.pgp", ["--aead=ocb", "--cipher", "AES128"]),
            ("ocb-no-wrap.pgp", ["--aead=ocb", "--no-wrap", "-z", "0"]),
            ("eax-no-wrap-zlib.pgp", ["--aead=eax", "--no-wrap", "--zlib"]),
        ]:
            target = os.path.join(OUT, name)
            rnp(home, ["-c", "--output", target, "--overwrite"] + args + [plain])
            outcome = "refused:no literal data packet" if "no-wrap" in name else "open"
            rows.append("\t".join([name, PASSPHRASE.hex(), outcome, hashlib.sha256(text).hexdigest(), text.hex(),
                                   "-" if "no-wrap" in name else "plain.txt"]))
    finally:
        shutil.rmtree(home)
    # Two of gnupg's own samples (tests/openpgp/samplemsgs/enc-sym-ocb-1.asc, rfc4880bis's
    # sample, AES-128; enc-sym-ocb-2.asc, gpg 2.4, AES-256), kept as they are, with their text
    # before the BEGIN line: gpg 2.4's SKESK v5 and tag 20, which rnp's files match.
    hello = b"Hello, world!\n"
    for name in ["gnupg-enc-sym-ocb-1.asc", "gnupg-enc-sym-ocb-2.asc"]:
        rows.append("\t".join([name, b"password".hex(), "open", hashlib.sha256(hello).hexdigest(), hello.hex(), ""]))
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write("# made by scripts/generate-librepgp-fixtures.py with " + subprocess.run(["rnp", "--version"], capture_output=True, text=True).stdout.splitlines()[0] + "\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
