internal import CBotan

/// Passphrase-protected OpenSSH RSA keys (`ssh-keygen -t rsa -N PASS`): libssh 0.10 with
/// OpenSSL 3 decrypts them but keeps only n, e and d, so it cannot hand them over. rwsecret
/// reads the container itself (AgeSSHIdentity.container), derives the cipher's key and IV with
/// Botan's bcrypt-pbkdf (OpenSSL 3.0 has none; Botan is loaded with dlopen, on first use), opens
/// the private section with OpenSSL's AES-256-CTR (or AES-256-GCM), and reads the key with the unencrypted
/// key's reader once its two check numbers agree.
extension AgeSSHIdentity {
    /// Botan's entry points, or what is missing (`.noBotan`).
    static func botan() throws(ParseError) -> rws_botan {
        guard let api = botanTable.api else { throw .noBotan(botanTable.missing) }
        return api
    }

    /// Reads the passphrase-protected OpenSSH key `text` with `passphrase`; `.wrongPassphrase`
    /// when its check numbers differ.
    convenience init(botan text: String, passphrase: SecretBytes) throws(ParseError) {
        let api = try Self.botan()
        var data: [UInt8] = []
        defer { Crypto.cleanse(&data) }
        var container = try Self.container(text, data: &data)
        guard container.kdf == Array("bcrypt".utf8) else { throw .malformed("its key derivation \(Self.printable(container.kdf)) is not bcrypt") }
        // ssh-keygen's default cipher, and -Z aes256-gcm@openssh.com; others are named.
        let gcm = container.cipher == Array("aes256-gcm@openssh.com".utf8)
        guard gcm || container.cipher == Array("aes256-ctr".utf8) else {
            throw .malformed("encrypted with \(Self.printable(container.cipher)), which rwsecret does not read (aes256-ctr, aes256-gcm@openssh.com)")
        }
        let ivSize = gcm ? 12 : 16
        var options = SSHWireReader(container.kdfOptions)
        guard let salt = options.string(), let rounds = options.uint32(), options.atEnd, rounds > 0 else { throw .malformed("invalid bcrypt options") }
        // A bound on the work a key file may ask for (ssh-keygen writes 16; -a raises it).
        guard rounds <= 1 << 16 else { throw .malformed("asks for \(rounds) bcrypt rounds") }
        guard container.count == 1 else { throw .malformed("holds \(container.count) keys (one expected)") }
        guard let wire = container.reader.string(), let sealed = container.reader.string(), !sealed.isEmpty, sealed.count % 16 == 0 else {
            throw .malformed("truncated")
        }
        // GCM: the tag follows the section.
        let tag = Array(container.reader.rest.prefix(gcm ? OpenPGPAEADMode.tagSize : 0))
        guard tag.count == (gcm ? OpenPGPAEADMode.tagSize : 0) else { throw .malformed("truncated") }
        // bcrypt-pbkdf(passphrase, salt, rounds) → 32 bytes of AES-256 key, then the IV (16; GCM 12).
        var derived = [UInt8](repeating: 0, count: 32 + ivSize)
        defer { Crypto.cleanse(&derived) }
        DerivationWitness.deriving(from: passphrase)
        // A copy with a terminating NUL, so that an empty passphrase still has an address.
        var phrase = [UInt8](repeating: 0, count: passphrase.count + 1)
        defer { Crypto.cleanse(&phrase) }
        passphrase.withUnsafeBytes { for (index, byte) in $0.enumerated() { phrase[index] = byte } }
        let status = phrase.withUnsafeBufferPointer { phraseBytes in
            derived.withUnsafeMutableBufferPointer { out in
                api.botan_pwdhash("Bcrypt-PBKDF", Int(rounds), 0, 0, out.baseAddress, out.count,
                                  UnsafeRawPointer(phraseBytes.baseAddress!).assumingMemoryBound(to: CChar.self), passphrase.count, salt, salt.count)
            }
        }
        guard status == 0 else { throw .malformed("Botan's bcrypt-pbkdf failed (\(status))") }
        let aesKey = SecretBytes(derived[0..<32])
        let iv = Array(derived[32...])
        var section: [UInt8]
        if gcm {
            section = [UInt8](repeating: 0, count: sealed.count)
            guard let opener = OpenPGPAEADOpener(mode: .gcm, cipher: .aes256, key: aesKey) else { throw .malformed("OpenSSL refused AES-256-GCM") }
            let opened = sealed.withUnsafeBytes { ciphertext in
                tag.withUnsafeBytes { tagBytes in
                    section.withUnsafeMutableBytes { opener.open(ciphertext, tag: tagBytes, nonce: iv, ad: [], into: $0) }
                }
            }
            guard opened else {
                Crypto.cleanse(&section)
                throw .wrongPassphrase
            }
        } else {
            section = KindPrimitives.aes256CTR(key: aesKey, iv: iv, input: sealed)
        }
        defer { Crypto.cleanse(&section) }
        var checks = SSHWireReader(Array(section.prefix(8)))
        guard let check1 = checks.uint32(), let check2 = checks.uint32(), check1 == check2 else { throw .wrongPassphrase }
        let (key, type) = try Self.privateKey(section, wire: wire)
        self.init(key: key, wire: wire, stanzaType: type)
    }

    private static func printable(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(40).map { (0x20..<0x7f).contains($0) ? $0 : 0x3f }, as: UTF8.self)
    }
}

/// Botan's table (nil when it could not be loaded) and what was missing; loaded once.
private struct BotanTable {
    let api: rws_botan?
    let missing: String

    init() {
        var missing: UnsafePointer<CChar>?
        api = rws_botan_load(&missing)?.pointee
        self.missing = missing.map { String(cString: $0) } ?? ""
    }
}

// Written once by its initialiser, only read after.
private let botanTable = BotanTable()
