import CZlib
import Foundation
@testable import RWSecretKit
import Testing

/// A sink (and its spools) that counts what it holds: the most bytes it, and every spool it
/// handed out, held at one time, as a disk would.
final class CountingSink: PlaintextSink {
    private(set) var bytes: [UInt8] = []
    private(set) var spooled = 0
    private(set) var peak = 0

    func write(_ chunk: UnsafeRawBufferPointer) throws(KindError) {
        bytes.append(contentsOf: chunk)
        peak = max(peak, bytes.count + spooled)
    }

    func discard() { bytes = [] }

    func makeSpool() throws(KindError) -> any PlaintextSpool { Spool(self) }

    final class Spool: PlaintextSpool {
        let sink: CountingSink
        let inner = MemorySpool()
        init(_ sink: CountingSink) { self.sink = sink }
        func write(_ chunk: UnsafeRawBufferPointer) throws(KindError) {
            try inner.write(chunk)
            sink.spooled += chunk.count
            sink.peak = max(sink.peak, sink.bytes.count + sink.spooled)
        }
        func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
            try inner.read(at: offset, into: buffer)
        }
    }
}

@Suite("OpenPGP: what a message may make rwsecret spend (issue 32, item 4)")
struct OpenPGPBoundsTests {
    static let password = Array("bounded".utf8)

