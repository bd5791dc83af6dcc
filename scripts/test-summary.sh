#!/bin/sh
# The short summary `make test` ends with: what ran, what failed, and every skipped
# test with its reason, read from the saved output of `swift test`.
# Usage: test-summary.sh LOG STATUS [INSTALL_CHECK_LOG]
log=$1 status=$2 install=$3
echo
echo "== summary =="
# Swift Testing's last line: "✔ Test run with N tests in M suites passed after …".
run=$(grep -a -E '^. Test run with [0-9]+ tests?' "$log" | tail -n 1 | sed -E 's/^. //; s/ after [0-9.]+ seconds//')
[ -n "$run" ] && echo "swift test: $run" || echo "swift test: no test run line found (see $log)"
xctest=$(grep -a -E "Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -n 1 | sed -E 's/^[[:space:]]+//; s/ in [0-9.]+ \([0-9.]+\) seconds//')
case "$xctest" in ""|"Executed 0 tests"*) ;; *) echo "XCTest: $xctest" ;; esac
# Swift Testing: 'Test "NAME" skipped: "REASON"' (a test whose name says "skipped" is not one).
skipped=$(grep -a -E '^. (Test|Suite) .* skipped' "$log" | grep -a -v -E ' (started|passed after|failed after)' | sed -E 's/^. //' | sort -u)
if [ -n "$skipped" ]; then
  echo "skipped ($(printf '%s\n' "$skipped" | wc -l)):"
  printf '%s\n' "$skipped" | sed 's/^/  - /'
else
  echo "skipped: none"
fi
failed=$(grep -a -E '^. Test ".*" (with [0-9]+ test cases )?failed' "$log" | sed -E 's/^. //; s/ after [0-9.]+ seconds.*//' | sort -u)
if [ -n "$failed" ]; then
  echo "failed:"
  printf '%s\n' "$failed" | sed 's/^/  - /'
fi
if [ -n "$install" ] && [ -f "$install" ]; then
  echo "installed binary: $(tail -n 1 "$install")"
fi
[ "$status" -eq 0 ] && echo "result: PASSED" || echo "result: FAILED (exit $status; full output in $log)"
exit "$status"
