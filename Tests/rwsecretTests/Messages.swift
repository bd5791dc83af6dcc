import Foundation
import RWSecretKit

/// Messages made for the CLI tests with the library's own encryptor (interop with
/// other implementations is proven by the PyPI fixtures).
enum Messages {
    static func password(_ plaintext: String, _ password: String) -> String {
        Base64.encode(RNCryptor.encrypt(Array(plaintext.utf8), password: SecretBytes(utf8: password)))
    }

    static func raw(_ plaintext: [UInt8], _ password: String) -> [UInt8] {
        RNCryptor.encrypt(plaintext, password: SecretBytes(utf8: password))
    }

    static let encryptionKey = [UInt8](0..<32)
    static let hmacKey = [UInt8](32..<64)
    static var keys: MessageKeys { try! MessageKeys(encryptionKey: SecretBytes(encryptionKey), hmacKey: SecretBytes(hmacKey)) }
    static var keyHex: String { (encryptionKey + hmacKey).map { String(format: "%02x", $0) }.joined() }

    static func keyBased(_ plaintext: String) -> String {
        Base64.encode(RNCryptor.encrypt(Array(plaintext.utf8), keys: keys))
    }
}
