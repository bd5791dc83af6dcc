#!/usr/bin/env python3
"""Writes Fixtures/kinds/openpgp-librepgp-keys/: LibrePGP's AEAD Encrypted Data packet (tag 20)
opened through a public-key session key packet (PKESK v3), as gpg 2.4 writes to every key that
announces AEAD (Debian 12's gpg 2.2 cannot), made with rnp (`rnp -e --aead=ocb|eax -r KEY`) to
two keys made by gpg 2.2 (`--quick-gen-key`: rsa3072, and ed25519 with a cv25519 subkey),
exported without a passphrase and imported into rnp:

  rsa.sec.asc, cv25519.sec.asc   the secret keys (test keys, no passphrase)
  {rsa,cv25519}-{ocb,eax}.pgp    binary messages; rsa-ocb-zlib.asc armored, compressed
  manifest.tsv                   file, key file, outcome, plaintext-hex

`gpg --list-packets` (2.2) shows each as gpg 2.4's own: `:pubkey enc packet: version 3`, then
`:aead encrypted packet: cipher=9 aead=2|1 cb=...`. Run again to make new keys and messages
(the tests read whatever is here).
"""
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fixtures", "kinds", "openpgp-librepgp-keys")
TEXT = "to a key, sealed with LibrePGP's AEAD ✓\n".encode()


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, **kw)


def main():
    os.makedirs(OUT, exist_ok=True)
    home = tempfile.mkdtemp()
    gpg = ["gpg", "--homedir", os.path.join(home, "gnupg"), "--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", ""]
    os.makedirs(os.path.join(home, "gnupg"), mode=0o700)
    rnp_home = os.path.join(home, "rnp")
    os.makedirs(rnp_home, mode=0o700)
    rows = []
    try:
        plain = os.path.join(home, "plain.txt")
        with open(plain, "wb") as f:
            f.write(TEXT)
        for name, primary, subkey in [("rsa", "rsa3072", "rsa3072"), ("cv25519", "ed25519", "cv25519")]:
            uid = f"LibrePGP {name} <{name}@example.org>"
            run(gpg + ["--quick-gen-key", uid, primary, "sign", "never"])
            listed = run(gpg + ["--with-colons", "--list-keys", uid], text=True).stdout
            fpr = [l.split(":")[9] for l in listed.splitlines() if l.startswith("fpr:")][0]
            run(gpg + ["--quick-add-key", fpr, subkey, "encr", "never"])
            key = os.path.join(OUT, f"{name}.sec.asc")
            run(gpg + ["--armor", "-o", key, "--export-secret-keys", fpr])
            os.chmod(key, 0o600)
            run(["rnpkeys", "--homedir", rnp_home, "--import", key])
            for mode, extra, file in [("ocb", [], f"{name}-ocb.pgp"), ("eax", [], f"{name}-eax.pgp")] + (
                    [("ocb", ["--zlib", "--armor"], f"{name}-ocb-zlib.asc")] if name == "rsa" else []):
                target = os.path.join(OUT, file)
                run(["rnp", "--homedir", rnp_home, "-e", f"--aead={mode}", "-r", fpr, "--output", target, "--overwrite"]
                    + (extra or ["-z", "0"]) + [plain])
                rows.append("\t".join([file, f"{name}.sec.asc", "open", TEXT.hex()]))
    finally:
        subprocess.run(["gpgconf", "--homedir", os.path.join(home, "gnupg"), "--kill", "gpg-agent"], capture_output=True)
        shutil.rmtree(home)
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write("# made by scripts/generate-librepgp-key-fixtures.py with "
                + run(["rnp", "--version"], text=True).stdout.splitlines()[0] + " and "
                + run(["gpg", "--version"], text=True).stdout.splitlines()[0] + "\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
