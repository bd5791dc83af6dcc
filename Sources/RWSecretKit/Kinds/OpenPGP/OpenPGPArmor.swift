/// OpenPGP's ASCII armor (RFC 9580 6) around a message, decoded as a stream: the
/// `-----BEGIN PGP MESSAGE-----` line, armor headers up to a blank line, base64 lines, an
/// optional `=XXXX` CRC-24 line (checked when present), and the END line. Other text may come
/// before the BEGIN line (an e-mail: "Hi Bob, here it is:"), and is skipped, as gpg skips it;
/// what follows the END line is not read.
final class OpenPGPArmorSource: ByteSource {
    static let beginLine = Array("-----BEGIN PGP MESSAGE-----".utf8)
    static let endLine = Array("-----END PGP MESSAGE-----".utf8)
    static let signedLine = Array("-----BEGIN PGP SIGNED MESSAGE-----".utf8)
    private static let maxWhitespace = 1024
    private static let lineLimit = 1 << 16

    private let input: KindInput
    private var started = false
    private var finished = false
    private var pending: [UInt8] = []
    private var pendingStart = 0
    /// Base64 digits not yet decoded (fewer than 4), carried across lines.
    private var carry: [UInt8] = []
    private var padded = false
    private var crc: UInt32 = 0xB7_04CE

    init(_ input: KindInput) { self.input = input }

    /// Whether `prefix` holds a BEGIN PGP MESSAGE line (or begins with a clear-signed one): first,
    /// after whitespace, or at the start of a later line (armor inside other text).
    static func holdsArmor(_ prefix: ArraySlice<UInt8>) -> Bool {
        let text = trimmed(prefix)
        if text.starts(with: beginLine) || text.starts(with: signedLine) { return true }
        var index = text.startIndex
        while let newline = text[index...].firstIndex(of: 0x0a) {
            index = newline + 1
            if text[index...].drop(while: { $0 == 0x20 || $0 == 0x09 }).starts(with: beginLine) { return true }
        }
        return false
    }

    /// `prefix` without leading whitespace.
    static func trimmed(_ prefix: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        prefix.drop(while: isSpace)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d || byte == 0x0b || byte == 0x0c
    }

    /// One line without its line end and trailing whitespace; nil at the end of the input.
    private func line() throws(KindError) -> ArraySlice<UInt8>? {
        guard var line = try input.readLine(limit: Self.lineLimit) else { return nil }
        while let last = line.last, Self.isSpace(last) { line.removeLast() }
        return line
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        while pendingStart == pending.count {
            if finished { return 0 }
            try decodeNextLine()
        }
        let n = min(buffer.count, pending.count - pendingStart)
        pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + pendingStart, byteCount: n) }
        pendingStart += n
        return n
    }

    private func start() throws(KindError) {
        var skipped = 0
        var first = true
        while true {
            guard let next = try line() else { throw .armor("no BEGIN PGP MESSAGE line") }
            let text = Self.trimmed(next)
            if text.elementsEqual(Self.beginLine) { break }
            if first && text.elementsEqual(Self.signedLine) { throw .refused("a clear-signed message: not encrypted") }
            if !text.isEmpty { first = false }
            // Text before the block is skipped, up to 1024 lines.
            skipped += 1
            guard skipped <= Self.maxWhitespace else { throw .armor("no BEGIN PGP MESSAGE line in the first \(Self.maxWhitespace) lines") }
        }
        // Armor headers ("Key: Value") up to a blank line.
        var headers = 0
        while true {
            guard let header = try line() else { throw .armor("the armor ends in its headers") }
            if header.isEmpty { break }
            guard header.contains(UInt8(ascii: ":")) else { throw .armor("an armor header without a colon (a blank line must end the headers)") }
            headers += 1
            guard headers <= 256 else { throw .armor("too many armor headers") }
        }
        started = true
    }

    private func decodeNextLine() throws(KindError) {
        if !started { try start() }
        guard let next = try line() else { throw .armor("no END PGP MESSAGE line (truncated armor)") }
        let text = Self.trimmed(next)
        if text.elementsEqual(Self.endLine) {
            try finish(checksum: nil)
            return
        }
        if text.first == UInt8(ascii: "=") && text.count == 5 {
            guard let sum = Self.decodeCRC(text.dropFirst()) else { throw .armor("malformed checksum line") }
            guard let end = try line(), Self.trimmed(end).elementsEqual(Self.endLine) else { throw .armor("no END line after the checksum") }
            try finish(checksum: sum)
            return
        }
        guard !text.isEmpty else { return }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4 + 3)
        for c in text {
            if Self.isSpace(c) { continue }
            if c == UInt8(ascii: "=") {
                carry.append(c)
                padded = true
            } else {
                guard !padded, Self.value(c) != nil else { throw .armor("invalid base64") }
                carry.append(c)
            }
            if carry.count == 4 {
                try Self.decodeQuad(carry, into: &out)
                carry.removeAll(keepingCapacity: true)
            }
        }
        crc = Self.crc24(crc, out)
        pending = out
        pendingStart = 0
    }

    private func finish(checksum: UInt32?) throws(KindError) {
        guard carry.isEmpty else { throw .armor("base64 cut short") }
        if let checksum, checksum != crc & 0xFF_FFFF { throw .armor("CRC-24 checksum mismatch") }
        finished = true
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    private static func decodeQuad(_ q: [UInt8], into out: inout [UInt8]) throws(KindError) {
        let pads = q.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard pads <= 2, !q[0..<(4 - pads)].contains(UInt8(ascii: "=")) else { throw .armor("invalid base64 padding") }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 6 | UInt32(i < 4 - pads ? value(q[i])! : 0) }
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        if pads < 2 { out.append(UInt8(truncatingIfNeeded: v >> 8)) }
        if pads < 1 { out.append(UInt8(truncatingIfNeeded: v)) }
    }

    private static func decodeCRC(_ text: ArraySlice<UInt8>) -> UInt32? {
        var v: UInt32 = 0
        for c in text {
            guard let d = value(c) else { return nil }
            v = v << 6 | UInt32(d)
        }
        return v
    }

    /// CRC-24 (RFC 9580 6.1).
    static func crc24(_ start: UInt32, _ bytes: [UInt8]) -> UInt32 {
        var crc = start
        for byte in bytes {
            crc ^= UInt32(byte) << 16
            for _ in 0..<8 {
                crc <<= 1
                if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
            }
        }
        return crc & 0xFF_FFFF
    }
}
