import ArgumentParser
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret {
    /// `rwsecret status [--json]`: which store, where, why, how many passwords, locked or
    /// not, and for the vault whether its passphrase is held in the session keyring.
    ///
    /// A locked keyring, or a vault that cannot be opened, is reported
    /// (`locked: yes`, `passwords: unknown`) with exit 0; 69 only when the store
    /// cannot be reached at all.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Which store, where, why, how many passwords, locked or not.",
            discussion: """
                For the vault, also whether `rwsecret vault unlock` keeps its passphrase in \
                the session keyring, and until when. --json writes one object with the keys \
                store, location, reason, passwords (null when unknown), locked, and for the \
                vault passphrase_cached and passphrase_cached_until.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        @Flag(help: "Write one JSON object instead of key: value lines.")
        var json = false

        func run() throws {
            let global = try self.global.merged(with: root.global)
            let choice = try global.chooseStore()
            global.verboseLine("store: \(choice.kind.rawValue) (\(choice.reason))")
            let store: any PasswordStore
            do {
                store = try global.openUnready(choice)
            } catch {
                throw CommandFailure(error)
            }
            var count: Int?
            var note: String?
            do {
                try store.open()
                count = try store.labels().count
            } catch {
                // A locked keyring, or a vault that cannot be opened (no or wrong passphrase, not a vault file).
                guard error.exitStatus == .unavailable, store.isLocked || store.kind == .file || error.isLocked else {
                    throw CommandFailure(error)
                }
                note = error.words
            }
            var cache: (held: Bool, until: Int64?)?
            if store.kind == .file {
                do {
                    let held = try SessionKeyring.lookUp(forVault: store.location)
                    cache = (held != nil, held?.expiry)
                } catch {
                    if note == nil { note = error.words }
                }
            }
            let out = Output.standardOutput
            if json {
                var members: [(String, String)] = [
                    ("store", JSON.string(choice.kind.rawValue)), ("location", JSON.string(store.location)),
                    ("reason", JSON.string(choice.reason)), ("passwords", count.map(String.init) ?? "null"),
                    ("locked", count == nil ? "true" : "false"),
                ]
                if store.kind == .file {
                    members.append(("passphrase_cached", cache.map { $0.held ? "true" : "false" } ?? "null"))
                    members.append(("passphrase_cached_until", cache?.until.map { JSON.string(VaultTime.iso8601($0)) } ?? "null"))
                }
                out.line("{" + members.map { "\(JSON.string($0.0)):\($0.1)" }.joined(separator: ",") + "}")
            } else {
                out.line("store: \(choice.kind.rawValue)")
                out.line("location: \(store.location)")
                out.line("reason: \(choice.reason)")
                out.line("passwords: \(count.map(String.init) ?? "unknown")")
                out.line("locked: \(count == nil ? "yes" : "no")")
                if store.kind == .file {
                    let value = cache.map { $0.held ? "until \($0.until.map(VaultTime.iso8601) ?? "?")" : "no" } ?? "unknown"
                    out.line("passphrase cached: \(value)")
                }
            }
            if let note, !global.quiet { Output.standardError.line("rwsecret: \(note)") }
        }
    }
}

extension StoreError {
    /// A locked keyring collection.
    var isLocked: Bool {
        if case .locked = self { return true }
        return false
    }
}

/// Times for people: UTC, ISO 8601.
enum VaultTime {
    /// `2026-11-23T19:15:00Z`.
    static func iso8601(_ unixSeconds: Int64) -> String {
        var seconds = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
