/// The encodings age's format is strict about: canonical base64 (unpadded in the header,
/// padded in the armor) and Bech32 for keys.
enum AgeEncoding {
    /// Standard-alphabet base64 without padding, canonical (unused bits zero); nil otherwise.
    static func decodeRaw(_ text: some Collection<UInt8>) -> [UInt8]? {
        Base64.decodeDigits(text, lenient: false, canonical: true)
    }

    /// Standard-alphabet base64 with the `=` padding its length needs, canonical; nil otherwise.
    static func decodePadded(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var body = text
        var padding = 0
        while padding < 2, body.last == UInt8(ascii: "=") {
            body.removeLast()
            padding += 1
        }
        guard !body.contains(UInt8(ascii: "=")), padding == 0 || body.count % 4 != 0 else { return nil }
        return decodeRaw(body)
    }

    /// Unpadded canonical base64 of `bytes`.
    static func encodeRaw(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        Base64.encode(bytes, padded: false, into: &out)
        return out
    }

    // MARK: Bech32 (BIP 173), as age uses it for keys: no length limit, one case throughout.

    static let bech32Charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var check: UInt32 = 1
        for value in values {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(value)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { check ^= generator[i] }
        }
        return check
    }

    /// The human-readable part (lower case) and the data bytes of a Bech32 string; nil when it is
    /// not valid Bech32 (mixed case, a bad character or checksum, bits left over).
    static func decodeBech32(_ text: String) -> (hrp: String, data: [UInt8])? {
        let bytes = Array(text.utf8)
        let hasLower = bytes.contains { $0 >= 0x61 && $0 <= 0x7a }
        let hasUpper = bytes.contains { $0 >= 0x41 && $0 <= 0x5a }
        guard !(hasLower && hasUpper), bytes.allSatisfy({ $0 >= 33 && $0 <= 126 }) else { return nil }
        let lower = bytes.map { $0 >= 0x41 && $0 <= 0x5a ? $0 + 32 : $0 }
        guard let separator = lower.lastIndex(of: UInt8(ascii: "1")), separator >= 1, lower.count - separator - 1 >= 6 else { return nil }
        let hrp = Array(lower[..<separator])
        var values: [UInt8] = []
        for c in lower[(separator + 1)...] {
            guard let v = bech32Charset.firstIndex(of: c) else { return nil }
            values.append(UInt8(v))
        }
        let expanded = hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
        guard polymod(expanded + values) == 1 else { return nil }
        // 5-bit groups to bytes; leftover bits must be fewer than 5 and zero.
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for v in values.dropLast(6) {
            accumulator = accumulator << 5 | UInt32(v)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard bits < 5, accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return (String(decoding: hrp, as: UTF8.self), out)
    }
}
