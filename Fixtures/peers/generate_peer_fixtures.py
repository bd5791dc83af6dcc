#!/usr/bin/env python3
"""Make rwsecret's peer fixtures: messages written by other RNCryptor implementations
themselves, in every password dialect they write.

    python3 Fixtures/peers/generate_peer_fixtures.py PEERS [--python PY]

PEERS is a folder OUTSIDE this repository holding the peers' own checkouts, fetched
from GitHub and never committed here:
  PEERS/RNCryptor-php     github.com/RNCryptor/RNCryptor-php    (run with php-cli)
  PEERS/ruby_rncryptor    github.com/RNCryptor/ruby_rncryptor   (run with ruby)
  PEERS/JSCryptor         github.com/chesstrian/JSCryptor       (run with node; plain JS)
  PEERS/RNCryptor-C       github.com/RNCryptor/RNCryptor-C      (built with gcc + libssl-dev)
and PyPI's `rncryptor` importable by PY (default: python3), e.g. a venv in PEERS.

For each peer the script writes a small driver (into a temporary folder) that reads
jobs on stdin, one per line -- id, version, mode, iterations, secret hex, plaintext
hex -- and calls the peer's own public encrypt function; the driver adds nothing to
the message. Salts and IVs come from each peer's own random source, so a rerun writes
different (equally valid) bytes. Every message is decrypted again by the same peer
where the peer can (a sanity check of the driver, not of rwsecret).

Writes Fixtures/peers/messages.tsv, one message per line:
  peer  version  mode  iterations  secret_hex  candidate_hex  plaintext_hex  message_base64  note
secret_hex: the password bytes the peer was given (UTF-8 as typed), or for mode `key`
the 64-byte encryption key then HMAC key. candidate_hex: what rwsecret is given to open
it -- the same password, or the same text in the other Unicode normalization form (NFC
vs NFD: the same typed password from another input method). plaintext_hex: the bytes the
peer actually encrypted. note: what the record exercises.
"""
import base64
import os
import subprocess
import sys
import tempfile
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))

PASSWORDS = [
    ("ascii", "correct horse battery"),
    ("latin1 NFC", unicodedata.normalize("NFC", "pässwörd")),
    ("latin1 NFD", unicodedata.normalize("NFD", "pässwörd")),
    ("cjk", "中文密码"),
    ("emoji", "🦄ab"),
    ("emoji NFD", unicodedata.normalize("NFD", "clé 🔑 été")),
    ("greek NFC", unicodedata.normalize("NFC", "ἀλήθεια")),
]
PLAINTEXTS = [
    b"Hello from a peer",
    "Grüße, 世界 🌍".encode("utf-8"),
    bytes(range(40)),
]
KEY = bytes(range(0x20, 0x40)) + bytes(range(0x80, 0xA0))

# Which versions and modes each peer writes (from its source).
PEERS = {
    "php": {"versions": [3, 2, 1, 0], "key": True, "iterations": [1000]},
    "ruby": {"versions": [3, 2], "key": False, "iterations": []},
    "jscryptor": {"versions": [3], "key": True, "iterations": []},
    "rncryptor-c": {"versions": [3], "key": True, "iterations": [1000, 20000]},
    "pypi": {"versions": [3], "key": False, "iterations": []},
}

PHP_DRIVER = r"""<?php
require '%(peers)s/RNCryptor-php/src/RNCryptor/Cryptor.php';
require '%(peers)s/RNCryptor-php/src/RNCryptor/Encryptor.php';
require '%(peers)s/RNCryptor-php/src/RNCryptor/Decryptor.php';
use RNCryptor\RNCryptor\Encryptor;
use RNCryptor\RNCryptor\Decryptor;
while (($line = fgets(STDIN)) !== false) {
    [$id, $version, $mode, $iterations, $secret, $plain] = explode("\t", rtrim($line, "\n"));
    $secret = hex2bin($secret); $plain = $plain === '-' ? '' : hex2bin($plain);
    $e = new Encryptor(); $e->setIterations((int)$iterations);
    if ($mode === 'key') {
        $out = $e->encryptWithArbitraryKeys($plain, substr($secret, 0, 32), substr($secret, 32), random_bytes(16), (int)$version);
    } else {
        $out = $e->encrypt($plain, $secret, (int)$version);
        $d = new Decryptor(); $d->setIterations((int)$iterations);
        if ($d->decrypt($out, $secret) !== $plain) { fwrite(STDERR, "php cannot decrypt its own $id\n"); exit(1); }
    }
    echo "$id\t$out\n";
}
"""

