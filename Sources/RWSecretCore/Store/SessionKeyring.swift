internal import CLinuxSyscalls
#if canImport(Glibc)
internal import Glibc
#endif

/// The vault passphrase kept in the kernel's keyrings (keyrings(7)), like `ssh-add -t`:
/// no daemon, gone when it expires, when `forget` is called, or when the login session ends.
///
/// One key of type `user` per vault, described `rwsecret:vault:<absolute path>`, with a
/// kernel timeout. Its payload is the expiry (8 bytes, big-endian Unix seconds, so that a
/// reader can say until when) followed by the passphrase. The rwsecret tool's `vault unlock`
/// keeps one, and its vault passphrase is looked up here first: a program that keeps or
/// looks up a vault's passphrase here shares it with the tool.
///
/// Where: the session keyring when the process has one of its own (a login session,
/// `keyctl new_session`). Otherwise (cron, tmux started from a non-login shell, a service:
/// no session keyring, only the user's shared default `_uid_ses.UID`, or one revoked at
/// logout) the user keyring `@u`: adding to the session keyring there would make the
/// kernel create a private one for this process alone, which dies with it.
///
/// Who: the key grants every right to its owner's UID and none to anyone else, not even to
/// its possessors, so another user who inherits the session keyring (`su`, `runuser`), and
/// with it the user keyring linked from it, cannot read it. It is made in this process's
/// own keyring, given its permissions and timeout, and only then linked where it is kept:
/// it is never reachable with the kernel's default permissions (all rights to possessors).
///
/// Errors are ``StoreError``s (a container or an old kernel may have no keyrings).
public enum SessionKeyring {
    /// How long a passphrase is kept when no duration is given: 15 minutes.
    public static let defaultLifetime: Duration = .seconds(15 * 60)

    /// Where a passphrase is kept.
    public enum Place: Sendable, Equatable {
        /// The login session's keyring: only this session's processes search it.
        case session
        /// The user keyring (`@u`): every process of the user finds it.
        case user
    }

    /// A passphrase held for a vault, and until when.
    public struct Held: Sendable {
        /// The vault's passphrase.
        public let passphrase: SecretBytes
        /// Unix time (seconds) at which the kernel forgets it.
        public let expiry: Int64
    }

    /// The key's permissions: view, read, write, search, link and set-attribute for a
    /// process whose UID owns it (`KEY_USR_ALL`); nothing for possessors, group or others.
    package static let ownerOnlyPermissions: UInt32 = 0x003f_0000

    /// The key's description for the vault at `path` (made absolute, symbolic links
    /// followed, so that every path to one vault finds the same key).
    package static func description(forVault path: String) -> String {
        "rwsecret:vault:" + absolute((try? StoreFiles.resolvingLinks(path)) ?? path)
    }

    /// Where a passphrase kept now would be: the session keyring when this process has one
    /// of its own, else the user keyring. Asks without creating anything.
    package static func placeForNewKey() -> Place {
        let session = rws_keyctl_get_keyring_id(rws_session_keyring, 0)
        // None (kernels before 5.3 say so), or revoked or expired (pam_keyinit's `revoke` at logout).
        guard session >= 0 else { return .user }
        // The user's default session keyring, which the kernel gives a process without one.
        let shared = rws_keyctl_get_keyring_id(rws_user_session_keyring, 0)
        return session == shared ? .user : .session
    }

    /// Keeps `passphrase` for the vault at `path` for `lifetime` (at least one second);
    /// replaces what was held for it. Returns the expiry (Unix seconds) and where it is kept.
    @discardableResult
    public static func store(_ passphrase: SecretBytes, forVault path: String,
                             lifetime: Duration) throws(StoreError) -> (expiry: Int64, place: Place) {
        let seconds = max(1, lifetime.components.seconds)
        let expiry = Int64(time(nil)) + seconds
        let place = try store(passphrase, forVault: path, expiry: expiry) ?? placeForNewKey()
        return (expiry, place)
    }

