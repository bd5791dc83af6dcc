#!/usr/bin/env bash
# The side-by-side (`make bench-peers`): rwsecret against RNCryptor-C's rn_decrypt, PyPI
# rncryptor and OpenSSL's own command-line tools, in one run, round-robin, every output
# checked. The measurements are in scripts/side-by-side/driver.py; this script finds or
# prepares the contenders.
#
#   scripts/side-by-side.sh [RWSECRET]     (default .build/dist/rwsecret, from `make release`)
#
# RNCryptor-C is not part of this repository and is not built by it: give its rn_decrypt,
# built outside the repository, as RN_DECRYPT=/path/to/rn_decrypt (or put it on PATH, or at
# $PEERS_DIR/rn_decrypt). A VERSION (and COMMIT) file beside it is printed with the figures.
# Without it, its rows are left out with a note.
# PyPI rncryptor: the python3 on PATH when it can import it, else a virtual environment under
# $PEERS_DIR (pip install rncryptor, once); without either, its rows are left out with a note.
#
# Settings (environment): SIZES="16 256 1024" (MiB), QUICK=1 (smoke run: small sizes, few
# rounds), ROUNDS, MANY_ROUNDS, LARGE_ROUNDS, HUGE_ROUNDS, MESSAGES, PYPI_MESSAGES,
# PEER_RSS_LIMIT_MIB, CALLGRIND=0, CALLGRIND_PYPI=0, WORK (scratch, default
# .build/side-by-side), PEERS_DIR (default .build/peers).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
RWSECRET=${1:-${RWSECRET:-$root/.build/dist/rwsecret}}
PEERS_DIR=${PEERS_DIR:-$root/.build/peers}
WORK=${WORK:-$root/.build/side-by-side}
mkdir -p "$PEERS_DIR"

[ -x "$RWSECRET" ] || { echo "side-by-side: no rwsecret at $RWSECRET (run make release)" >&2; exit 1; }
RWSECRET=$(cd "$(dirname "$RWSECRET")" && pwd)/$(basename "$RWSECRET")

# RNCryptor-C's decryptor, prebuilt outside the repository.
if [ -z "${RN_DECRYPT:-}" ]; then
  if [ -x "$PEERS_DIR/rn_decrypt" ]; then RN_DECRYPT=$PEERS_DIR/rn_decrypt
  else RN_DECRYPT=$(command -v rn_decrypt || true); fi
fi
if [ -n "$RN_DECRYPT" ] && [ ! -x "$RN_DECRYPT" ]; then
  echo "side-by-side: RN_DECRYPT=$RN_DECRYPT is not an executable; RNCryptor-C's rows are left out" >&2
  RN_DECRYPT=
fi
[ -n "$RN_DECRYPT" ] || echo "side-by-side: note: no RNCryptor-C rn_decrypt (set RN_DECRYPT=/path/to/rn_decrypt, built outside this repository); its rows are left out" >&2

# PyPI rncryptor: the system python3 if it has it, else a venv under PEERS_DIR (the
# interpreter itself: a pyenv shim would add its own start-up to every sample, and valgrind
# would lose the process at exec).
PYPI_PYTHON=$(PEERS_DIR=$PEERS_DIR sh "$root/scripts/pypi-python.sh")
[ -n "$PYPI_PYTHON" ] || echo "side-by-side: note: no PyPI rncryptor; its rows are left out" >&2

# The per-process floor of a C program linked with libcrypto (our own, tiny).
FLOOR=$PEERS_DIR/floor
if [ ! -x "$FLOOR" ] || [ scripts/side-by-side/floor.c -nt "$FLOOR" ]; then
  # shellcheck disable=SC2046
  gcc -O2 scripts/side-by-side/floor.c -o "$FLOOR" $(pkg-config --cflags --libs libcrypto) || FLOOR=
fi

export RWSECRET RN_DECRYPT PYPI_PYTHON FLOOR WORK
exec python3 scripts/side-by-side/driver.py