RUBY_DRIVER = r"""
require '%(peers)s/ruby_rncryptor/lib/ruby_rncryptor'
require 'base64'
STDIN.each_line do |line|
  id, version, mode, iterations, secret, plain = line.chomp.split("\t")
  password = [secret].pack('H*').force_encoding('UTF-8')
  data = plain == '-' ? ''.b : [plain].pack('H*')
  out = RubyRNCryptor.encrypt(data, password, version.to_i)
  raise "ruby cannot decrypt its own #{id}" unless RubyRNCryptor.decrypt(out, password) == data
  puts "#{id}\t#{Base64.strict_encode64(out)}"
end
"""

NODE_DRIVER = r"""
const RNCryptor = require('%(peers)s/JSCryptor/lib/RNCryptor.js');
const crypto = require('crypto');
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(l => l.length);
for (const line of lines) {
  const [id, version, mode, iterations, secret, plain] = line.split('\t');
  const data = Buffer.from(plain === '-' ? '' : plain, 'hex');
  let out;
  if (mode === 'key') {
    RNCryptor.Encrypt('x', 'configure', 3);  // EncryptWithArbitraryKeys uses the settings of the last call
    const key = Buffer.from(secret, 'hex');
    out = RNCryptor.EncryptWithArbitraryKeys(data, key.subarray(0, 32), key.subarray(32), crypto.randomBytes(16), 3);
  } else {
    // A JavaScript string, as a web page would pass a typed password.
    const password = Buffer.from(secret, 'hex').toString('utf8');
    out = RNCryptor.Encrypt(data, password, 3);
    const back = RNCryptor.Decrypt(out, password);
    if (!back || !back.equals(data)) { console.error('jscryptor cannot decrypt its own ' + id); process.exit(1); }
  }
  console.log(id + '\t' + out);
}
"""

C_DRIVER = r"""
#include "rncryptor_c.h"
static int unhex(const char *s, unsigned char *out) {
    int n = 0; if (strcmp(s, "-") == 0) return 0;
    for (; s[0] && s[1]; s += 2) { unsigned int b; sscanf(s, "%2x", &b); out[n++] = (unsigned char)b; }
    return n;
}
static void b64(const unsigned char *p, int n) {
    static const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < n; i += 3) {
        unsigned v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        putchar(t[v >> 18 & 63]); putchar(t[v >> 12 & 63]);
        putchar(i + 1 < n ? t[v >> 6 & 63] : '='); putchar(i + 2 < n ? t[v & 63] : '=');
    }
}
int main(void) {
    static char line[65536], id[64], version[8], mode[16], iter[16], secret[8192], plain[32768];
    static unsigned char s[4096], p[16384];
    char err[1024];
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%63[^\t]\t%7[^\t]\t%15[^\t]\t%15[^\t]\t%8191[^\t]\t%32767[^\n]", id, version, mode, iter, secret, plain) != 6) return 2;
        int sn = unhex(secret, s), pn = unhex(plain, p), outn = 0;
        unsigned char *out = strcmp(mode, "key") == 0
            ? rncryptorc_encrypt_data_with_key(p, pn, atoi(iter), s, s + 32, &outn, err, sizeof err - 1)
            : rncryptorc_encrypt_data_with_password(p, pn, atoi(iter), (const char *)s, sn, &outn, err, sizeof err - 1);
        if (!out) { fprintf(stderr, "rncryptor-c: %s\n", err); return 1; }
        printf("%s\t", id); b64(out, outn); putchar('\n');
        free(out);
    }
    return 0;
}
"""

PY_DRIVER = r"""
import base64, sys, rncryptor
for line in sys.stdin:
    id, version, mode, iterations, secret, plain = line.rstrip('\n').split('\t')
    password = bytes.fromhex(secret).decode('utf-8')  # PyPI takes str and encodes it as UTF-8
    data = b'' if plain == '-' else bytes.fromhex(plain)
    out = rncryptor.RNCryptor().encrypt(data, password)
    print(id + '\t' + base64.b64encode(out).decode())
"""


def other_form(text):
    nfc, nfd = unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)
    if nfc == nfd:
        return None
    return nfd if text == nfc else nfc


