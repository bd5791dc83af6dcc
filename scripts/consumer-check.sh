#!/bin/sh
# Proves RWSecretKit, RWSecretCore and RNCryptorCompat consumable by URL and version: clones the
# committed repository, tags the clone with RWSECRET_CONSUMER_VERSION (default 99.0.0;
# `make release-check` gives the version of Version.swift), and builds and runs a
# throw-away package that depends on it with `.package(url: "file://…", from: VERSION)`.
# SwiftPM refuses unsafe flags in a dependency, so this also proves the manifest clean.
# Usage: sh scripts/consumer-check.sh   (from anywhere inside the repository)
set -eu
SWIFT=${SWIFT:-swift}
repo=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rwsecret-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# safe.directory: CI may run as root in a checkout another user owns.
git -c safe.directory="$repo" clone -q "$repo" "$tmp/rwsecret"
version=${RWSECRET_CONSUMER_VERSION:-99.0.0}
git -C "$tmp/rwsecret" tag -f "$version" >/dev/null

mkdir -p "$tmp/consumer/Sources/consumer"
cat > "$tmp/consumer/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "consumer",
    dependencies: [
        .package(url: "file://$tmp/rwsecret", from: "$version"),
    ],
    targets: [
        .executableTarget(name: "consumer", dependencies: [
            .product(name: "RWSecretKit", package: "rwsecret"),
            .product(name: "RNCryptorCompat", package: "rwsecret"),
        ]),
        // An RNCryptor-only program: the RWSecretCore product alone (issue 33, item 5).
        .executableTarget(name: "core-consumer", dependencies: [
            .product(name: "RWSecretCore", package: "rwsecret"),
        ]),
    ]
)
EOF

# RWSecretCore alone: RNCryptor with a password, a chain over a store, and the async form.
mkdir -p "$tmp/consumer/Sources/core-consumer"
cat > "$tmp/consumer/Sources/core-consumer/main.swift" <<'EOF'
import RWSecretCore

let password = SecretBytes(utf8: "core-password")
let message = RNCryptor.encrypt(Array("opened by RWSecretCore alone".utf8), password: password)
print("core: " + String(decoding: try RNCryptor.decrypt(message, password: password), as: UTF8.self))
let store = MemoryPasswordStore([StoredPassword(label: "other", secret: SecretBytes(utf8: "x")), StoredPassword(label: "app", secret: password)])
let client = PasswordClient(runOnly: []) { store }
/// The async form: the chain's key derivations hold no Swift concurrency thread.
func open(_ message: [UInt8]) async throws -> Decrypted { try await client.decrypt(message) }
let opened = try await open(message)
print("core chain: " + String(decoding: opened.plaintext, as: UTF8.self) + " (by " + (opened.openedBy.passwordName ?? "the key") + ")")
EOF

# RWSecretKit, Foundation-free (its own file: both modules have a type named RNCryptor).
cat > "$tmp/consumer/Sources/consumer/Kit.swift" <<'EOF'
import RWSecretKit

/// A message the tool's library writes, as base64.
func kitEncrypt(_ text: String, password: String) -> String {
    RNCryptor.Base64.encode(RNCryptor.encrypt(Array(text.utf8), password: SecretBytes(utf8: password)))
}

/// Decrypts a base64 message with the tool's library.
func kitDecrypt(_ base64: String, password: String) -> String {
    guard let message = RNCryptor.Base64.decodeLenient(Array(base64.utf8)) else { return "bad base64" }
    do {
        return String(decoding: try RNCryptor.decrypt(message, password: SecretBytes(utf8: password)), as: UTF8.self)
    } catch {
        return "error: \(error)"
    }
}

/// A server's chain: the app's passwords (in memory here; a keyring or a vault is the same
/// call) and its key, one call for every message; the chain says what opened each.
func kitChain(_ messages: [String], passwords: [String: String], keys: MessageKeys) -> [String] {
    let store = MemoryPasswordStore(passwords.sorted { $0.key < $1.key }.map { StoredPassword(label: $0.key, secret: SecretBytes(utf8: $0.value)) })
    let client = PasswordClient(runOnly: [], keys: keys) { store }
    return messages.map { text in
        do {
            let opened = try client.decrypt(RNCryptor.Base64.decodeLenient(Array(text.utf8)) ?? [])
            return String(decoding: opened.plaintext, as: UTF8.self) + " (by " + (opened.openedBy.passwordName ?? "the key") + ")"
        } catch {
            return "failed: \(error)"
        }
    }
}

