import RWSecretKit
import Testing
@testable import rwsecret

/// Store choice without a bus (tests with a bus run the binary: GDBus keeps
/// the first bus a process connects to, and that must be the private keyring's).
struct StoreSelectorTests {
    /// No DBUS_SESSION_BUS_ADDRESS and no $XDG_RUNTIME_DIR/bus: libsecret is never loaded.
    let base = ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/nonexistent-run"]

    func choose(store: String? = nil, vault: String? = nil, _ extra: [String: String] = [:]) throws(StoreSelector.UsageError) -> StoreSelector.Choice {
        try StoreSelector(storeOption: store, vaultOption: vault, environment: base.merging(extra) { $1 }).choose()
    }

    @Test func autoWithoutABusUsesTheDefaultVault() throws {
        let choice = try choose()
        #expect(choice.kind == .file)
        #expect(choice.vaultPath == "/home/u/.local/share/rwsecret/vault")
        #expect(choice.reason == "auto: there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so the vault is used")
        #expect(try choose(["XDG_DATA_HOME": "/data"]).vaultPath == "/data/rwsecret/vault")
        // A relative XDG_DATA_HOME is invalid per the XDG spec and ignored.
        #expect(try choose(["XDG_DATA_HOME": "data"]).vaultPath == "/home/u/.local/share/rwsecret/vault")
    }

    @Test func vaultOptionOrVariableImpliesFileUnderAuto() throws {
        #expect(try choose(vault: "/v") == .init(kind: .file, vaultPath: "/v", reason: "auto: --vault was given"))
        #expect(try choose(["RWSECRET_VAULT": "/e"]) == .init(kind: .file, vaultPath: "/e", reason: "auto: RWSECRET_VAULT is set"))
        #expect(try choose(vault: "/v", ["RWSECRET_VAULT": "/e"]).vaultPath == "/v")
    }

    @Test func storeOptionWinsOverTheVariable() throws {
        #expect(try choose(store: "file", ["RWSECRET_STORE": "keyring"]).kind == .file)
        #expect(try choose(store: "keyring", ["RWSECRET_STORE": "file"]).kind == .keyring)
        #expect(try choose(["RWSECRET_STORE": "keyring"]).reason == "RWSECRET_STORE=keyring was asked for")
        #expect(try choose(store: "file", ["RWSECRET_VAULT": "/e"]).vaultPath == "/e")
    }

    @Test func keyringWithVaultIsBadUsageButTheVariableIsIgnored() throws {
        #expect(throws: StoreSelector.UsageError.self) { try choose(store: "keyring", vault: "/v") }
        #expect(throws: StoreSelector.UsageError.self) { try choose(vault: "/v", ["RWSECRET_STORE": "keyring"]) }
        let choice = try choose(store: "keyring", ["RWSECRET_VAULT": "/e"])
        #expect(choice.kind == .keyring && choice.vaultPath == nil)
    }

    @Test func unknownStoreIsBadUsage() {
        #expect(throws: StoreSelector.UsageError.self) { try choose(["RWSECRET_STORE": "cloud"]) }
        #expect(throws: StoreSelector.UsageError.self) { try choose(store: "memory") }
    }

    @Test func keyringLockFile() {
        let withRuntime = StoreSelector(storeOption: nil, vaultOption: nil, environment: ["HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/1"])
        #expect(withRuntime.keyringLockPath() == "/run/user/1/rwsecret.lock")
        let without = StoreSelector(storeOption: nil, vaultOption: nil, environment: ["HOME": "/h"])
        #expect(without.keyringLockPath() == "/h/.local/share/rwsecret/rwsecret.lock")
    }

    @Test func keyringWithoutABusIsUnavailableWithoutTouchingLibsecret() throws {
        let selector = StoreSelector(storeOption: "keyring", vaultOption: nil, environment: base)
        #expect {
            _ = try selector.open(try selector.choose()) { _ throws(StoreError) in SecretBytes(utf8: "unused") }
        } throws: { error in
            guard case .unavailable(let reason, let advice) = (error as? StoreError)?.reason else { return false }
            return reason.contains("no D-Bus session bus") && advice.contains("--store file")
        }
    }
}
