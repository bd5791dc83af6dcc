#!/usr/bin/env python3
"""Writes bad-inner-packet.gpg: a gpg -c-like OpenPGP message (v4 SKESK, AES-256, iterated and
salted S2K with SHA-256; SEIPD v1 with a valid MDC) whose encrypted packet stream is a literal
data packet followed by a byte that is not a packet header (0x00). The MDC verifies: the message
is authentic, its inner packets are malformed. Password: "inner packets". Needs python3-cryptography.
"""
import hashlib, os, sys
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

password = b"inner packets"
salt, coded = os.urandom(8), 96  # count (16 + (96 & 15)) << ((96 >> 4) + 6) = 65536
count = (16 + (coded & 15)) << ((coded >> 4) + 6)
data = (salt + password) * (count // (len(salt) + len(password)) + 1)
key = hashlib.sha256(data[:max(count, len(salt) + len(password))]).digest()

def packet(tag, body):
    assert len(body) < 192
    return bytes([0xC0 | tag, len(body)]) + body

literal = packet(11, b"b" + bytes([4]) + b"data" + bytes(4) + b"authentic, but malformed inside\n")
prefix = os.urandom(16)
inner = prefix + prefix[14:] + literal + b"\x00" + b"\xd3\x14"
inner += hashlib.sha1(inner).digest()
encryptor = Cipher(algorithms.AES(key), modes.CFB(bytes(16))).encryptor()
seipd = b"\x01" + encryptor.update(inner) + encryptor.finalize()
skesk = packet(3, bytes([4, 9, 3, 8]) + salt + bytes([coded]))
body = skesk + bytes([0xC0 | 18, 255]) + len(seipd).to_bytes(4, "big") + seipd
open(os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "bad-inner-packet.gpg"), "wb").write(body)
