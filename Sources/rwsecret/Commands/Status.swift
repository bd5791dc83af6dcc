import ArgumentParser
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret {
    /// `rwsecret status [--json]`: which store, where, why, how many passwords, locked or
    /// not, and for the vault whether its passphrase is held in the session keyring.
    ///
    /// A locked keyring, or a vault whose passphrase cannot be asked, is reported
    /// (`locked: yes`, `passwords: unknown`) with exit 0; a vault that is a folder, damaged
    /// or behind a wrong passphrase is a `problem:` line (`"problem"` in JSON) and exits
    /// with its status (69, or 74); 69 too when the store cannot be reached at all. A vault
    /// that does not exist yet says so (`vault: none yet at PATH`, `"vault_exists": false`).
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Which store, where, why, how many passwords and identities, locked or not.",
            discussion: """
                For the vault, also whether `rwsecret vault unlock` keeps its passphrase in \
                the session keyring, and until when. --json writes one object with the keys \
                store, location, reason, passwords and identities (null when unknown), locked, and for the \
                vault vault_exists, passphrase_cached and passphrase_cached_until, and problem \
                (null, or what is wrong). A vault that does not exist yet says "vault: none yet \
                at PATH"; a vault that is a folder, damaged or behind a wrong passphrase adds a \
                "problem:" line and exits 69 (74 for an I/O error); a locked store exits 0. \
                --json never asks for the vault's passphrase, and always writes its object: with \
                no store to reach (no session bus), locked is null and problem says why (69).
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
                store = try global.openUnready(choice, asking: !json)
            } catch {
                // No store to ask (no session bus, no libsecret): --json still writes its object.
                if json {
                    let location = choice.kind == .file ? JSON.string(choice.vaultPath ?? global.storeSelector.vaultPath().path) : "null"
                    let members: [(String, String)] = [
                        ("store", JSON.string(choice.kind.rawValue)), ("location", location), ("reason", JSON.string(choice.reason)),
                        ("passwords", "null"), ("identities", "null"), ("locked", "null"), ("problem", JSON.string(error.words)),
                    ]
                    Output.standardOutput.line("{" + members.map { "\(JSON.string($0.0)):\($0.1)" }.joined(separator: ",") + "}")
                    Output.standardOutput.flush()
                }
                throw CommandFailure(error)
            }
            var count: Int?
            var identities: Int?
            var note: String?
            // A problem (not a state): the vault is a folder, damaged, behind a wrong passphrase…
            // reported in the output and by the exit status.
            var problem: StoreError?
            // A vault that does not exist yet is not an empty one: the first `password add` makes it.
            let vaultExists = store.kind == .file ? Self.exists(store.location) : nil
            do {
                try store.open()
                count = try store.labels().count
                identities = try (store as? any IdentityStore)?.identities().count
            } catch {
                // A locked keyring, or a vault that cannot be opened (no or wrong passphrase, not a vault file).
                if !(error.exitStatus == .unavailable && (store.isLocked || store.kind == .file || error.isLocked)) && !json {
                    throw CommandFailure(error)
                }
                if !error.isLockedState { problem = error }
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
                    ("identities", identities.map(String.init) ?? "null"),
                    ("locked", count == nil ? "true" : "false"),
                ]
                if let vaultExists { members.append(("vault_exists", vaultExists ? "true" : "false")) }
                members.append(("problem", problem.map { JSON.string($0.words) } ?? "null"))
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
                out.line("identities: \(identities.map(String.init) ?? "unknown")")
                out.line("locked: \(count == nil ? "yes" : "no")")
                if store.kind == .file {
                    let value = cache.map { $0.held ? "until \($0.until.map(VaultTime.iso8601) ?? "?")" : "no" } ?? "unknown"
                    out.line("passphrase cached: \(value)")
                }
                if vaultExists == false { out.line("vault: none yet at \(Output.escaped(store.location)) (the first `rwsecret password add` creates it)") }
            }
            if let problem {
                if !json { out.line("problem: \(problem.words)") }
                out.flush()
                throw CommandFailure(problem)
            }
            if let note, !global.quiet { Output.standardError.line("rwsecret: \(note)") }
        }

        /// Whether anything is at `path` (a link or a folder counts: it is a problem, reported as such).
        static func exists(_ path: String) -> Bool {
            var info = stat()
            return lstat(path, &info) == 0 || errno != ENOENT
        }
    }
}

extension StoreError {
    /// A store that is merely locked (a locked keyring, a vault whose passphrase cannot be
    /// asked here): a state that `status` reports with exit 0, not a problem.
    var isLockedState: Bool {
        code == .locked || code == .noPassphrase
    }
}

extension StoreError {
    /// A locked keyring collection.
    var isLocked: Bool {
        code == .locked
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
