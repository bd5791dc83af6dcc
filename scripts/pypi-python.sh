#!/bin/sh
# Prints the path of a Python interpreter that imports the PyPI `rncryptor` package (a peer
# implementation: the interop test of `make test` and the side-by-side of `make bench-peers`
# run it): the system python3 when it has the package, else a virtual environment under
# PEERS_DIR (default .build/peers), made and filled with pip the first time. The interpreter
# itself, not a wrapper (a pyenv shim is a script that execs it). Prints nothing, with a note
# on stderr, when the package cannot be had (no python3, no venv module, offline); exits 0.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
peers=${PEERS_DIR:-$root/.build/peers}
python=
if python3 -c 'import rncryptor' 2>/dev/null; then
  python=python3
else
  venv=$peers/venv
  if ! "$venv/bin/python" -c 'import rncryptor' 2>/dev/null; then
    echo "pypi-python: installing PyPI rncryptor into $venv" >&2
    # Short timeouts and one retry: offline, this gives up in seconds instead of minutes.
    { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check \
        --timeout 15 --retries 1 rncryptor; } >&2 || true
  fi
  if "$venv/bin/python" -c 'import rncryptor' 2>/dev/null; then python=$venv/bin/python
  else echo "pypi-python: note: PyPI rncryptor could not be installed (offline?)" >&2; fi
fi
[ -z "$python" ] || "$python" -c 'import sys; print(sys.executable)'
