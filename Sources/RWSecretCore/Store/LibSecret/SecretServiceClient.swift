internal import CLibSecret
#if canImport(Glibc)
internal import Glibc
#endif

/// One item of ours in the keyring, as listed (no secret).
struct KeyringItem: Sendable, Equatable {
    let label: String
    /// The creation counter that keeps the order items were added.
    let order: Int
    /// The `kind` attribute of an identity (`age-x25519`); nil for a password.
    var kind: String? = nil
}

/// Which of rwsecret's schemas a call is about: `org.rwsecret.Password` or `org.rwsecret.Identity`.
enum KeyringSchema: Sendable {
    case password
    case identity

    var isIdentity: Int32 { self == .identity ? 1 : 0 }
}

/// The default collection: its D-Bus object path and whether it is locked.
struct KeyringCollection: Sendable, Equatable {
    let path: String
    let locked: Bool
}

/// The Secret Service through libsecret, loaded with dlopen on first use.
///
/// The only Swift type that touches GLib or libsecret pointers (with `shim.h`).
/// Every call is synchronous; libsecret's own GDBus connection is shared by
/// the whole process (GDBus keeps the first session bus it connects to).
final class SecretServiceClient: @unchecked Sendable {
    // The entry-point table: filled once by `rws_libsecret_load`, read-only afterwards.
    private let api: UnsafePointer<rws_libsecret>

    private init(api: UnsafePointer<rws_libsecret>) { self.api = api }

    /// The loaded library, or why it could not be loaded (loaded once per process).
    private static let loaded: Result<SecretServiceClient, StoreError> = {
        var missing: UnsafePointer<CChar>?
        guard let api = rws_libsecret_load(&missing) else {
            let what = missing.map { String(cString: $0) } ?? "libsecret"
            return .failure(.unavailable(
                reason: "cannot load libsecret (\(what) is missing)",
                advice: "install libsecret (Debian: apt install libsecret-1-0), \(vaultAdvice)"))
        }
        return .success(SecretServiceClient(api: api))
    }()

    /// The process-wide client; throws when libsecret cannot be loaded. Waits for the
    /// warm-up first: this is every GLib call's way in.
    static func shared() throws(StoreError) -> SecretServiceClient {
        _ = warmUpAnswer
        return try loaded.get()
    }

    // MARK: - Warm-up

    /// The warm-up started at process start: its thread, and its answer to `NameHasOwner`.
    private final class WarmUp: @unchecked Sendable {
        var thread = pthread_t()
        /// Written by the warm-up thread before it ends (read after `pthread_join`); nil when it failed.
        var secretServiceRuns: Bool?
    }

    /// Set once, by `startWarmUp` before its thread starts (pthread_create orders the write
    /// before the thread's read), never changed afterwards.
    nonisolated(unsafe) private static var warmUp: WarmUp?

    /// The warm-up's answer, once its thread has ended (joined once, by the first caller;
    /// later callers wait for that one); nil when there was no warm-up or it failed.
    ///
    /// No other thread makes a GLib call before the warm-up thread is gone: GLib's type
    /// system deadlocks when one thread registers a type (GDBusConnection, in the warm-up's
    /// `g_bus_get_sync`) while another initialises a class that needs it (SecretService's, in
    /// `secret_service_get_sync`): issue 21 item 10, `KeyringWarmUpRaceTests`.
    private static let warmUpAnswer: Bool? = {
        guard let warmUp else { return nil }
        pthread_join(warmUp.thread, nil)
        return warmUp.secretServiceRuns
    }()

    /// Loads libsecret and connects to the session bus, and with `askingTheBus` asks the bus
    /// (not the Secret Service) whether a Secret Service runs, on a thread of its own; returns
    /// at once. Sends nothing to the Secret Service. Call at most once, at process start,
    /// before any other use of this type; every later use waits for it to end.
    ///
    /// Ask the bus only when the answer will be needed (`--store auto`): the first keyring
    /// call waits for the warm-up, and would wait for that round trip for nothing.
    static func startWarmUp(askingTheBus: Bool) {
        guard warmUp == nil else { return }
        let state = WarmUp()
        warmUp = state
        let started = pthread_create(&state.thread, nil, askingTheBus ? { _ in
            guard let state = SecretServiceClient.warmUp else { return nil }
            if let client = try? SecretServiceClient.loaded.get() {
                state.secretServiceRuns = try? client.nameHasOwner("org.freedesktop.secrets")
            }
            return nil
        } : { _ in
            if let client = try? SecretServiceClient.loaded.get() { client.connect() }
            return nil
        }, nil)
        // No thread: nothing is lost, everything happens on first use.
        if started != 0 { warmUp = nil }
    }

