#if canImport(Glibc)
import Glibc
#endif

/// `decrypt --allow-legacy` and `RWSECRET_ALLOW_LEGACY`: whether v0 and v1 messages are opened.
enum LegacyOption {
    static let environmentVariable = "RWSECRET_ALLOW_LEGACY"

    /// The flag, else `RWSECRET_ALLOW_LEGACY` (1 allows; 0 or empty refuses; anything else is bad usage, 64).
    static func allowed(flag: Bool) throws -> Bool {
        if flag { return true }
        guard let raw = getenv(environmentVariable) else { return false }
        switch String(cString: raw) {
        case "1": return true
        case "0", "": return false
        default: throw CommandFailure(.usage, "\(environmentVariable) must be 1 (open v0 and v1 messages) or 0")
        }
    }
}
