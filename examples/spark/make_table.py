#!/usr/bin/env python3
"""Makes a table of (id, message) rows and the truth about each, for testing decrypt_table.py.

    python make_table.py --rwsecret BIN --rows N --out DIR [--seed N]

Writes DIR/table.parquet, DIR/table.csv, DIR/truth.jsonl (per id: status, plaintext as
base64, password label, error), DIR/passwords (LABEL<TAB>SECRET, mode 0600) and
DIR/rows.tsv (the rows as rwsecret reads them, one line each, for a local run on the same data). The
messages are made by `rwsecret encrypt`, fresh salts every time. Rows: most open with one of
three passwords; some are wrapped at 64 or 76 columns (iOS, Android, openssl base64); some
have non-UTF-8 or unusual plaintexts; some are bad (a password nobody has, a lost block,
not base64); some are blank. --seed N makes the same rows (kinds, labels, plaintexts) again; without
it a seed is drawn and printed, so that a run that failed can be made again.
"""
import argparse
import base64
import json
import os
import random
import secrets
import subprocess
import tempfile

import pandas as pd


def encrypt(rwsecret, password, plaintexts):
    """One base64 message per plaintext (plaintexts hold no line break)."""
    if not plaintexts:
        return []
    with tempfile.NamedTemporaryFile(delete=False) as f:
        os.chmod(f.name, 0o600)
        f.write(password)
        path = f.name
    try:
        out = subprocess.run([rwsecret, "encrypt", "--password-file", path], input=b"\n".join(plaintexts) + b"\n",
                             stdout=subprocess.PIPE, check=True).stdout
    finally:
        os.unlink(path)
    messages = out.decode().splitlines()
    assert len(messages) == len(plaintexts)
    return messages


def plaintext(rng, kind):
    if kind == "binary":  # not UTF-8
        return bytes([0xff, 0xfe]) + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).replace(b"\n", b"").replace(b"\r", b"")
    words = ["alpha", "ünïcödé", "tab\there", '"quoted"', "emoji 🦄", "back\\slash", "日本語", "plain"]
    return " ".join(rng.choice(words) for _ in range(rng.randrange(3, 30))).encode()


def wrap(text, width):
    return "\n".join(text[i:i + width] for i in range(0, len(text), width))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rwsecret", required=True)
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=None, help="the same rows again (default: drawn, and printed)")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)

    labels = ["alpha", "beta", "gamma"]
    secrets_by_label = {label: secrets.token_urlsafe(18).encode() for label in labels}
    nobody = secrets.token_urlsafe(18).encode()
    kinds = (["good"] * 70 + ["wrapped64"] * 5 + ["wrapped76"] * 5 + ["binary"] * 6 + ["wrong"] * 4
             + ["lost-block"] * 3 + ["not-base64"] * 3 + ["blank"] * 4)
    rows = [{"id": f"row-{i:07d}", "kind": rng.choice(kinds), "label": rng.choice(labels)} for i in range(args.rows)]
    for row in rows:
        row["plaintext"] = plaintext(rng, "binary" if row["kind"] == "binary" else "text")
        if row["kind"] == "lost-block":
            row["plaintext"] += b" and more than one block of text"

    # Encrypt per password, in one rwsecret run each.
    for password, members in [(secrets_by_label[label], [r for r in rows if r["label"] == label and r["kind"] != "wrong"])
                              for label in labels] + [(nobody, [r for r in rows if r["kind"] == "wrong"])]:
        for row, message in zip(members, encrypt(args.rwsecret, password, [r["plaintext"] for r in members])):
            row["base64"] = message

    tried = len(labels)
    truth = []
    for row in rows:
        kind, message = row["kind"], row["base64"]
        expected = {"id": row["id"], "status": "decrypted", "plaintext_base64": base64.b64encode(row["plaintext"]).decode(),
                    "password": row["label"], "error": None}
        if kind == "wrapped64":
            message = wrap(message, 64)
        elif kind == "wrapped76":
            message = wrap(message, 76)
        elif kind == "wrong":
            expected.update(status="failed", plaintext_base64=None, password=None, error=f"no password opened it (tried {tried})")
        elif kind == "lost-block":
            raw = base64.b64decode(message)
            message = base64.b64encode(raw[:-16]).decode()
            expected.update(status="failed", plaintext_base64=None, password=None, error=f"no password opened it (tried {tried})")
        elif kind == "not-base64":
            message = "not base64! " + message[:20]
            expected.update(status="failed", plaintext_base64=None, password=None, error="bad base64")
        elif kind == "blank":
            message = rng.choice([None, "", "   "])
            expected.update(status="skipped", plaintext_base64=None, password=None)
        row["message"] = message
        truth.append(expected)

    table = pd.DataFrame({"id": [r["id"] for r in rows], "message": [r["message"] for r in rows]})
    table.to_parquet(os.path.join(args.out, "table.parquet"), index=False)
    table.to_csv(os.path.join(args.out, "table.csv"), index=False)
    with open(os.path.join(args.out, "truth.jsonl"), "w") as f:
        for expected in truth:
            f.write(json.dumps(expected) + "\n")
    with open(os.path.join(args.out, "rows.tsv"), "w") as f:
        for r in rows:
            # One line per row, a wrapped message joined (as decrypt_table.row_line sends it):
            # under --in-band each line is decided alone, at its own end.
            f.write(f"{r['id']}\t{(r['message'] or '').replace(chr(10), '')}\n")
    path = os.path.join(args.out, "passwords")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        for label in labels:
            f.write(label.encode() + b"\t" + secrets_by_label[label] + b"\n")
    counts = {}
    for r in rows:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    print(f"made {len(rows)} rows (--seed {args.seed}) in {args.out}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
