#if canImport(Glibc)
internal import Glibc
#endif

/// The memory this process's costly work may hold at once: the scrypt and Argon2 tries of age
/// and OpenPGP passwords (256 MiB a try at age's default work factor) and the buffers of
/// streams being decrypted, whichever opener or stream asks. Work that would go past it waits
/// for other work to release its share; work larger than the whole budget runs alone. So the
/// budget bounds how much runs together, never whether something can run.
///
/// A program that opens messages from many tasks at once sets it once, before the first open
/// (the tool does, from `decrypt --memory SIZE` or half the memory available); until then each
/// opener's `MessageOpener.memory` bounds its own tries alone.
///
/// ```swift
/// if let bytes = ProcessMemory.parseSize("2G") { ProcessMemory.limit(to: bytes) }
/// ```
public enum ProcessMemory {
    /// Sets the budget every opener and stream of this process shares (0: none set, each
    /// opener's `MessageOpener.memory` alone).
    public static func limit(to bytes: Int) {
        Scheduler.shared.limitMemory(to: bytes)
    }

    /// A size as people write it: `512M`, `4G`, `1.5G`, `300MiB`, `65536K`, `2147483648`
    /// (bytes). Units are binary (K = 1024, then M, G, T), in either case, optionally followed
    /// by `B` or `iB`. Nil for anything else, for zero, and for an exbibyte or more.
    public static func parseSize(_ text: String) -> Int? {
        var digits = Substring(text)
        var unit = 1.0
        for suffix in ["iB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits = digits.dropLast(suffix.count)
            break
        }
        if let last = digits.last, let power = ["K": 1.0, "M": 2.0, "G": 3.0, "T": 4.0][String(last).uppercased()] {
            unit = pow(1024, power)
            digits = digits.dropLast()
        } else if text.hasSuffix("iB") {
            return nil  // "iB" needs a unit before it
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), digits.filter({ $0 == "." }).count <= 1,
              let value = Double(digits), value.isFinite else { return nil }
        let bytes = value * unit
        guard bytes >= 1, bytes < Double(1 << 60) else { return nil }
        return Int(bytes)
    }
}
