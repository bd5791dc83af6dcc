#!/bin/sh
# Before tagging a release: the version of Version.swift has its CHANGELOG.md section, a package
# depending on this one by URL and `from:` that version builds and decrypts (scripts/consumer-check.sh),
# the public API matches api.txt (scripts/api-check.py), and, when the repository has a tag, nothing
# public broke since the last one (`swift package diagnose-api-breaking-changes`). Without a tag
# there is no baseline: that last step says so and is skipped (the first release is the baseline).
# Usage: sh scripts/release-check.sh   (from the repository root; SWIFT names the driver)
set -eu
SWIFT=${SWIFT:-swift}
version=$(sh scripts/version.sh)
echo "release-check: version $version (Sources/RWSecretCore/Support/Version.swift)"

grep -Eq "^## \[(Unreleased|$version)\]" CHANGELOG.md || {
    echo "release-check: CHANGELOG.md has neither an [Unreleased] nor a [$version] section" >&2; exit 1; }

# Where the docs show a dependency on rwsecret, it is on this version (the version's one place is Version.swift).
stale=$(grep -rnE 'rwsecret[^"]*", from: "[0-9]' README.md docs/library.md Sources/RWSecretKit/RWSecretKit.docc Sources/RWSecretCore/RWSecretCore.docc | grep -v "from: \"$version\"" || true)
if [ -n "$stale" ]; then
    echo "release-check: a snippet depends on another version than $version:" >&2
    echo "$stale" >&2
    exit 1
fi

SWIFT="$SWIFT" python3 scripts/api-check.py check
SWIFT="$SWIFT" RWSECRET_CONSUMER_VERSION="$version" sh scripts/consumer-check.sh

SWIFT="$SWIFT" sh scripts/api-breaking.sh
echo "release-check: passed for $version"
