/// Base64 as rwsecret reads and writes it, without Foundation.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 255 marks a byte that is not in the standard alphabet.
    private static let standardValues: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// 255 marks a byte that is not in the (lenient) alphabet: the standard one and the URL-safe `-` and `_`.
    private static let values: [UInt8] = {
        var table = standardValues
        table[Int(UInt8(ascii: "-"))] = 62  // URL-safe alphabet
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Whether `byte` is a character of the standard or URL-safe alphabet (not `=`).
    package static func isAlphabetCharacter(_ byte: UInt8) -> Bool { values[Int(byte)] != 255 }

    /// Standard base64 with `=` padding.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        encode(bytes, padded: true, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the standard base64 of `bytes` to `out`, with `=` padding or without (age's
    /// header and keys).
    package static func encode(_ bytes: some Collection<UInt8>, padded: Bool, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next(), b2 = iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            if let b1 { out.append(alphabet[Int((b1 & 0x0f) << 2 | (b2 ?? 0) >> 6)]) } else if padded { out.append(UInt8(ascii: "=")) }
            if let b2 { out.append(alphabet[Int(b2 & 0x3f)]) } else if padded { out.append(UInt8(ascii: "=")) }
        }
    }

    /// Decodes standard or URL-safe base64, with or without `=` padding, as a server receives
    /// it: line breaks (`\n` or `\r\n`) are skipped wherever they are, so a trailing one and
    /// lines wrapped by PEM, MIME or `base64(1)` decode too.
    ///
    /// Returns nil for anything else: a byte outside both alphabets (a space, a tab, a `\r`
    /// not followed by `\n`), padding anywhere but at the end, more than two `=`, or a length
    /// no base64 text can have.
    package static func decodeLenient(_ text: some Collection<UInt8>) -> [UInt8]? {
        let newline = UInt8(ascii: "\n")
        guard text.contains(newline) else { return decodeUnbroken(text) }
        var joined: [UInt8] = []
        joined.reserveCapacity(text.count)
        for c in text {
            if c == newline {
                if joined.last == UInt8(ascii: "\r") { joined.removeLast() }  // \r\n; a lone \r stays, and is refused
            } else {
                joined.append(c)
            }
        }
        return decodeUnbroken(joined)
    }

    /// `decodeLenient` of text without line breaks.
    private static func decodeUnbroken(_ text: some Collection<UInt8>) -> [UInt8]? {
        var padding = 0
        for c in text.reversed() {
            guard c == UInt8(ascii: "=") else { break }
            padding += 1
        }
        guard padding <= 2 else { return nil }
        let significant = text.count - padding
        guard significant % 4 != 1 else { return nil }
        if padding > 0 && (significant + padding) % 4 != 0 { return nil }
        return decodeDigits(text.prefix(significant), lenient: true, canonical: false)
    }

    /// Decodes base64 digits with no `=` padding: the lenient alphabet (standard and URL-safe)
    /// or the standard one alone; `canonical` also requires the unused low bits of the last
    /// digit to be zero (as age does). Nil for any other byte or a length base64 cannot have.
    package static func decodeDigits(_ digits: some Collection<UInt8>, lenient: Bool, canonical: Bool) -> [UInt8]? {
        guard digits.count % 4 != 1 else { return nil }
        let table = lenient ? values : standardValues
        var out: [UInt8] = []
        out.reserveCapacity(digits.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in digits {
            let value = table[Int(c)]
            guard value != 255 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        if canonical && accumulator & ((1 << UInt32(bits)) - 1) != 0 { return nil }
        return out
    }
}
