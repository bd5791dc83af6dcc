#!/bin/sh
# Proves the tool on the library's public API alone: builds a throw-away package
# (.build/thin-check) whose executable target compiles the files of Sources/rwsecret against
# this package's RWSecretKit product (which re-exports RWSecretCore: both modules' public API),
# by path, as any other consumer would. A `package`
# declaration of the library is not visible there, so every use of one is an error; the script
# lists them per file and fails.
# Usage: sh scripts/thin-check.sh   (from anywhere inside the repository; `make thin-check`)
#        sh scripts/thin-check.sh --typecheck   (`make test`: after `swift build --build-tests`)
# --typecheck gives the same answer in a fraction of the time: instead of building the library a
# second time in a throw-away package, it typechecks the tool's files with swiftc against the
# RWSecretKit module the test build just made (.build/debug/Modules), without the package's
# -package-name, so that again only `public` declarations are visible. Each file is its own
# primary file (batch mode), so every file's errors are listed, as in the package build.
set -eu
SWIFT=${SWIFT:-swift}
repo=$(git rev-parse --show-toplevel)
dir="$repo/.build/thin-check"

# Files not yet on the public API: their errors are counted and shown, but do not fail the
# check. Empty since the decrypt orchestration moved into the library (issue 33, item 4):
# keep it empty (a file here is a use of `package` API that a consumer could not make).
not_yet_thin=''

mode=package
[ "${1:-}" = "--typecheck" ] && mode=typecheck
mkdir -p "$dir"
log="$dir/build.txt"
status=0
if [ "$mode" = typecheck ]; then
  modules="$repo/.build/debug/Modules"
  for module in RWSecretCore RWSecretKit; do
    [ -f "$modules/$module.swiftmodule" ] || { echo "thin-check: no $modules/$module.swiftmodule: run swift build --build-tests first"; exit 1; }
  done
  # The C modules RWSecretKit was built with, as SwiftPM hands them to a dependent (as
  # PublicAPITests.typecheck does): every system library's module map in Sources/, the C kernel's
  # and swift-system's.
  set --
  for map in "$repo"/Sources/*/module.modulemap "$repo/.build/debug/CSHA1Kernel.build/module.modulemap" \
             "$repo/.build/checkouts/swift-system/Sources/CSystem/include/module.modulemap"; do
    [ -f "$map" ] && set -- "$@" -Xcc "-fmodule-map-file=$map"
  done
  # Absolute paths, so that the errors name files as the package build's do.
  find "$repo/Sources/rwsecret" -name '*.swift' | LC_ALL=C sort > "$dir/files.txt"
  "$SWIFT"c -typecheck -swift-version 6 -module-name rwsecretThin -I "$modules" "$@" \
    -enable-batch-mode -j 2 -driver-batch-count 8 $(cat "$dir/files.txt") > "$log" 2>&1 || status=$?
else
  # The tool's module is named rwsecretThin: target names are unique across a package graph.
  mkdir -p "$dir/Sources"
  ln -sfn "$repo/Sources/rwsecret" "$dir/Sources/rwsecretThin"
  cat > "$dir/Package.swift" <<EOF
// swift-tools-version:6.0
// Written by scripts/thin-check.sh: the tool's sources against RWSecretKit's public API.
import PackageDescription

let package = Package(
    name: "thin-check",
    dependencies: [
        .package(name: "rwsecret", path: "$repo"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        .executableTarget(name: "rwsecretThin", dependencies: [
            .product(name: "RWSecretKit", package: "rwsecret"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
    ]
)
EOF
  # The same versions of the shared dependencies as the tool's own build (no resolution online).
  [ -f "$repo/Package.resolved" ] && cp "$repo/Package.resolved" "$dir/Package.resolved"
  (cd "$dir" && "$SWIFT" build --product rwsecretThin) > "$log" 2>&1 || status=$?
fi

# One line per distinct error: FILE:LINE:COL: error: …, the file relative to Sources/rwsecret.
errors="$dir/errors.txt"
grep -E '^/.*\.swift:[0-9]+:[0-9]+: error: ' "$log" \
  | sed -e "s|^$repo/Sources/rwsecret/||" -e "s|^$dir/Sources/rwsecretThin/||" \
  | sort -u > "$errors" || true

allowed() {
  for entry in $not_yet_thin; do
    case "$1" in "$entry"*) return 0 ;; esac
  done
  return 1
}

failing=0
waived=0
for file in $(cut -d: -f1 "$errors" | sort -u); do
  count=$(grep -c "^$file:" "$errors")
  if allowed "$file"; then
    waived=$((waived + count))
    echo "not yet thin: $file: $count"
  else
    failing=$((failing + count))
    grep "^$file:" "$errors"
  fi
done

if [ "$failing" -gt 0 ]; then
  echo "thin-check: FAILED: $failing uses of the library's non-public API outside the not-yet-thin files ($waived in them); full log: $log"
  exit 1
fi
if [ "$status" -ne 0 ] && [ "$waived" -eq 0 ]; then
  # The build failed without a compiler error the script understands: show the log's end.
  tail -n 30 "$log"
  echo "thin-check: FAILED: the build failed; full log: $log"
  exit 1
fi
echo "thin-check: ok: the tool's files outside the not-yet-thin list use only RWSecretKit's and RWSecretCore's public API ($waived errors in not-yet-thin files)"
