// fuzz-vault: the vault's plaintext decoder (VaultContents, Sources/RWSecretKit/Store/
// VaultPasswordStore.swift) and the store's read path.
//
// The input is a vault plaintext (`RWV1`, count, then length-prefixed labels and secrets;
// then, when the vault holds identities, `RWI1`, count, label, kind and secret each).
// Checked, beyond "no crash, no leak, no overflow, no huge allocation":
// - what `decodeAll` accepts is canonical: `encode` gives back exactly the input; `decode`
//   (passwords alone) accepts exactly what `decodeAll` accepts with no identity;
// - entries made from the input (any label, any secret) survive `encode` then `decode`;
// - the store agrees with the decoder: the input, encrypted under a passphrase and written
//   as a vault file, reads back through `VaultPasswordStore.passwords()` and `identities()`
//   as `decodeAll` gives them, and is refused as damaged exactly when `decodeAll` refuses it.
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

private let passphrase = SecretBytes(utf8: "fuzz vault passphrase")
nonisolated(unsafe) private var vaultPath = ""

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    fuzzInitialize()
    // In memory when possible; on ext4, rewriting a file in place makes close() flush it.
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    var template = Array("\(base)/rwsecret-fuzz-vault-XXXXXX".utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { abort() }
    let folder = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    vaultPath = folder + "/vault"
    atexit {
        unlink(vaultPath)
        rmdir(String(vaultPath.dropLast("/vault".count)))
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVault(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    let all = VaultContents.decodeAll(SecretBytes(input))
    let decoded = all.map(\.passwords)
    Outcomes.record(all.map { "decoded \(min($0.passwords.count, 3))\($0.passwords.count >= 3 ? "+" : "") entries"
        + ($0.identities.isEmpty ? "" : ", identities") } ?? "refused")
    if let all {
        let again = VaultContents.encode(all.passwords, identities: all.identities).withUnsafeBytes { Array($0) }
        require(again == input, "decodeAll accepted a non-canonical vault (\(all.passwords.count) entries re-encode to \(again.count) bytes, not \(input.count))")
    }
    let passwordsOnly = VaultContents.decode(SecretBytes(input))
    require((passwordsOnly != nil) == (all.map { $0.identities.isEmpty } == true), "decode and decodeAll disagree")

    let made = entries(from: input)
    let roundTrip = VaultContents.decode(VaultContents.encode(made))
    require(roundTrip.map { same($0, made) } == true, "\(made.count) entries did not survive encode then decode")

    // The store's read path over the same plaintext.
    let file = RNCryptor.encrypt(input, password: passphrase)
    unlink(vaultPath)  // a new file each time (no truncation, which ext4 follows with a flush)
    let fd = open(vaultPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    require(fd >= 0, "cannot write \(vaultPath)")
    let written = file.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    require(written == file.count, "short write to \(vaultPath)")
    let store = VaultPasswordStore(path: vaultPath) { _ in passphrase }
    do {
        let read = try store.passwords()
        require(decoded.map { same(read, $0) } == true, "the store read \(read.count) entries from a vault decode \(decoded == nil ? "refuses" : "reads differently")")
        let identities = try store.identities()
        require(all.map { zip($0.identities, identities).allSatisfy { $0.label == $1.label && $0.kind == $1.kind && $0.secret.isEqual(to: $1.secret) }
            && $0.identities.count == identities.count } == true, "the store read identities the decoder does not")
    } catch {
        require(all == nil, "the store refused a vault decodeAll accepts: \(error)")
        guard error.code == .vaultDamaged else { require(false, "unexpected store error \(error)"); return 0 }
    }
    return 0
}

/// Entries made from arbitrary bytes: [label length, label, secret length, secret]…,
/// labels decoded leniently from UTF-8 (invalid bytes become U+FFFD).
private func entries(from bytes: [UInt8]) -> [StoredPassword] {
    var out: [StoredPassword] = []
    var offset = 0
    func take() -> ArraySlice<UInt8> {
        guard offset < bytes.count else { return [] }
        let n = min(Int(bytes[offset]), bytes.count - offset - 1)
        defer { offset += 1 + n }
        return bytes[(offset + 1)..<(offset + 1 + n)]
    }
    while offset < bytes.count {
        let label = String(decoding: take(), as: UTF8.self)
        out.append(StoredPassword(label: label, secret: SecretBytes(take())))
    }
    return out
}

private func same(_ a: [StoredPassword], _ b: [StoredPassword]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.label == $1.label && $0.secret.isEqual(to: $1.secret) }
}
