@_spi(_Unicode) import Swift

/// The byte strings that RNCryptor implementations have fed to PBKDF2 for one typed password.
///
/// Implementations disagree on how a non-ASCII password becomes bytes, and a
/// message carries no trace of which one wrote it, so a decryptor that wants to
/// open what people hold tries each form an implementation is known to have
/// written for the message's version:
///
/// - v0, v1, v2: the UTF-8 bytes cut to the UTF-16 length (the Objective-C
///   original's v2 bug: a character count used as a byte count), cut to the
///   code-point count (PHP's `mb_strlen`, Ruby's `String#length`), and not cut
///   (Ruby's v2 encryptor, the original's v1). For v1 the reference form (not
///   cut) comes first; for v0 and v2 the original's cut form.
/// - v3: the UTF-8 bytes, then one byte per UTF-16 unit, its low byte
///   (JSCryptor's `Buffer.from(password, 'binary')`).
///
/// A non-ASCII password is also tried in its other Unicode normalization form
/// (NFD when given as NFC, and the reverse; macOS, iOS and Linux input methods
/// differ): first every dialect of the password as given, then every dialect of
/// the other form. Each distinct byte string appears once. An ASCII password,
/// or one that is not valid UTF-8, has exactly one form (what it cost before).
package enum PasswordDialects {
    /// The PBKDF2 inputs to try for `password` on a message of `version`, reference form first.
    package static func kdfPasswords(_ password: SecretBytes, version: UInt8) -> [SecretBytes] {
        let isASCII = password.withUnsafeBytes { raw in raw.allSatisfy { $0 < 0x80 } }
        guard !isASCII, let text = password.decodedUTF8() else {
            return [MessageHeader.originalKDFPassword(password, version: version)]
        }
        var forms = [password]
        if let other = otherNormalizationForm(of: text) {
            forms.append(SecretBytes(other))
        }
        var result: [SecretBytes] = []
        for form in forms {
            for candidate in dialects(of: form, version: version)
            where !result.contains(where: { $0.isEqual(to: candidate) }) {
                result.append(candidate)
            }
        }
        return result
    }

    /// The dialects of one (valid UTF-8, non-ASCII) byte string, in the order tried.
    static func dialects(of password: SecretBytes, version: UInt8) -> [SecretBytes] {
        let counts = password.withUnsafeBytes { raw -> (scalars: Int, utf16: Int) in
            var scalars = 0, utf16 = 0
            var decoder = UTF8()
            var iterator = raw.makeIterator()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): scalars += 1; utf16 += s.value > 0xFFFF ? 2 : 1
                case .emptyInput, .error: break loop
                }
            }
            return (scalars, utf16)
        }
        switch version {
        case 3:
            return [password, lowBytesOfUTF16(password)]
        case 1:
            return [password, password.slice(0..<min(counts.utf16, password.count)), password.slice(0..<min(counts.scalars, password.count))]
        default:
            return [password.slice(0..<min(counts.utf16, password.count)), password.slice(0..<min(counts.scalars, password.count)), password]
        }
    }

    /// One byte per UTF-16 code unit: its low byte (what Node's `'binary'` encoding keeps).
    static func lowBytesOfUTF16(_ password: SecretBytes) -> SecretBytes {
        guard let text = password.decodedUTF8() else { return password }
        var units = Array(text.utf16)
        defer { for i in units.indices { units[i] = 0 } }
        return SecretBytes(count: units.count) { out in
            for (i, unit) in units.enumerated() { out[i] = UInt8(truncatingIfNeeded: unit) }
        }
    }

    /// The UTF-8 bytes of `text` in the other normalization form, or nil when NFC and NFD agree
    /// or `text` is in neither form (then its NFC form is returned, if it differs).
    ///
    /// Uses the Swift standard library's own normalization (`_nfcCodeUnits`, `_nfd`), so
    /// neither Foundation nor ICU is loaded; nothing runs unless a password is non-ASCII.
    package static func otherNormalizationForm(of text: String) -> [UInt8]? {
        var given = Array(text.utf8)
        var nfc = text._nfcCodeUnits
        var nfd: [UInt8] = []
        defer {
            for i in given.indices { given[i] = 0 }
            for i in nfc.indices { nfc[i] = 0 }
            for i in nfd.indices { nfd[i] = 0 }
        }
        if #available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *) {
            for scalar in text._nfd { nfd.append(contentsOf: UTF8.encode(scalar)!) }
        } else {
            return nfc == given ? nil : nfc
        }
        if given == nfc { return nfd == given ? nil : nfd }
        return nfc
    }
}
