#!/bin/sh
# `make api-breaking`: `swift package diagnose-api-breaking-changes` for the library products
# (RWSecretCore, RWSecretKit, RNCryptorCompat) against the latest tag, the public API's baseline; fails on any
# breaking change and lists it. Without a tag (a clone that has not fetched it), api.txt is the
# baseline: the last release's API, and its version (scripts/api-check.py breaking lists what is
# gone, and fails unless Version.swift's major version is above api.txt's). It builds the tagged
# version too, so it is not part of `make test`; `make release-check` runs it, and CI can run it
# on its own. The tag before RWSecretCore (none was made) had RWSecretKit's symbols in one module:
# against such a tag, a symbol that moved to RWSecretCore is listed as removed from RWSecretKit
# although `import RWSecretKit` still reaches it (re-exported); api.txt's check knows that.
# Usage: sh scripts/api-breaking.sh   (from the repository root; SWIFT names the driver)
set -eu
SWIFT=${SWIFT:-swift}
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "api-breaking: not a git clone, so no tags and no baseline for diagnose-api-breaking-changes (skipped)"
    exit 0
fi
last=$(git describe --tags --abbrev=0 2>/dev/null || true)
if [ -z "$last" ]; then
    echo "api-breaking: no tag here, so api.txt is the baseline"
    exec python3 scripts/api-check.py breaking
fi
echo "api-breaking: the public API of RWSecretCore, RWSecretKit and RNCryptorCompat against $last (the latest tag)"
"$SWIFT" package diagnose-api-breaking-changes "$last" --products RWSecretCore RWSecretKit RNCryptorCompat
echo "api-breaking: nothing public broke since $last"
