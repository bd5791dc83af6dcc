#!/bin/sh
# Prints the version: its one place is Sources/RWSecretCore/Support/Version.swift (`rwsecret --version`
# shows it; the Makefile, the consumer check and the release check read it from there).
root=$(dirname "$0")/..
sed -n 's/^public let version = "\([^"]*\)"$/\1/p' "$root/Sources/RWSecretCore/Support/Version.swift"
