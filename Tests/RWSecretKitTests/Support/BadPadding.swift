import COpenSSL
import RWSecretKit

/// A v3 key-based message whose HMAC is right but whose padding is not:
/// one block ending in 0x00 enciphered without padding, then authenticated.
enum BadPadding {
    static func message(keys: MessageKeys) -> [UInt8] {
        let iv = [UInt8](repeating: 7, count: 16)
        let block = [UInt8](repeating: 0x41, count: 15) + [0x00]
        var ciphertext = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        let ctx = EVP_CIPHER_CTX_new()!
        defer { EVP_CIPHER_CTX_free(ctx) }
        keys.encryptionKey.withUnsafeBytes { key in
            _ = EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), nil, key.baseAddress!.assumingMemoryBound(to: UInt8.self), iv)
        }
        EVP_CIPHER_CTX_set_padding(ctx, 0)
        _ = EVP_EncryptUpdate(ctx, &ciphertext, &written, block, 16)
        let body = [3, 0] + iv + Array(ciphertext[0..<16])
        var tag = [UInt8](repeating: 0, count: 32)
        var tagLength: UInt32 = 0
        keys.hmacKey.withUnsafeBytes { key in
            _ = HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), body, body.count, &tag, &tagLength)
        }
        return body + tag
    }
}
