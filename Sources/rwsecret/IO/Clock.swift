import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time for `--verbose` timings and the progress line.
enum Clock {
    static var now: timespec {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts
    }

    static func millisecondsSince(_ start: timespec) -> Int {
        let end = now
        return (end.tv_sec - start.tv_sec) * 1000 + (end.tv_nsec - start.tv_nsec) / 1_000_000
    }
}
