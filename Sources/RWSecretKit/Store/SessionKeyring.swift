internal import CLinuxSyscalls
#if canImport(Glibc)
internal import Glibc
#endif

/// The vault passphrase kept in the kernel's session keyring (keyrings(7)), like
/// `ssh-add -t`: no daemon, gone when it expires, when `forget` is called, or when
/// the login session ends.
///
/// One key of type `user` per vault, described `rwsecret:vault:<absolute path>`, in
/// the session keyring, with a kernel timeout. Its payload is the expiry (8 bytes,
/// big-endian Unix seconds, so `status` can say until when) followed by the
/// passphrase. The kernel's default permissions let only processes that possess
/// the key (those of this session) read it.
///
/// The only file that makes keyctl calls (through `CLinuxSyscalls`'s syscall wrappers).
package enum SessionKeyring {
    /// How long a passphrase is kept when no duration is given: 15 minutes.
    package static let defaultLifetime: Duration = .seconds(15 * 60)

    /// A passphrase held for a vault, and until when.
    package struct Held: Sendable {
        package let passphrase: SecretBytes
        /// Unix time (seconds) at which the kernel forgets it.
        package let expiry: Int64
    }

    /// The key's description for the vault at `path` (made absolute, symbolic links
    /// followed, so that every path to one vault finds the same key).
    package static func description(forVault path: String) -> String {
        "rwsecret:vault:" + absolute((try? StoreFiles.resolvingLinks(path)) ?? path)
    }

    /// Keeps `passphrase` for the vault at `path` for `lifetime` (at least one second);
    /// replaces what was held for it. Returns the expiry (Unix seconds).
    @discardableResult
    package static func store(_ passphrase: SecretBytes, forVault path: String, lifetime: Duration) throws(StoreError) -> Int64 {
        let seconds = max(1, lifetime.components.seconds)
        let expiry = Int64(time(nil)) + seconds
        try store(passphrase, forVault: path, expiry: expiry)
        return expiry
    }

    /// Keeps `passphrase` until `expiry` (Unix seconds).
    static func store(_ passphrase: SecretBytes, forVault path: String, expiry: Int64) throws(StoreError) {
        let seconds = expiry - Int64(time(nil))
        guard seconds > 0 else { return }
        let length = 8 + passphrase.count
        let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 8)
        defer { Crypto.cleanse(payload); payload.deallocate() }
        withUnsafeBytes(of: UInt64(expiry).bigEndian) { payload.copyMemory(from: $0) }
        passphrase.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: payload[8...]).copyMemory(from: $0) }
        let key = rws_add_key("user", description(forVault: path), payload.baseAddress, length, rws_session_keyring)
        guard key >= 0 else { throw .sessionKeyring(operation: "keep the passphrase", errno: errno) }
        guard rws_keyctl_set_timeout(rws_key_serial(key), UInt32(clamping: seconds)) == 0 else {
            let code = errno
            _ = rws_keyctl_invalidate(rws_key_serial(key))
            throw .sessionKeyring(operation: "set the passphrase's timeout", errno: code)
        }
    }

    /// What is held for the vault at `path`, or nil when nothing is (or it has expired).
    package static func lookUp(forVault path: String) throws(StoreError) -> Held? {
        guard let key = try find(path) else { return nil }
        var size = 1024 + 8
        while true {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
            defer { Crypto.cleanse(buffer); buffer.deallocate() }
            let length = rws_keyctl_read(key, buffer.baseAddress, size)
            if length < 0 {
                if [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) { return nil }
                throw .sessionKeyring(operation: "read the passphrase", errno: errno)
            }
            if length > size { size = length; continue }
            guard length > 8 else { return nil }
            var expiry: UInt64 = 0
            for byte in buffer[0..<8] { expiry = expiry << 8 | UInt64(byte) }
            guard Int64(expiry) > Int64(time(nil)) else { return nil }
            return Held(passphrase: SecretBytes(UnsafeRawBufferPointer(rebasing: buffer[8..<length])), expiry: Int64(expiry))
        }
    }

    /// Forgets what is held for the vault at `path`; whether something was.
    @discardableResult
    package static func forget(vault path: String) throws(StoreError) -> Bool {
        guard let key = try find(path) else { return false }
        if rws_keyctl_invalidate(key) == 0 { return true }
        // Kernels before 3.5 have no KEYCTL_INVALIDATE.
        if rws_keyctl_unlink(key, rws_session_keyring) == 0 { return true }
        if [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) { return false }
        throw .sessionKeyring(operation: "forget the passphrase", errno: errno)
    }

    /// Whether the session keyring is the user's default one (`_uid_ses.UID`), which every
    /// process of this user that has no session keyring of its own shares; nil when unknown.
    package static func sessionIsSharedUserDefault() -> Bool? {
        let id = rws_keyctl_get_keyring_id(rws_session_keyring, 0)
        guard id >= 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 512)
        let length = rws_keyctl_describe(rws_key_serial(id), &buffer, buffer.count)
        guard length > 0 else { return nil }
        let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: ";").last?.hasPrefix("_uid_ses.") ?? nil
    }

    /// Joins a new, empty, anonymous session keyring (for tests: what `keyctl new_session` does).
    package static func joinNewSession() throws(StoreError) {
        guard rws_keyctl_join_session_keyring(nil) >= 0 else { throw .sessionKeyring(operation: "start a new session keyring", errno: errno) }
    }

    /// Words for the errors a container or an old kernel gives.
    package static func describe(errno code: Int32) -> String {
        switch code {
        case ENOSYS: "this kernel has no key retention service (ENOSYS)"
        case EPERM, EACCES: "permission denied (\(code == EPERM ? "EPERM" : "EACCES"); a container's seccomp profile may forbid keyctl)"
        case EDQUOT: "the user's key quota is full (EDQUOT; see /proc/sys/kernel/keys/maxkeys and maxbytes)"
        default: String(cString: strerror(code))
        }
    }

    // MARK: - Helpers

    private static func find(_ path: String) throws(StoreError) -> rws_key_serial? {
        let key = rws_keyctl_search(rws_session_keyring, "user", description(forVault: path))
        if key < 0 {
            if [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) { return nil }
            throw .sessionKeyring(operation: "look for the passphrase", errno: errno)
        }
        return rws_key_serial(key)
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let folder = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (folder == "/" ? "" : folder) + "/" + path
    }
}