    /// A zlib compressed data packet (algorithm 2) around `inner`.
    static func compressed(_ inner: [UInt8]) -> [UInt8] {
        var size = compressBound(uLong(inner.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = compress2(&out, &size, inner, uLong(inner.count), 9)
        precondition(status == Z_OK)
        return OpenPGPBuilder.packet(tag: 8, [2] + out.prefix(Int(size)))
    }

    static func literal(_ data: [UInt8]) -> [UInt8] {
        OpenPGPBuilder.packet(tag: 11, [0x62, 4] + Array("data".utf8) + [0, 0, 0, 0] + data)
    }

    /// Opens `message` into a counting sink: the error (nil when it opened) and the sink.
    static func open(_ message: [UInt8]) throws -> (KindError?, CountingSink) {
        let input = KindInput(bytes: message)
        let header = try OpenPGPKind.parseHeader(input)
        let (key, _, _) = try #require(try OpenPGPKind.firstUnlock(header, credentials: [.password(SecretBytes(password))]))
        let sink = CountingSink()
        do { try OpenPGPKind.decryptBody(header, key: key, from: input, into: sink) } catch { return (error, sink) }
        return (nil, sink)
    }

    @Test("a decompression bomb with a wrong MDC: the sink and its spool never hold more than the message's size, and nothing is left")
    func bombWithWrongMDC() throws {
        let plaintext = [UInt8](repeating: 0, count: 64 << 20)
        let good = try OpenPGPBuilder.message(password: Self.password, packets: Self.compressed(Self.literal(plaintext)))
        #expect(good.count < 1 << 20)
        var bad = good
        bad[bad.count - 1] ^= 1  // the last byte of the MDC
        let (error, sink) = try Self.open(bad)
        guard case .payload(let why) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(why.contains("modification detection code"))
        #expect(sink.peak <= bad.count, "held \(sink.peak) bytes for a message of \(bad.count)")
        #expect(sink.bytes.isEmpty)
        // The same message with its MDC intact opens, through the spool.
        let (none, opened) = try Self.open(good)
        #expect(none == nil && opened.bytes == plaintext)
    }

    @Test("compressed data nested two deep opens; three deep is refused (after the MDC), naming the limit")
    func nesting() throws {
        let data = Array("nested".utf8)
        let two = try OpenPGPBuilder.message(password: Self.password, packets: Self.compressed(Self.compressed(Self.literal(data))))
        let (none, sink) = try Self.open(two)
        #expect(none == nil && sink.bytes == data)
        var packets = Self.literal(data)
        for _ in 0..<3 { packets = Self.compressed(packets) }
        let three = try OpenPGPBuilder.message(password: Self.password, packets: packets)
        let (error, left) = try Self.open(three)
        #expect(error == .payload("compressed data nested more than 2 deep"))
        #expect(left.bytes.isEmpty)
        // Eight layers of a bomb with a wrong MDC: the MDC failure, and nothing inflated.
        packets = Self.literal([UInt8](repeating: 0, count: 1 << 20))
        for _ in 0..<8 { packets = Self.compressed(packets) }
        var bomb = try OpenPGPBuilder.message(password: Self.password, packets: packets)
        bomb[bomb.count - 3] ^= 1
        let (failed, sunk) = try Self.open(bomb)
        guard case .payload(let why) = failed else { Issue.record("\(String(describing: failed))"); return }
        #expect(why.contains("modification detection code") && sunk.peak <= bomb.count)
    }

    @Test("a message with no literal data packet gets one named error, whatever its shape")
    func noLiteral() throws {
        for packets in [Self.compressed([]), [UInt8](), OpenPGPBuilder.packet(tag: 10, Array("PGP".utf8)), Self.compressed(OpenPGPBuilder.packet(tag: 10, Array("PGP".utf8)))] {
            let message = try OpenPGPBuilder.message(password: Self.password, packets: packets)
            let (error, sink) = try Self.open(message)
            #expect(error == .payload("no literal data packet in the encrypted data"), "\(packets.count) bytes of packets")
            #expect(sink.bytes.isEmpty)
        }
    }

    /// RFC 9580 A.12.1's Argon2 message (t=1, p=4, m=2^21 KiB) in binary, with `passes` passes.
    static func argon2(passes: UInt8) throws -> [UInt8] {
        let text = String(decoding: OpenPGPRFC9580Tests.bytes("a12.1-v4skesk-argon2-aes128.asc"), as: UTF8.self)
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty && !$0.hasPrefix("=") }.joined()
        var message = try #require(Data(base64Encoded: body).map { Array($0) })
        try #require(message[21] == 1 && message[23] == 21)
        message[21] = passes
        return message
    }

    @Test("Argon2 t=255, m=2 GiB: refused before any try, naming its cost and --max-kdf-cost; the option lets it through")
    func argon2Passes() throws {
        let message = try Self.argon2(passes: 255)
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: message))
        #expect(throws: KindError.refused("OpenPGP Argon2 S2K (t=255, p=4, m=2^21 KiB) costs 510 GiB of work a try (passes × memory), more than the 12 GiB allowed (about 10 s); give --max-kdf-cost 510G to try it")) {
            try OpenPGPKind.checkCost(header, budget: TryBudget(jobs: 1, memory: 1 << 30))
        }
        try OpenPGPKind.checkCost(header, budget: TryBudget(jobs: 1, memory: 1 << 30, kdfWork: 510 << 30))
        // Through the chain: refused at once, no password tried, for every password.
        let passwords = (0..<3).map { ChainPassword(name: "p\($0)", secret: SecretBytes(Array("pw\($0)".utf8))) }
        do {
            _ = try MessageKinds.open(OpenPGPKind.self, input: KindInput(bytes: message), passwords: passwords, identities: [], into: MemoryPlaintext())
            Issue.record("opened")
        } catch {
            #expect(error.tried == 0)
            guard case .refused(let why) = error.error else { Issue.record("\(error.error)"); return }
            #expect(why.contains("--max-kdf-cost 510G"))
        }
        // The RFC's own t=1 (2 GiB) is within the default.
        try OpenPGPKind.checkCost(try OpenPGPKind.parseHeader(KindInput(bytes: Self.argon2(passes: 1))), budget: TryBudget(jobs: 1, memory: 1 << 30))
    }

    /// A message of `count` v4 SKESKs (AES-256, SHA-256, each its own salt) with `countByte`
    /// (0xff: gpg's largest iterated count, 65,011,712 bytes), then a SEIPD v1 packet.
    static func skesks(_ count: Int, countByte: UInt8) -> [UInt8] {
        var message: [UInt8] = []
        for _ in 0..<count {
            message += OpenPGPBuilder.packet(tag: 3, [4, 9, 3, 8] + Crypto.randomBytes(count: 8) + [countByte])
        }
        return message + OpenPGPBuilder.packet(tag: 18, [1] + Crypto.randomBytes(count: 64))
    }

    @Test("999 SKESKs at the largest iterated count: refused before any try, the total named; one of them alone is within the default")
    func manySKESKs() throws {
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: Self.skesks(999, countByte: 0xff)))
        #expect(throws: KindError.refused("999 session key packets cost 60.5 GiB of key derivation a password in all, more than the 12 GiB allowed (about 10 s); give --max-kdf-cost 61G to try them")) {
            try OpenPGPKind.checkCost(header, budget: TryBudget(jobs: 1, memory: 1 << 30))
        }
        try OpenPGPKind.checkCost(header, budget: TryBudget(jobs: 1, memory: 1 << 30, kdfWork: 61 << 30))
        try OpenPGPKind.checkCost(try OpenPGPKind.parseHeader(KindInput(bytes: Self.skesks(150, countByte: 0xff))), budget: TryBudget(jobs: 1, memory: 0))
    }

    @Test("exactly 1,000 session key packets are read; 1,001 are \"more than 1000\"")
    func thousandSKESKs() throws {
        let thousand = try OpenPGPKind.parseHeader(KindInput(bytes: Self.skesks(1000, countByte: 0)))
        #expect(thousand.skesks.count == 1000)
        #expect(throws: KindError.header("more than 1000 session key packets")) {
            try OpenPGPKind.parseHeader(KindInput(bytes: Self.skesks(1001, countByte: 0)))
        }
    }

    @Test("padding after the end of the compressed stream (sq encrypt's default --compression pad), inside the MDC: opens, as in gpg")
    func paddingAfterCompressedStream() throws {
        let data = Array("padded ✓".utf8)
        for padding in [1, 7, 100, 5000] {
            var packet = Self.compressed(Self.literal(data))
            // Re-frame the compressed packet with `padding` zero bytes after its zlib stream.
            let body = Array(packet.dropFirst(2)) + [UInt8](repeating: 0, count: padding)
            packet = OpenPGPBuilder.packet(tag: 8, body)
            let message = try OpenPGPBuilder.message(password: Self.password, packets: packet)
            let (error, sink) = try Self.open(message)
            #expect(error == nil && sink.bytes == data, "\(padding) bytes of padding: \(String(describing: error))")
        }
    }

    @Test("text-mode literals ('t', 'u'; gpg --textmode) are written with LF line ends, as gpg on Linux writes them (every CR dropped); binary ones as they are")
    func textMode() throws {
        let data = Array("a\rb\r\nc\r\nd\r\n".utf8)
        for (format, expected) in [(UInt8(ascii: "t"), Array("ab\nc\nd\n".utf8)), (UInt8(ascii: "u"), Array("ab\nc\nd\n".utf8)), (UInt8(ascii: "b"), data)] {
            let literal = OpenPGPBuilder.packet(tag: 11, [format, 0, 0, 0, 0, 0] + data)
            for packets in [literal, Self.compressed(literal)] {
                let (error, sink) = try Self.open(try OpenPGPBuilder.message(password: Self.password, packets: packets))
                #expect(error == nil && sink.bytes == expected, "format \(format): \(sink.bytes)")
            }
        }
    }
}
