/// Another encrypted format that a message may turn out to be, recognised by its first bytes.
///
/// Neither is RNCryptor, and no password opens them here; recognising them lets a
/// program say what the input is instead of `unknown version`.
package enum ForeignFormat: Sendable, Equatable, CaseIterable {
    /// OpenSSL `enc` with a salt: the 8 bytes `Salted__`, an 8-byte salt, then the ciphertext.
    case openSSLEnc
    /// The RNCryptor v4 draft (never finished): the bytes `RNC` and then version 4.
    case rncryptorV4Draft

    /// The first bytes that identify the format.
    package var magic: [UInt8] {
        switch self {
        case .openSSLEnc: Array("Salted__".utf8)
        case .rncryptorV4Draft: Array("RNC".utf8) + [4]
        }
    }

    /// The format `prefix` starts with, if it holds the whole magic of one.
    package init?(prefix: some Collection<UInt8>) {
        self.init(prefix: ArraySlice(prefix.prefix(8)))
    }

    /// The same for the bytes a reader holds. Concrete, so that the kind registry's call on
    /// every input compiles to a byte comparison: the generic form, called across modules
    /// unspecialised, asked the runtime for the collection's associated types and cost a
    /// one-message run 0.4 M instructions (issue 36).
    package init?(prefix: ArraySlice<UInt8>) {
        for format in Self.allCases where prefix.starts(with: format.magic) {
            self = format
            return
        }
        return nil
    }

    /// The error a decryptor reports for it.
    package var error: RNCryptorError {
        switch self {
        case .openSSLEnc: .openSSLEnc
        case .rncryptorV4Draft: .rncryptorV4Draft
        }
    }
}
