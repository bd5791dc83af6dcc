import COpenSSL
import RWSecretKit

/// RNCryptor messages assembled by hand with OpenSSL directly — not through the engine —
/// so a test can make a message that is authentic yet carries any padding, of any version.
enum HandMadeMessage {
    /// `blocks` (whole 16-byte blocks, taken as they are: no padding is added) enciphered
    /// with AES-256-CBC, framed with a header of `version`, and authenticated the way that
    /// version does it (v1: the ciphertext only; v2 and v3: header and ciphertext).
    static func make(version: UInt8, salts: (encryption: [UInt8], hmac: [UInt8])?, iv: [UInt8],
                     encryptionKey: [UInt8], hmacKey: [UInt8], blocks: [UInt8]) -> [UInt8] {
        precondition(blocks.count % 16 == 0 && iv.count == 16 && encryptionKey.count == 32)
        var header: [UInt8] = [version, salts == nil ? 0 : 1]
        if let salts { header += salts.encryption + salts.hmac }
        header += iv
        let ciphertext = aes256CBCNoPadding(key: encryptionKey, iv: iv, blocks)
        let authenticated = version == 1 ? ciphertext : header + ciphertext
        return header + ciphertext + hmacSHA256(key: hmacKey, authenticated)
    }

    /// A password-based message of `version` under an ASCII `password` (keys from OpenSSL's PBKDF2).
    static func passwordBased(version: UInt8, password: String, blocks: [UInt8]) -> [UInt8] {
        let salts = (encryption: [UInt8](repeating: 0x5A, count: 8), hmac: [UInt8](repeating: 0xA5, count: 8))
        return make(version: version, salts: salts, iv: [UInt8](0..<16),
                    encryptionKey: pbkdf2(password, salt: salts.encryption), hmacKey: pbkdf2(password, salt: salts.hmac),
                    blocks: blocks)
    }

    /// A v3 key-based message.
    static func keyBased(encryptionKey: [UInt8], hmacKey: [UInt8], blocks: [UInt8]) -> [UInt8] {
        make(version: 3, salts: nil, iv: [UInt8](100..<116), encryptionKey: encryptionKey, hmacKey: hmacKey, blocks: blocks)
    }

    static func aes256CBCNoPadding(key: [UInt8], iv: [UInt8], _ input: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        let ctx = EVP_CIPHER_CTX_new()!
        defer { EVP_CIPHER_CTX_free(ctx) }
        precondition(EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), nil, key, iv) == 1)
        precondition(EVP_CIPHER_CTX_set_padding(ctx, 0) == 1)
        if !input.isEmpty { precondition(EVP_EncryptUpdate(ctx, &output, &written, input, Int32(input.count)) == 1) }
        precondition(Int(written) == input.count)
        return Array(output[0..<input.count])
    }

    static func hmacSHA256(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &tag, &length) != nil && length == 32)
        return tag
    }

    static func pbkdf2(_ password: String, salt: [UInt8]) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        let bytes = Array(password.utf8)
        precondition(PKCS5_PBKDF2_HMAC(password, Int32(bytes.count), salt, Int32(salt.count), 10_000, EVP_sha1(), 32, &key) == 1)
        return key
    }
}