    /// Whether some process owns `org.freedesktop.secrets` on the session bus (activates
    /// nothing): the warm-up's answer when it got one, else asked now.
    static func secretServiceIsRunning() throws(StoreError) -> Bool {
        if let answer = warmUpAnswer { return answer }
        return try shared().nameHasOwner("org.freedesktop.secrets")
    }

    // MARK: - Bus and collection

    /// Connects to the session bus (GDBus keeps the connection for libsecret); a failure is
    /// left for the first real call to report.
    func connect() {
        var error: UnsafeMutablePointer<GError>?
        if rws_session_bus(api, &error) == nil, let error { api.pointee.g_error_free(error) }
    }

    /// Whether some process owns `name` on the session bus. Never activates a service.
    func nameHasOwner(_ name: String) throws(StoreError) -> Bool {
        var error: UnsafeMutablePointer<GError>?
        let owned = rws_name_has_owner(api, name, &error)
        if owned < 0 { throw translate(error, operation: "ask the session bus") }
        return owned == 1
    }

    /// The `default` collection, or nil when the keyring has none.
    func defaultCollection() throws(StoreError) -> KeyringCollection? {
        var error: UnsafeMutablePointer<GError>?
        var locked: Int32 = 0
        var path: UnsafeMutablePointer<CChar>?
        let found = rws_default_collection(api, &locked, &path, &error)
        if found < 0 { throw translate(error, operation: "open the keyring") }
        guard found == 1, let path else { return nil }
        defer { api.pointee.g_free(path) }
        return KeyringCollection(path: String(cString: path), locked: locked != 0)
    }

    // MARK: - Items

    /// Every item of our schema (all of them, locked or not), without secrets.
    func items(_ schema: KeyringSchema = .password) throws(StoreError) -> [KeyringItem] {
        try search(schema, label: nil) { self.item($0, schema) }
    }

    /// Every item of our schema with its secret (nil when it cannot be read, e.g. locked), in
    /// the round trips `secret-tool lookup` makes (`rws_read_items`): the search with the
    /// session's opening (each item's attributes asked for once the search answers), then the
    /// secrets (one `GetSecrets`).
    func itemsWithSecrets(_ schema: KeyringSchema = .password) throws(StoreError) -> [(item: KeyringItem, secret: SecretBytes?)] {
        let attributes = rws_attributes(api, nil, nil, nil)
        defer { api.pointee.g_hash_table_unref(attributes) }
        var error: UnsafeMutablePointer<GError>?
        var count: Int32 = 0
        let found = rws_read_items(api, rws_schema(schema.isIdentity), attributes, 1, &count, &error)
        if let error { throw translate(error, operation: "list the passwords") }
        defer { rws_found_free(api, found, count) }
        guard let found else { return [] }
        var results: [(item: KeyringItem, secret: SecretBytes?)] = []
        for index in 0..<Int(count) {
            let entry = found[index]
            guard let item = item(label: entry.label, order: entry.order, kind: entry.kind, schema) else { continue }
            var secret: SecretBytes?
            if let value = entry.secret {
                var length = 0
                if let bytes = api.pointee.secret_value_get(value, &length) {
                    secret = SecretBytes(UnsafeRawBufferPointer(start: bytes, count: length))
                }
            }
            results.append((item, secret))
        }
        return results
    }