func kitKeys() -> MessageKeys {
    try! MessageKeys(encryptionKey: SecretBytes(Array(repeating: 1, count: 32)), hmacKey: SecretBytes(Array(repeating: 2, count: 32)))
}

func kitEncrypt(_ text: String, keys: MessageKeys) -> String { RNCryptor.Base64.encode(RNCryptor.encrypt(Array(text.utf8), keys: keys)) }

/// A server's client, shared by the tasks of a task group and handed to an actor (Swift 6).
actor Service {
    let client: PasswordClient
    init(client: PasswordClient) { self.client = client }
    func open(_ message: [UInt8]) throws -> String { String(decoding: try client.decrypt(message).plaintext, as: UTF8.self) }
}

func kitConcurrent() async -> [String] {
    let store = MemoryPasswordStore([StoredPassword(label: "app", secret: SecretBytes(utf8: "app-password"))])
    let client = PasswordClient(runOnly: []) { store }
    let message = await RNCryptor.encrypt(Array("shared".utf8), password: SecretBytes(utf8: "app-password"))
    var lines = await withTaskGroup(of: String.self) { group in
        // The async form: the key derivations hold no thread of the task group.
        for _ in 0..<3 { group.addTask { (try? await String(decoding: client.decrypt(message).plaintext, as: UTF8.self)) ?? "failed" } }
        var lines: [String] = []
        for await line in group { lines.append("task group: " + line) }
        return lines
    }
    lines.append("actor: " + ((try? await Service(client: client).open(message)) ?? "failed"))
    return lines
}

/// What trapped before 1.0 throws now.
func kitFormerTraps() -> [String] {
    var lines: [String] = []
    do { _ = try MessageKeys(encryptionKey: SecretBytes([1, 2, 3]), hmacKey: SecretBytes(Array(repeating: 2, count: 32))); lines.append("3-byte key: accepted") } catch { lines.append("3-byte key: \(error)") }
    do { _ = try Encryptor(keys: kitKeys(), iv: [3]); lines.append("1-byte IV: accepted") } catch { lines.append("1-byte IV: \(error)") }
    let decryptor = Decryptor(keys: kitKeys())
    do {
        try decryptor.update(RNCryptor.encrypt([1], keys: kitKeys()))
        _ = try decryptor.finalize()
        _ = try decryptor.finalize()
        lines.append("finalize twice: accepted")
    } catch { lines.append("finalize twice: \(error)") }
    do { _ = try PasswordClient(runOnly: [], iterations: 0) { nil }; lines.append("0 iterations: accepted") } catch { lines.append("0 iterations: \(error)") }
    return lines
}

/// A v1 message (v1's HMAC does not cover the header, so its IV can be changed) is refused by default.
func kitRefusesV1() -> String {
    var message = RNCryptor.encrypt(Array("v3 message".utf8), password: SecretBytes(utf8: "pw"))
    message[0] = 1
    do { _ = try RNCryptor.decrypt(message, password: SecretBytes(utf8: "pw")); return "v1: opened" } catch { return "v1: \(error)" }
}
EOF

# Every kind through the public API (issue 33): age (passphrase and X25519), gpg -c and Ansible
# Vault from the clone's committed fixtures, a custom store that throws, and the async forms
# from a task group. Its own file: Foundation reads the fixtures.
cat > "$tmp/consumer/Sources/consumer/Kinds.swift" <<'EOF'
import Foundation
import RWSecretKit

/// The clone's Fixtures/kinds (its manifest gives each file's secret in hex).
let fixtures = CommandLine.arguments[1]

func fixture(_ name: String) -> [UInt8] { Array(FileManager.default.contents(atPath: fixtures + "/" + name) ?? Data()) }

func hex(_ text: String) -> SecretBytes {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return SecretBytes(bytes)
}