def jobs_for(peer, caps):
    jobs = []
    for version in caps["versions"]:
        for (pname, password) in PASSWORDS:
            # rwsecret's JSCryptor form is the low byte per UTF-16 unit; plaintexts as bytes.
            for index, plaintext in enumerate(PLAINTEXTS):
                if pname != "ascii" and index == 2:
                    continue
                jobs.append(dict(version=version, mode="password", iterations=10000, secret=password.encode("utf-8"),
                                 candidate=password.encode("utf-8"), plaintext=plaintext, note=pname))
            other = other_form(password)
            if other is not None:
                jobs.append(dict(version=version, mode="password", iterations=10000, secret=password.encode("utf-8"),
                                 candidate=other.encode("utf-8"), plaintext=PLAINTEXTS[0],
                                 note=pname + ", opened with the other normalization form"))
    if 0 in caps["versions"]:
        # More than 256 counter blocks: v0's counter wraps its first byte.
        jobs.append(dict(version=0, mode="password", iterations=10000, secret=b"correct horse battery",
                         candidate=b"correct horse battery", plaintext=b"0123456789abcdef" * 300 + b"tail",
                         note="ascii, 301 counter blocks"))
    for iterations in caps["iterations"]:
        jobs.append(dict(version=3, mode="password", iterations=iterations, secret=b"correct horse battery",
                         candidate=b"correct horse battery", plaintext=PLAINTEXTS[0], note="ascii, %d iterations" % iterations))
    if caps["key"]:
        for plaintext in PLAINTEXTS:
            jobs.append(dict(version=3, mode="key", iterations=10000, secret=KEY, candidate=KEY, plaintext=plaintext, note="key"))
    return jobs


def run_peer(peer, command, jobs):
    lines = "".join("%d\t%d\t%s\t%d\t%s\t%s\n" % (i, j["version"], j["mode"], j["iterations"], j["secret"].hex(),
                                                   j["plaintext"].hex() or "-") for i, j in enumerate(jobs))
    result = subprocess.run(command, input=lines.encode(), capture_output=True, check=False)
    if result.returncode != 0:
        sys.exit("%s failed: %s" % (peer, result.stderr.decode(errors="replace")))
    out = {}
    for line in result.stdout.decode().splitlines():
        i, message = line.split("\t")
        out[int(i)] = message
    assert len(out) == len(jobs), peer
    return [out[i] for i in range(len(jobs))]


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    peers = os.path.abspath(args[0])
    python = args[args.index("--python") + 1] if "--python" in args else "python3"
    work = tempfile.mkdtemp(prefix="rwsecret-peers-")

    def write(name, text):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text.replace("%(peers)s", peers))
        return path

    c_source = write("driver.c", C_DRIVER)
    c_binary = os.path.join(work, "rncryptor-c-driver")
    cdir = os.path.join(peers, "RNCryptor-C")
    subprocess.run(["gcc", "-O1", "-w", "-DUNIX", "-DSTDC_HEADERS=1", "-DHAVE_STRING_H=1", "-DHAVE_STDLIB_H=1", "-DHAVE_UNISTD_H=1", "-DHAVE_FCNTL_H=1", "-DHAVE_CTYPE_H=1", "-I", cdir, "-o", c_binary, c_source,
                    os.path.join(cdir, "rncryptor_c.c"), os.path.join(cdir, "mutils.c"), "-lcrypto"], check=True)
    commands = {
        "php": ["php", write("driver.php", PHP_DRIVER)],
        "ruby": ["ruby", write("driver.rb", RUBY_DRIVER)],
        "jscryptor": ["node", write("driver.js", NODE_DRIVER)],
        "rncryptor-c": [c_binary],
        "pypi": [python, write("driver.py", PY_DRIVER)],
    }
    rows = ["# peer\tversion\tmode\titerations\tsecret_hex\tcandidate_hex\tplaintext_hex\tmessage_base64\tnote"
            "  (made by each peer's own code; Fixtures/peers/generate_peer_fixtures.py)"]
    for peer, caps in PEERS.items():
        jobs = jobs_for(peer, caps)
        messages = run_peer(peer, commands[peer], jobs)
        for job, message in zip(jobs, messages):
            raw = base64.b64decode(message)
            assert raw[0] == job["version"], (peer, job["note"])
            rows.append("\t".join([peer, str(job["version"]), job["mode"], str(job["iterations"]), job["secret"].hex(),
                                   job["candidate"].hex(), job["plaintext"].hex(), message, job["note"]]))
        print("%s: %d messages" % (peer, len(jobs)), file=sys.stderr)
    with open(os.path.join(HERE, "messages.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