    /// Keeps `passphrase` until `expiry` (Unix seconds); where, or nil when `expiry` has passed.
    @discardableResult
    static func store(_ passphrase: SecretBytes, forVault path: String, expiry: Int64) throws(StoreError) -> Place? {
        let seconds = expiry - Int64(time(nil))
        guard seconds > 0 else { return nil }
        let place = placeForNewKey()
        let length = 8 + passphrase.count
        let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 8)
        defer { Crypto.cleanse(payload); payload.deallocate() }
        withUnsafeBytes(of: UInt64(expiry).bigEndian) { payload.copyMemory(from: $0) }
        passphrase.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: payload[8...]).copyMemory(from: $0) }
        // Made where only this process reaches it; linked where later commands find it only
        // once it is its owner's alone and has its timeout.
        let made = rws_add_key("user", description(forVault: path), payload.baseAddress, length, rws_process_keyring)
        guard made >= 0 else { throw .sessionKeyring(operation: "keep the passphrase", errno: errno) }
        let key = rws_key_serial(made)
        defer { _ = rws_keyctl_unlink(key, rws_process_keyring) }
        func failure(_ operation: String) -> StoreError {
            let code = errno
            _ = rws_keyctl_invalidate(key)
            return .sessionKeyring(operation: operation, errno: code)
        }
        guard rws_keyctl_setperm(key, ownerOnlyPermissions) == 0 else { throw failure("make the passphrase its owner's only") }
        guard rws_keyctl_set_timeout(key, UInt32(clamping: seconds)) == 0 else { throw failure("set the passphrase's timeout") }
        // Replaces a key of the same description there.
        guard rws_keyctl_link(key, place == .session ? rws_session_keyring : rws_user_keyring) == 0 else {
            throw failure(place == .session ? "keep the passphrase" : "keep the passphrase in the user keyring")
        }
        return place
    }

    /// What is held for the vault at `path`, or nil when nothing is (or it has expired).
    public static func lookUp(forVault path: String) throws(StoreError) -> Held? {
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

    /// The serial number of the key held for the vault at `path`, or nil (for tests).
    package static func keySerial(forVault path: String) throws(StoreError) -> Int32? { try find(path) }

    /// Forgets what is held for the vault at `path` (in the session keyring and in the user
    /// keyring); whether something was.
    @discardableResult
    public static func forget(vault path: String) throws(StoreError) -> Bool {
        var forgotten = false
        // One key a round; a passphrase is held in two places at most (an unlock without a
        // session keyring, and one in a login session).
        for _ in 0..<4 {
            guard let key = try find(path) else { break }
            if rws_keyctl_invalidate(key) == 0 { forgotten = true; continue }
            // Kernels before 3.5 have no KEYCTL_INVALIDATE.
            let unlinked = [rws_session_keyring, rws_user_keyring].filter { rws_keyctl_unlink(key, $0) == 0 }
            if unlinked.isEmpty {
                if [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) { break }
                throw .sessionKeyring(operation: "forget the passphrase", errno: errno)
            }
            forgotten = true
        }
        return forgotten
    }

    /// Joins a new, empty, anonymous session keyring (for tests: what `keyctl new_session` does).
    package static func joinNewSession() throws(StoreError) {
        guard rws_keyctl_join_session_keyring(nil) >= 0 else { throw .sessionKeyring(operation: "start a new session keyring", errno: errno) }
    }

    /// Revokes this thread's session keyring (for tests: what pam_keyinit's `revoke` does at
    /// logout, which leaves a tmux started in that session without a usable one).
    package static func revokeSession() throws(StoreError) {
        guard rws_keyctl_revoke(rws_session_keyring) == 0 else { throw .sessionKeyring(operation: "be revoked", errno: errno) }
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

    /// The key held for the vault at `path`: in the session keyring (or a keyring linked
    /// from it), else in the user keyring.
    private static func find(_ path: String) throws(StoreError) -> rws_key_serial? {
        let description = description(forVault: path)
        let key = rws_keyctl_search(rws_session_keyring, "user", description)
        if key >= 0 { return rws_key_serial(key) }
        // Not there, or no session keyring to search (revoked at logout): the user keyring.
        guard [ENOKEY, EKEYEXPIRED, EKEYREVOKED, EACCES].contains(errno) else {
            throw .sessionKeyring(operation: "look for the passphrase", errno: errno)
        }
        let kept = rws_keyctl_search(rws_user_keyring, "user", description)
        if kept >= 0 { return rws_key_serial(kept) }
        if [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) { return nil }
        throw .sessionKeyring(operation: "look for the passphrase", errno: errno)
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let folder = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (folder == "/" ? "" : folder) + "/" + path
    }
}
