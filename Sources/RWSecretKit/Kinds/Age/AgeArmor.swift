/// The ASCII armor of an age file (`-----BEGIN AGE ENCRYPTED FILE-----`), decoded as a stream
/// with age's rules: lines of 64 columns of padded canonical base64, only the last one
/// shorter, LF or CRLF, whitespace allowed only before the first line and after the last
/// (at most 1 KiB each).
final class AgeArmorSource: ByteSource {
    static let beginLine = Array("-----BEGIN AGE ENCRYPTED FILE-----".utf8)
    static let endLine = Array("-----END AGE ENCRYPTED FILE-----".utf8)
    private static let maxWhitespace = 1024

    private let input: KindInput
    private var started = false
    private var finished = false
    private var pending: [UInt8] = []
    private var pendingStart = 0

    init(_ input: KindInput) { self.input = input }

    /// Whether `prefix`, after leading whitespace, begins the armor.
    static func detect(_ prefix: ArraySlice<UInt8>) -> Bool {
        let rest = prefix.drop(while: isSpace)
        return rest.starts(with: beginLine)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d || byte == 0x0b || byte == 0x0c
    }

    /// One line without its LF or CRLF; an error at the end of the input.
    private func line() throws(KindError) -> ArraySlice<UInt8> {
        guard var line = try input.readLine(limit: 4096) else { throw .armor("unexpected end of file") }
        if line.last == UInt8(ascii: "\n") { line.removeLast() }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }

    /// After the end line: at most 1 KiB of whitespace, then nothing.
    private func drainTrailing() throws(KindError) {
        let rest = try input.peek(Self.maxWhitespace)
        guard rest.allSatisfy(Self.isSpace) else { throw .armor("trailing data after the armored file") }
        guard rest.count < Self.maxWhitespace else { throw .armor("too much trailing whitespace") }
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

    private func decodeNextLine() throws(KindError) {
        var removed = 0
        while !started {
            let first = try line()
            if first.allSatisfy(Self.isSpace) {
                removed += first.count + 1
                guard removed <= Self.maxWhitespace else { throw .armor("too much leading whitespace") }
                continue
            }
            guard first.elementsEqual(Self.beginLine) else { throw .armor("invalid first line") }
            started = true
        }
        let next = try line()
        if next.elementsEqual(Self.endLine) {
            try drainTrailing()
            finished = true
            return
        }
        guard !next.isEmpty else { throw .armor("empty line in armored data") }
        guard next.count <= 64 else { throw .armor("line longer than 64 columns") }
        guard let decoded = AgeEncoding.decodePadded(next) else { throw .armor("invalid base64 line") }
        pending = decoded
        pendingStart = 0
        if decoded.count < 48 {
            guard try line().elementsEqual(Self.endLine) else { throw .armor("invalid closing line") }
            try drainTrailing()
            finished = true
        }
    }
}
