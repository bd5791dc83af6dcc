/// OpenPGP packet framing (RFC 9580 4.2): old- and new-format headers, and bodies of a known
/// length, of partial lengths, or (old format) running to the end of the input.
enum OpenPGPPacket {
    /// How a packet's body is delimited.
    enum Length: Equatable {
        case fixed(Int)
        /// The first part of a body in partial lengths (more parts follow).
        case partial(Int)
        /// Old format, length type 3: the body runs to the end of the input.
        case indeterminate
    }

    /// A packet's header.
    struct Header: Equatable {
        let tag: UInt8
        let length: Length
    }

    /// The largest packet body this parser accepts in one fixed length or one partial part
    /// (lengths are at most 2^32 - 1 in the format).
    static let maxLength = Int(UInt32.max)

    /// The next packet's header; nil at the end of `input`.
    static func readHeader(_ input: KindInput) throws(KindError) -> Header? {
        let first = try input.read(count: 1)
        guard let byte = first.first else { return nil }
        guard byte & 0x80 != 0 else { throw .header("not an OpenPGP packet (byte 0x\(String(byte, radix: 16)))") }
        if byte & 0x40 != 0 {
            return Header(tag: byte & 0x3f, length: try readNewLength(input, allowPartial: true))
        }
        let tag = (byte >> 2) & 0x0f
        let size: Int
        switch byte & 3 {
        case 0: size = 1
        case 1: size = 2
        case 2: size = 4
        default: return Header(tag: tag, length: .indeterminate)
        }
        let bytes = try input.read(count: size)
        guard bytes.count == size else { throw .header("packet header cut short") }
        return Header(tag: tag, length: .fixed(bytes.reduce(0) { $0 << 8 | Int($1) }))
    }

    /// A new-format length (also the length of each further part of a partial body).
    static func readNewLength(_ input: KindInput, allowPartial: Bool) throws(KindError) -> Length {
        let first = try input.read(count: 1)
        guard let b0 = first.first else { throw .header("packet length missing") }
        switch b0 {
        case 0..<192:
            return .fixed(Int(b0))
        case 192..<224:
            let b1 = try input.read(count: 1)
            guard let second = b1.first else { throw .header("packet length cut short") }
            return .fixed((Int(b0) - 192) << 8 + Int(second) + 192)
        case 255:
            let bytes = try input.read(count: 4)
            guard bytes.count == 4 else { throw .header("packet length cut short") }
            return .fixed(bytes.reduce(0) { $0 << 8 | Int($1) })
        default:
            guard allowPartial else { throw .header("a partial length where none may be") }
            return .partial(1 << Int(b0 & 0x1f))
        }
    }
}

/// The body of one packet, read through its framing: fixed, partial parts, or to the end.
final class OpenPGPBodySource: ByteSource {
    private let input: KindInput
    /// Bytes left in the current part; nil: to the end of the input.
    private var left: Int?
    /// Whether more parts follow the current one.
    private var partial: Bool

    init(_ input: KindInput, length: OpenPGPPacket.Length) {
        self.input = input
        switch length {
        case .fixed(let n): left = n; partial = false
        case .partial(let n): left = n; partial = true
        case .indeterminate: left = nil; partial = false
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            guard let remaining = left else { return try input.readFull(into: buffer) }
            if remaining == 0 {
                guard partial else { return 0 }
                switch try OpenPGPPacket.readNewLength(input, allowPartial: true) {
                case .fixed(let n): left = n; partial = false
                case .partial(let n): left = n
                case .indeterminate: throw .header("packet length missing")
                }
                continue
            }
            let n = try input.readFull(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, remaining)]))
            guard n > 0 else { throw .header("a packet cut short (truncated message)") }
            left = remaining - n
            return n
        }
    }

    /// The whole body, up to `limit` bytes (a longer one is an error).
    func readAll(limit: Int) throws(KindError) -> [UInt8] {
        let bytes = try readBytes(upTo: limit + 1)
        guard bytes.count <= limit else { throw .header("a packet longer than \(limit) bytes") }
        return bytes
    }

    /// Up to `count` next bytes (fewer only at the end of the body).
    func readPrefix(_ count: Int) throws(KindError) -> [UInt8] {
        try readBytes(upTo: count)
    }

    /// Reads and drops the rest of the body.
    func skip() throws(KindError) {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { chunk.deallocate() }
        while try read(into: chunk) > 0 {}
    }
}

extension ByteSource {
    /// Up to `count` next bytes, fewer only at the end.
    func readBytes(upTo count: Int) throws(KindError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        defer {
            Crypto.cleanse(buffer)
            buffer.deallocate()
        }
        var done = 0
        while done < count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done..<count]))
            if n == 0 { break }
            done += n
        }
        return Array(buffer[0..<done])
    }
}