    /// Stores `secret` under `label` with creation counter `order` in the default collection.
    /// An identity (`schema` `.identity`) carries its `kind`.
    func store(_ schema: KeyringSchema = .password, label: String, order: Int, kind: String? = nil, secret: SecretBytes) throws(StoreError) {
        // libsecret takes a NUL-terminated C string: copy into a buffer wiped right after.
        let length = secret.count
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: length + 1, alignment: 1)
        defer { Crypto.cleanse(buffer); buffer.deallocate() }
        secret.withUnsafeBytes { buffer.copyMemory(from: $0) }
        buffer[length] = 0
        guard !buffer[0..<length].contains(0) else {
            throw .unavailable(reason: "the keyring cannot store a password that contains a NUL byte", advice: "")
        }
        let attributes = rws_attributes(api, label, String(order), schema == .identity ? kind : nil)
        defer { api.pointee.g_hash_table_unref(attributes) }
        var error: UnsafeMutablePointer<GError>?
        let ok = api.pointee.secret_password_storev_sync(
            rws_schema(schema.isIdentity), attributes, nil, schema == .identity ? "rwsecret identity: \(label)" : "rwsecret: \(label)",
            buffer.baseAddress!.assumingMemoryBound(to: CChar.self), nil, &error)
        if ok == 0 { throw translate(error, operation: "store the password") }
    }

    /// Removes the items labelled `label`; returns whether any was removed.
    func clear(_ schema: KeyringSchema = .password, label: String) throws(StoreError) -> Bool {
        let attributes = rws_attributes(api, label, nil, nil)
        defer { api.pointee.g_hash_table_unref(attributes) }
        var error: UnsafeMutablePointer<GError>?
        let removed = api.pointee.secret_password_clearv_sync(rws_schema(schema.isIdentity), attributes, nil, &error)
        if let error { throw translate(error, operation: "remove the password") }
        return removed != 0
    }

    // MARK: - Helpers

    /// The item's label, order and kind; nil for an item not of `schema`'s kind: a password
    /// item with a `kind` attribute (none is written so: a password is an item with no kind,
    /// as every version wrote them), or an identity item without one.
    private func item(_ retrievable: OpaquePointer, _ schema: KeyringSchema) -> KeyringItem? {
        let attributes = api.pointee.secret_retrievable_get_attributes(retrievable)
        defer { api.pointee.g_hash_table_unref(attributes) }
        return item(label: value(attributes, "label"), order: value(attributes, "order"), kind: value(attributes, "kind"), schema)
    }

    private func item(label: UnsafePointer<CChar>?, order: UnsafePointer<CChar>?, kind: UnsafePointer<CChar>?, _ schema: KeyringSchema) -> KeyringItem? {
        item(label: label.map { String(cString: $0) }, order: order.map { String(cString: $0) }, kind: kind.map { String(cString: $0) }, schema)
    }

    private func item(label: String?, order: String?, kind: String?, _ schema: KeyringSchema) -> KeyringItem? {
        guard let label else { return nil }
        guard (schema == .identity) == (kind != nil) else { return nil }
        return KeyringItem(label: label, order: order.flatMap { Int($0) } ?? 0, kind: kind)
    }

    private func search<T>(_ schema: KeyringSchema, label: String?, _ body: (OpaquePointer) -> T?) throws(StoreError) -> [T] {
        let attributes = rws_attributes(api, label, nil, nil)
        defer { api.pointee.g_hash_table_unref(attributes) }
        var error: UnsafeMutablePointer<GError>?
        let list = rws_search(api, rws_schema(schema.isIdentity), attributes, &error)
        if let error { throw translate(error, operation: "list the passwords") }
        defer { if let list { api.pointee.g_list_free_full(list, api.pointee.g_object_unref) } }
        var results: [T] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data, let value = body(OpaquePointer(data)) { results.append(value) }
            node = current.pointee.next
        }
        return results
    }

    private func value(_ table: OpaquePointer?, _ key: String) -> String? {
        guard let table, let raw = api.pointee.g_hash_table_lookup(table, key) else { return nil }
        return String(cString: raw.assumingMemoryBound(to: CChar.self))
    }

    /// Turns a GError into a store error that says what to do, and frees it.
    private func translate(_ error: UnsafeMutablePointer<GError>?, operation: String) -> StoreError {
        guard let error else {
            return .unavailable(reason: "the keyring could not \(operation)", advice: Self.vaultAdvice)
        }
        defer { api.pointee.g_error_free(error) }
        let domain = String(cString: rws_error_domain(api, error))
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        return Self.storeError(domain: domain, code: error.pointee.code, message: message, operation: operation)
    }

    static let vaultAdvice = StoreError.vaultAlternative

    /// The libsecret errors a user can act on, as advice (see ../shared/notes/keyring-headless.md).
    static func storeError(domain: String, code: Int32, message: String, operation: String) -> StoreError {
        switch (domain, code) {
        case ("g-io-error-quark", _) where message.containsText("autolaunch"):
            return .unavailable(
                reason: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)",
                advice: "run inside a desktop session or set DBUS_SESSION_BUS_ADDRESS, \(vaultAdvice)")
        case ("g-io-error-quark", _) where code == 1 || message.hasPrefix("Could not connect"):
            return .unavailable(
                reason: "cannot connect to the D-Bus session bus (\(message))",
                advice: "DBUS_SESSION_BUS_ADDRESS points at a bus that is gone; fix or unset it, \(vaultAdvice)")
        case ("g-dbus-error-quark", 2), ("g-dbus-error-quark", 3):
            return .unavailable(
                reason: "no Secret Service is running on the session bus",
                advice: "start one (gnome-keyring-daemon --start --components=secrets, or KeePassXC with Secret Service integration), \(vaultAdvice)")
        case ("secret-error", 2):
            return .locked(advice: lockedAdvice)
        case (_, _) where message.containsText("Object does not exist at path"):
            return .unavailable(
                reason: "the keyring has no default collection (it was never unlocked)",
                advice: "log in to a desktop session or create and unlock one (echo -n PASSWORD | gnome-keyring-daemon --replace --unlock), \(vaultAdvice)")
        default:
            return .unavailable(reason: "the keyring could not \(operation): \(message)", advice: vaultAdvice)
        }
    }

    static let lockedAdvice =
        "unlock the keyring (log in to your desktop session, or unlock the login keyring with seahorse or `gnome-keyring-daemon --replace --unlock`), \(vaultAdvice)"
}
