/// Hexadecimal text, for known answers in the library and test vectors in the tests.
package enum Hex {
    /// The bytes of `text`: pairs of hex digits (either case), whitespace ignored.
    /// Only for constants and test vectors: anything else is a programming error.
    package static func decode(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        for c in text.utf8 {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): continue
            default: preconditionFailure("not hex: \(text)")
            }
            if let h = high { bytes.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        precondition(high == nil, "an odd number of hex digits")
        return bytes
    }

    /// Lowercase hex digits of `bytes`.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes { text.append(digits[Int(byte >> 4)]); text.append(digits[Int(byte & 15)]) }
        return String(decoding: text, as: UTF8.self)
    }
}
