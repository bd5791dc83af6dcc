import RWSecretKit

// A consumer's code, written against the public API alone: `OpenPGPWriterPublicTests` runs it,
// and typechecks this very file as a program that depends on RWSecretKit does (no `package`
// symbols, no `@testable`). What `rwsecret encrypt --to-key` does, a program does here.

/// Writing OpenPGP messages to public keys, streamed.
enum ConsumerKeyWriter {
    /// The message of `plaintext` (given in `chunk`-byte pieces) to every key of `keyFiles`
    /// at `now`, and how each key was taken (its certificate, the encryption key, its version).
    static func encrypt(_ plaintext: [UInt8], chunk: Int, to keyFiles: [[UInt8]], armor: Bool, now: UInt64,
                        fileName: String = "notes.txt") throws -> (message: [UInt8], keys: [String]) {
        var recipients: [OpenPGP.Recipient] = []
        var keys: [String] = []
        for file in keyFiles {
            for certificate in try OpenPGP.Certificate.parse(file) {
                let recipient = try OpenPGP.Recipient(certificate, now: now)
                recipients.append(recipient)
                keys.append("\(certificate) v\(certificate.version): \(recipient) v\(recipient.version)")
            }
        }
        let writer = try OpenPGP.Writer(to: recipients, armor: armor, fileName: Array(fileName.utf8), date: UInt32(truncatingIfNeeded: now))
        var message: [UInt8] = []
        var start = 0
        repeat {
            message += writer.update(plaintext[start..<min(start + chunk, plaintext.count)])
            start += chunk
        } while start < plaintext.count
        message += writer.finalize()
        return (message, keys)
    }

    /// The code `encrypt` is refused with (nil: it was not).
    static func refusal(_ keyFiles: [[UInt8]], now: UInt64) -> OpenPGP.KeyError.Code? {
        do { _ = try encrypt([1, 2, 3], chunk: 3, to: keyFiles, armor: false, now: now) } catch let error as OpenPGP.KeyError {
            return error.code
        } catch { return nil }
        return nil
    }
}
