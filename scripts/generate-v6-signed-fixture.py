#!/usr/bin/env python3
"""Writes Fixtures/kinds/openpgp-rfc9580/a4-signed-encrypted.asc: a v6 signed-and-encrypted
message (PKESK v6 to the X25519 subkey, SEIPD v2; inside, a v6 one-pass signature, the literal
data "signed by the RFC key\\n" and a v6 Ed25519 signature by the primary key) made by
pysequoia (`pip install pysequoia`) with RFC 9580 appendix A.4's sample key, which both signs
and receives it. Run again to make a new one (its salt and nonces change; the tests read
whatever is here).
"""
import os
import pysequoia as ps

FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Fixtures", "kinds", "openpgp-rfc9580")
key = ps.Tsk.from_file(os.path.join(FOLDER, "a4-v6-secret-key.asc"))
message = ps.encrypt(signer=key.signer(), recipients=[key.extract_certificate()], bytes=b"signed by the RFC key\n")
with open(os.path.join(FOLDER, "a4-signed-encrypted.asc"), "wb") as f:
    f.write(message if isinstance(message, bytes) else message.encode())