/// A store of the consumer's own that cannot be read: it throws the stores' error.
final class DownStore: PasswordStore {
    var location: String { "https://passwords.example/" }
    func open() throws(StoreError) { throw StoreError(code: .unavailable, description: "the password service is down") }
    func labels() throws(StoreError) -> [String] { throw StoreError(code: .unavailable, description: "the password service is down") }
    func passwords() throws(StoreError) -> [StoredPassword] { throw StoreError(code: .unavailable, description: "the password service is down") }
    func add(_ passwords: [PasswordToAdd], check: (SecretBytes, [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] { [] }
    func remove(labels: [String]) throws(StoreError) {}
    func rename(_ label: String, to newLabel: String) throws(StoreError) {}
}

/// An identity of the consumer's own (issue 33: credentials are an open protocol): the age key
/// is held elsewhere and asked through age's Unwrap shape.
struct HeldElsewhere: Identity {
    let name = "held elsewhere"
    let key: Age.Identity
    func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? { try key.unwrap(stanzas) }
}

func kitKinds() async -> [String] {
    let store = MemoryPasswordStore([
        StoredPassword(label: "age", secret: hex("5af09f98807165cc81ed959c6be697a5e69cacc39f4f57e697a5d096")),
        StoredPassword(label: "gpg", secret: hex("33643364765e5d2d4426384059")),
        StoredPassword(label: "ansible", secret: hex("356d3b557741765d347c")),
    ])
    let identities = (try? Age.Identity.parse(String(decoding: fixture("age-identity.txt"), as: UTF8.self), name: "age-identity.txt")) ?? []
    let opener = MessageOpener(client: PasswordClient(runOnly: []) { store }, identities: identities)
    let files = ["age-scrypt-unicode.age", "age-x25519.age", "openpgp/aes256-sha256-zlib.gpg", "ansible-1.1.vault"]
    var lines = await withTaskGroup(of: (Int, String).self) { group in
        for (index, name) in files.enumerated() {
            let bytes = fixture(name)
            group.addTask {
                do {
                    let opened = try await opener.open(bytes)
                    let by = opened.openedBy.passwordName ?? opened.openedBy.identityName ?? "the key"
                    return (index, "\(opened.kind): \(opened.plaintext.count) bytes (by \(by))")
                } catch {
                    return (index, "\(name): failed: \(error)")
                }
            }
        }
        var lines: [(Int, String)] = []
        for await line in group { lines.append(line) }
        return lines.sorted { $0.0 < $1.0 }.map { "kinds: " + $0.1 }
    }
    // age to a recipient, and back with its identity.
    let (identity, _, recipient) = Age.Identity.generate(name: "fresh")
    if let file = try? Age.encrypt(Array("to a recipient".utf8), to: [recipient]),
       let opened = try? await MessageOpener(passwords: [], identities: [identity]).open(file) {
        lines.append("age recipient: " + String(decoding: opened.plaintext, as: UTF8.self) + " (by \(opened.openedBy.identityName ?? "?"))")
    }
    // The consumer's own identity opens an age file; what opened it is the identity's name.
    if let key = identities.first {
        do {
            let opened = try await MessageOpener(passwords: [], identities: [HeldElsewhere(key: key)]).open(fixture("age-x25519.age"))
            lines.append("own identity: \(opened.plaintext.count) bytes (by \(opened.openedBy.name))")
        } catch {
            lines.append("own identity: failed: \(error)")
        }
    }
    // An OpenPGP secret key (gpg's export) is an identity too, and one chain of mixed
    // credentials (a password, a key file's keys, the age and OpenPGP keys) opens every kind,
    // naming what opened each.
    do {
        let chain: [any ChainCredential] = [
            ChainPassword(name: "gpg", secret: hex("33643364765e5d2d4426384059")),
            try MessageKeys(encryptionKey: SecretBytes(Array(repeating: 1, count: 32)), hmacKey: SecretBytes(Array(repeating: 2, count: 32))),
        ] + identities + [try OpenPGP.Identity(fixture("openpgp-librepgp-keys/rsa.sec.asc"), name: "rsa.sec.asc")]
        let byChain = MessageOpener(chain: chain)
        for name in ["openpgp-librepgp-keys/rsa-ocb.pgp", "openpgp/aes256-sha256-zlib.gpg", "age-x25519.age"] {
            let opened = try await byChain.open(fixture(name))
            lines.append("credential chain: \(opened.kind): \(opened.plaintext.count) bytes (by \(opened.openedBy.name))")
        }
    } catch {
        lines.append("credential chain: failed: \(error)")
    }
    // A custom store that throws: its error, as a DecryptionFailure whose code is store.
    do {
        _ = try await MessageOpener(client: PasswordClient(runOnly: []) { DownStore() }).open(fixture("ansible-1.1.vault"))
        lines.append("custom store: opened")
    } catch {
        lines.append("custom store: \(error.code == .store ? "store" : "other"), \(error.storeError?.code == .unavailable ? "unavailable" : "other"): \(error)")
    }
    do {
        _ = try await opener.open(Array("plain text".utf8))
        lines.append("not a message: opened")
    } catch {
        lines.append("not a message: \(error.code == .format ? "format" : "other"): \(error)")
    }
    return lines
}
EOF

# RNCryptor Swift's API on Data, as an iOS app's code would use it.
cat > "$tmp/consumer/Sources/consumer/main.swift" <<'EOF'
import Foundation
import RNCryptorCompat

let fromKit = kitEncrypt("written by RWSecretKit", password: "pw-kit")
print("kit: " + kitDecrypt(fromKit, password: "pw-kit"))

let data = Data(base64Encoded: fromKit)!
let plaintext = try RNCryptor.decrypt(data: data, withPassword: "pw-kit")
print("compat: " + String(decoding: plaintext, as: UTF8.self))

let fromCompat = RNCryptor.encrypt(data: Data("written by RNCryptorCompat".utf8), withPassword: "pw-compat")
print("kit: " + kitDecrypt(fromCompat.base64EncodedString(), password: "pw-compat"))

let decryptor = RNCryptor.Decryptor(password: "pw-compat")
var out = Data()
for start in stride(from: 0, to: fromCompat.count, by: 7) {
    out.append(try decryptor.update(withData: fromCompat.subdata(in: start..<min(start + 7, fromCompat.count))))
}
out.append(try decryptor.finalData())
print("incremental: " + String(decoding: out, as: UTF8.self))

let appPasswords = ["v1": "old-app-password", "v2": "new-app-password"]
for line in kitChain([kitEncrypt("from the new app", password: "new-app-password"), kitEncrypt("from the old app", password: "old-app-password"),
                      kitEncrypt("from a keyed app", keys: kitKeys()), kitEncrypt("from a stranger", password: "nobody")],
                     passwords: appPasswords, keys: kitKeys()) {
    print("chain: " + line)
}

for line in await kitConcurrent() { print(line) }
for line in await kitKinds() { print(line) }
for line in kitFormerTraps() { print(line) }
print(kitRefusesV1())

do {
    _ = try RNCryptor.decrypt(data: fromCompat, withPassword: "wrong")
    print("wrong password: accepted")
} catch let error as RNCryptor.Error {
    print("wrong password: \(error)")
}
EOF

export HOME="${HOME:-$tmp}"
"$SWIFT" build --package-path "$tmp/consumer" --scratch-path "$tmp/build" --cache-path "$tmp/cache" -q 2>&1 | tail -n 20
bin="$tmp/build/debug/consumer"
[ -x "$bin" ] || { echo "consumer-check: the consumer package did not build" >&2; exit 1; }
# zlib, libbz2 and libargon2 are loaded with dlopen when an OpenPGP message needs them
# (RWSecretKit's LoadedLibraries): a consumer links none of them (issue 33, issue 36).
if command -v readelf >/dev/null; then
    needed=$(readelf -d "$bin" | grep '(NEEDED)' | grep -E 'libz\.|libbz2|libargon2' || true)
    [ -z "$needed" ] || { echo "consumer-check: the consumer links what RWSecretKit loads on first use: $needed" >&2; exit 1; }
    linked=", zlib/libbz2/libargon2 not linked"
else
    linked=" (NEEDED check SKIPPED: no readelf)"
fi
# The RNCryptor-only program links libcrypto and the C and Swift runtimes, nothing else: no
# zlib, libbz2, libargon2, libssh, Botan or Foundation (libsecret is loaded with dlopen when a
# keyring store is opened). And RWSecretCore's target, by the manifest, depends on none of the
# system modules of the other kinds, so building it needs none of their headers either.
core="$tmp/build/debug/core-consumer"
[ -x "$core" ] || { echo "consumer-check: the RWSecretCore-only program did not build" >&2; exit 1; }
[ "$("$core")" = "core: opened by RWSecretCore alone
core chain: opened by RWSecretCore alone (by app)" ] || { echo "consumer-check: the RWSecretCore-only program: $("$core" 2>&1)" >&2; exit 1; }
if command -v readelf >/dev/null; then
    other=$(readelf -d "$core" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' \
        | grep -vE '^(libcrypto\.so|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libutil\.so|ld-linux|libgcc_s\.so|libstdc\+\+\.so|libswift[A-Za-z_]*\.so|libdispatch\.so|libBlocksRuntime\.so)' || true)
    [ -z "$other" ] || { echo "consumer-check: the RWSecretCore-only program links more than libcrypto and the runtimes: $other" >&2; exit 1; }
    readelf -d "$core" | grep -q '(NEEDED).*\[libcrypto\.so' || { echo "consumer-check: the RWSecretCore-only program does not link libcrypto" >&2; exit 1; }
    linked="$linked; RWSecretCore alone: libcrypto and the runtimes"
fi
(cd "$tmp/rwsecret" && "$SWIFT" package dump-package) > "$tmp/manifest.json"
python3 - "$tmp/manifest.json" <<'EOF'
import json, sys
targets = {t["name"]: t for t in json.load(open(sys.argv[1]))["targets"]}
def names(target):
    for dependency in target["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dependency: yield dependency[kind][0]
seen, todo = set(), ["RWSecretCore"]
while todo:
    name = todo.pop()
    if name in seen or name not in targets: continue
    seen.add(name)
    todo.extend(names(targets[name]))
if "RWSecretCore" not in seen:
    sys.exit("consumer-check: no RWSecretCore target")
others = sorted(seen & {"CZlib", "CBZip2", "CArgon2", "CLibSSH", "CBotan", "RWSecretKit"})
if others:
    sys.exit("consumer-check: RWSecretCore's target depends on " + ", ".join(others))
EOF

"$bin" "$tmp/rwsecret/Fixtures/kinds" > "$tmp/out.txt"
cat > "$tmp/expected.txt" <<'EOF'
kit: written by RWSecretKit
compat: written by RWSecretKit
kit: written by RNCryptorCompat
incremental: written by RNCryptorCompat
chain: from the new app (by v2)
chain: from the old app (by v1)
chain: from a keyed app (by the key)
chain: failed: no password opened it (tried 2)
task group: shared
task group: shared
task group: shared
actor: shared
kinds: age: 15 bytes (by age)
kinds: age: 70000 bytes (by age-identity.txt)
kinds: openpgp: 15 bytes (by gpg)
kinds: ansible-vault: 21 bytes (by ansible)
age recipient: to a recipient (by fresh)
own identity: 70000 bytes (by identity held elsewhere)
credential chain: openpgp: 42 bytes (by identity rsa.sec.asc)
credential chain: openpgp: 15 bytes (by gpg)
credential chain: age: 70000 bytes (by identity age-identity.txt)
custom store: store, unavailable: the password service is down
not a message: format: unknown version 112
3-byte key: key of 3 bytes (needs 32)
1-byte IV: IV of 1 bytes (needs 16)
finalize twice: decryptor already finalized
0 iterations: PBKDF2 iteration count 0 out of range
v1: version 1 authenticates the ciphertext only, not its header (legacy formats not allowed)
wrong password: hmacMismatch
EOF
if ! diff -u "$tmp/expected.txt" "$tmp/out.txt"; then
    echo "consumer-check: unexpected output from the consumer package" >&2
    exit 1
fi
echo "consumer-check: a package depending on rwsecret from: $version (file:// URL) built and decrypted (RWSecretKit, RNCryptorCompat; an RNCryptor-only program on RWSecretCore alone; age, OpenPGP and Ansible Vault through MessageOpener, a custom store that throws, async forms in a task group, an identity of its own, an OpenPGP key and a chain of mixed credentials)$linked"
