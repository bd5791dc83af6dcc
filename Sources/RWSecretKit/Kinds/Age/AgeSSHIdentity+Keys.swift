internal import CLibSSH
#if canImport(Glibc)
internal import Glibc
#endif

/// SSH private keys as people have them: PEM RSA keys (`ssh-keygen -m PEM`, older `id_rsa`
/// files; OpenSSL's PEM reader) and keys protected by a passphrase (libssh's key import:
/// bcrypt-pbkdf and the key's cipher are the library's, never rwsecret's own code; for RSA
/// keys, which libssh cannot hand over, Botan's bcrypt-pbkdf and OpenSSL's AES-256-CTR).
extension AgeSSHIdentity {
    /// Reads the private key `text` holds (an OpenSSH or PEM private key), with `passphrase`
    /// when it is protected by one. Throws `.encrypted` for a protected key without a
    /// passphrase, `.wrongPassphrase` when the passphrase does not open it.
    package convenience init(key text: String, passphrase: SecretBytes?) throws(ParseError) {
        let trimmed = text.trimmingASCIIWhitespace()
        if Self.pemBegins.contains(where: { trimmed.hasPrefix($0) }) {
            let encrypted = trimmed.hasPrefix("-----BEGIN ENCRYPTED") || trimmed.containsText("Proc-Type: 4,ENCRYPTED")
            if encrypted && passphrase == nil { throw .encrypted }
            try self.init(pem: Array(trimmed.utf8), passphrase: passphrase, encrypted: encrypted)
            return
        }
        do {
            try self.init(openSSH: text)
        } catch .encrypted {
            guard let passphrase else { throw .encrypted }
            try self.init(libSSH: trimmed, passphrase: passphrase)
        } catch .encryptedRSA {
            // Botan's bcrypt-pbkdf (AgeSSHIdentity+Botan): said missing before a passphrase is asked.
            _ = try Self.botan()
            guard let passphrase else { throw .encrypted }
            try self.init(botan: text, passphrase: passphrase)
        }
    }

    private convenience init(pem: [UInt8], passphrase: SecretBytes?, encrypted: Bool) throws(ParseError) {
        guard let rsa = RSAKey(pem: pem, passphrase: passphrase) else {
            throw encrypted ? .wrongPassphrase : .malformed("OpenSSL cannot read this PEM key as RSA")
        }
        guard let wire = rsa.sshWire else { throw .malformed("invalid RSA key") }
        self.init(key: .rsa(rsa), wire: wire, stanzaType: "ssh-rsa")
    }

    /// A passphrase-protected OpenSSH key: libssh imports it with the passphrase and exports
    /// it without one (an OpenSSH key for ed25519, PEM for RSA), which the readers above take.
    /// The unprotected copy lives in memory only, and is wiped.
    private convenience init(libSSH text: String, passphrase: SecretBytes) throws(ParseError) {
        DerivationWitness.deriving(from: passphrase)  // libssh's bcrypt-pbkdf, on this thread
        var missing: UnsafePointer<CChar>?
        guard let api = rws_libssh_load(&missing) else { throw .noLibSSH(missing.map { String(cString: $0) } ?? "libssh") }
        var phrase = [UInt8](repeating: 0, count: passphrase.count + 1)
        defer { Crypto.cleanse(&phrase) }
        passphrase.withUnsafeBytes { for (index, byte) in $0.enumerated() { phrase[index] = byte } }
        var key: rws_ssh_key?
        let imported = phrase.withUnsafeBytes { phraseBytes in
            text.withCString { api.pointee.ssh_pki_import_privkey_base64($0, phraseBytes.baseAddress!.assumingMemoryBound(to: CChar.self), nil, nil, &key) }
        }
        guard imported == 0, let key else { throw .wrongPassphrase }
        defer { api.pointee.ssh_key_free(key) }
        var exported: UnsafeMutablePointer<CChar>?
        guard api.pointee.ssh_pki_export_privkey_base64(key, nil, nil, nil, &exported) == 0, let exported else {
            throw .malformed("libssh could not read the key")
        }
        let length = strlen(exported)
        var plain = Array(UnsafeBufferPointer(start: UnsafeRawPointer(exported).assumingMemoryBound(to: UInt8.self), count: length))
        defer { Crypto.cleanse(&plain) }
        memset(exported, 0, length)
        api.pointee.ssh_string_free_char(exported)
        let unprotected = String(decoding: plain, as: UTF8.self)
        if Self.pemBegins.contains(where: { unprotected.hasPrefix($0) }) {
            try self.init(pem: plain, passphrase: nil, encrypted: false)
        } else {
            try self.init(openSSH: unprotected)
        }
    }
}
