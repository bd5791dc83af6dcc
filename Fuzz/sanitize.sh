#!/usr/bin/env bash
# make sanitize: the test suite under AddressSanitizer, then under ThreadSanitizer, then the
# threaded paths of the sanitized binary, many times over.
#
#     Fuzz/sanitize.sh [SWIFT] [address|thread ...]     (default: swift, both)
#
# Each sanitizer has its own scratch path (.build-asan, .build-tsan) holding a sanitized
# build of everything: the library, the `rwsecret` binary that the CLI tests run (so the
# children are checked too), and the tests. Reports from the test process and from every
# child go to files, .build-?san/reports/{tests,stress}/{asan,tsan}.PID (RWSecretProcess passes
# ASAN_OPTIONS/TSAN_OPTIONS on); any report, or any failed test, fails the target.
#
# - ASan runs with detect_leaks=0: at exit the test process still holds what Swift Testing,
#   Foundation's Process and GLib keep until the end (hundreds of "leaks" that are not);
#   leaks are checked per input by the fuzz targets instead (make fuzz).
# - The stress step: the ordered pipeline (decrypt of a file of lines, --jobs 1 to 8) and
#   the two-thread --binary stream (one candidate and -o; two candidates; a pipe), each
#   several times, checked against the expected output.
set -uo pipefail
swift=${1:-swift}
[ $# -gt 0 ] && shift
if [ $# -gt 0 ]; then sanitizers=("$@"); else sanitizers=(address thread); fi
cd "$(dirname "$0")/.."
failed=0

# Prints the reports in $1 (first lines of each) and says whether there were any.
check_reports() {
    local reports=$1 what=$2
    shopt -s nullglob
    local files=("$reports"/*)
    shopt -u nullglob
    if [ ${#files[@]} -gt 0 ]; then
        echo "!! $what: ${#files[@]} sanitizer report(s) in $reports:"
        for f in "${files[@]}"; do
            echo "--- $f"
            grep -m1 -E '^(==[0-9]+==ERROR|WARNING: ThreadSanitizer|SUMMARY)' "$f"
            grep -m6 -E '^ +#[0-9]+ .*/(Sources|Tests)/' "$f"
        done
        return 1
    fi
    echo "== $what: no sanitizer report"
}

# The sanitized binary on the threaded paths, $rounds times each; $1 = the binary. Ten
# candidate passwords, and lines under the last, a middle and the first: a line the head
# does not open has its successors' keys derived in batches on several threads.
stress() {
    local bin=$1 rounds=3
    # Run in a subshell: the exports and the clean-up trap stay in it.
    work=$(mktemp -d /tmp/rwsecret-sanitize-XXXXXX)
    trap 'rm -rf "$work"' EXIT
    export HOME="$work" XDG_DATA_HOME="$work/data" XDG_RUNTIME_DIR="$work" TMPDIR="$work" \
           DBUS_SESSION_BUS_ADDRESS="unix:path=$work/no-bus"
    seq -f 'password %02g' 1 10 > "$work/passwords"
    : > "$work/lines"; : > "$work/expected"
    for i in $(seq 1 48); do
        case $((i % 3)) in 0) pw="password 10" ;; 1) pw="password 06" ;; 2) pw="password 01" ;; esac
        echo "line $i under $pw" >> "$work/expected"
        echo "line $i under $pw" | RWSECRET_PASSWORD=$pw "$bin" encrypt >> "$work/lines" || return 1
    done
    head -c $((6 << 20)) /dev/urandom > "$work/plain.bin"
    RWSECRET_PASSWORD="password 06" "$bin" encrypt --binary -o "$work/message.bin" "$work/plain.bin" || return 1
    echo "password 06" > "$work/one"
    # Runs "$@" with stdin from $stdin (default /dev/null) and stdout to $work/stdout, then
    # compares $output (default: that stdout) with $expected. Says which run failed and how.
    run_check() {
        local what=$1; shift
        rm -f "$work/stdout" "$work/out.bin"
        "$@" < "${stdin:-/dev/null}" > "$work/stdout"
        local status=$?
        [ $status -eq 0 ] || { echo "!! $what: exit $status"; return 1; }
        cmp -s "${output:-$work/stdout}" "$expected" || { echo "!! $what: wrong output"; return 1; }
    }
    head -1 "$work/lines" > "$work/line1"; head -1 "$work/expected" > "$work/expected1"
    local decrypt=("$bin" decrypt --quiet --no-store) bad=0
    for round in $(seq 1 $rounds); do
        for jobs in 1 2 3 8; do
            expected="$work/expected" run_check "decrypt --jobs $jobs" \
                "${decrypt[@]}" --password-file "$work/passwords" --jobs $jobs "$work/lines" || bad=1
        done
        # One message alone on a stream: it gets both threads for its candidates' keys.
        expected="$work/expected1" stdin="$work/line1" run_check "decrypt of one line from stdin" \
            "${decrypt[@]}" --password-file "$work/passwords" --jobs 2 - || bad=1
        expected="$work/plain.bin" output="$work/out.bin" run_check "--binary, one candidate, -o" \
            "${decrypt[@]}" --binary --password-file "$work/one" -o "$work/out.bin" "$work/message.bin" || bad=1
        expected="$work/plain.bin" output="$work/out.bin" run_check "--binary, ten candidates, -o" \
            "${decrypt[@]}" --binary --password-file "$work/passwords" -o "$work/out.bin" "$work/message.bin" || bad=1
        expected="$work/plain.bin" stdin="$work/message.bin" run_check "--binary from stdin to stdout" \
            "${decrypt[@]}" --binary --password-file "$work/one" || bad=1
    done
    [ $bad -eq 0 ] || return 1
    echo "== stress: $rounds rounds of decrypt --jobs 1/2/3/8 (48 lines, 10 candidates), one line from stdin, --binary (6 MiB, three ways): right output, exit 0"
}

for sanitizer in "${sanitizers[@]}"; do
    case $sanitizer in
        address) scratch=.build-asan variable=ASAN_OPTIONS options="detect_leaks=0" ;;
        thread) scratch=.build-tsan variable=TSAN_OPTIONS options="halt_on_error=0" ;;
        *) echo "unknown sanitizer $sanitizer"; exit 2 ;;
    esac
    reports="$PWD/$scratch/reports"
    rm -rf "$reports" && mkdir -p "$reports/tests" "$reports/stress"
    echo "== swift test --sanitize=$sanitizer (in $scratch; log: $scratch/test.log)"
    if ! "$swift" build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" > "$scratch/build.log" 2>&1; then
        tail -30 "$scratch/build.log"; failed=1; continue
    fi
    export "$variable=log_path=$reports/tests/${sanitizer:0:1}san:$options"
    "$swift" test --skip-build --disable-xctest --sanitize="$sanitizer" --scratch-path "$scratch" > "$scratch/test.log" 2>&1
    status=$?
    grep -E '✘|Test run with' "$scratch/test.log" | tail -40
    [ $status -eq 0 ] || { echo "!! the test suite failed under $sanitizer (exit $status)"; failed=1; }
    check_reports "$reports/tests" "tests under $sanitizer" || failed=1

    export "$variable=log_path=$reports/stress/${sanitizer:0:1}san:$options"
    bin="$("$swift" build --sanitize="$sanitizer" --scratch-path "$scratch" --show-bin-path)/rwsecret"
    ( stress "$bin" ) || failed=1
    check_reports "$reports/stress" "stress under $sanitizer" || failed=1
    unset "$variable"
done
[ $failed -eq 0 ] && echo "== make sanitize: clean" || echo "!! make sanitize: FAILED (see above)"
exit $failed
