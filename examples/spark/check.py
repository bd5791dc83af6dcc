#!/usr/bin/env python3
"""Compares decrypt_table.py's output with make_table.py's truth, row by row (joined on id).

    python check.py --truth DIR/truth.jsonl --output OUT

Prints one line per mismatch (at most 20) and `N passed, M failed`; exits 1 on any mismatch.
"""
import argparse
import base64
import json
import sys

import pandas as pd


def compare(truth_path, output_path):
    """Prints the mismatches and the counts; returns (passed, failed)."""
    with open(truth_path) as f:
        truth = {t["id"]: t for t in map(json.loads, f)}
    out = pd.read_parquet(output_path)
    problems = []
    if len(out) != len(truth):
        problems.append(f"{len(out)} output rows for {len(truth)} input rows")
    if out["id"].duplicated().any():
        problems.append(f"{int(out['id'].duplicated().sum())} ids appear more than once")
    seen = set()
    passed = 0
    for row in out.to_dict("records"):
        row = {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
        expected = truth.get(row["id"])
        seen.add(row["id"])
        if expected is None:
            problems.append(f"{row['id']}: not an input id")
            continue
        wrong = []
        if row["status"] != expected["status"]:
            wrong.append(f"status {row['status']!r}, expected {expected['status']!r}")
        if row["error"] != expected["error"]:
            wrong.append(f"error {row['error']!r}, expected {expected['error']!r}")
        if row["password"] != expected["password"]:
            wrong.append(f"password {row['password']!r}, expected {expected['password']!r}")
        want = None if expected["plaintext_base64"] is None else base64.b64decode(expected["plaintext_base64"])
        if row["plaintext"] is not None and row["plaintext_base64"] is not None:
            wrong.append("both plaintext and plaintext_base64")
        got = (row["plaintext"].encode() if row["plaintext"] is not None
               else base64.b64decode(row["plaintext_base64"]) if row["plaintext_base64"] is not None else None)
        if got != want:
            wrong.append("a different plaintext")
        elif want is not None:
            try:
                want.decode("utf-8")
                if row["plaintext"] is None:
                    wrong.append("UTF-8 plaintext given as plaintext_base64")
            except UnicodeDecodeError:
                if row["plaintext_base64"] is None:
                    wrong.append("non-UTF-8 plaintext not given as plaintext_base64")
        if wrong:
            problems.append(f"{row['id']}: " + "; ".join(wrong))
        else:
            passed += 1
    missing = set(truth) - seen
    if missing:
        problems.append(f"{len(missing)} input rows have no output row, e.g. {sorted(missing)[:3]}")
    for problem in problems[:20]:
        print("mismatch:", problem)
    statuses = out["status"].value_counts(dropna=False).to_dict()
    print(f"{output_path}: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items(), key=str)))
    failed = len(truth) - passed if not problems else max(1, len(truth) - passed)
    return passed, failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--truth", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    passed, failed = compare(args.truth, args.output)
    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
