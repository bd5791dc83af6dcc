/// The decrypted packet stream of a SEIPD packet, read as it is decrypted: the packets inside
/// (compressed, literal) are parsed from it at once, and the plaintext written once, to the sink.
/// What authenticates the whole (SEIPD v1: the MDC at the end; v2: the final tag, after every
/// chunk's own tag) is checked by `finish()`, after the parser is done, and the caller empties
/// the sink when it fails: nothing is released before it passes. No spool, no second pass.
protocol OpenPGPDecryptedStream: ByteSource {
    /// What went wrong reading or decrypting the stream itself (a chunk that does not
    /// authenticate, a message cut short): it ends the message at once, whatever the parser said.
    var failure: KindError? { get set }
    /// Decrypts (and drops) whatever the parser left, then checks what authenticates the whole
    /// stream; throws when it fails.
    func finish() throws(KindError)

    /// The decrypted bytes: `window[position..<ready]` may be read and has not been yet.
    var window: UnsafeMutableRawBufferPointer { get }
    var position: Int { get set }
    var ready: Int { get }
    /// No ciphertext is left to decrypt.
    var ended: Bool { get }
    /// Decrypts more into `window` (a new `position..<ready`), or sets `ended`. Called only once
    /// everything ready was read.
    func refill() throws(KindError)
}

extension OpenPGPDecryptedStream {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while position == ready {
            if ended { return 0 }
            try failing(&failure) { () throws(KindError) in try refill() }
        }
        let n = min(buffer.count, ready - position)
        buffer.baseAddress!.copyMemory(from: window.baseAddress! + position, byteCount: n)
        position += n
        return n
    }

    /// Decrypts, checks and drops what the parser left unread, to the end of the ciphertext:
    /// the first step of `finish()`.
    func drain() throws(KindError) {
        while !ended {
            position = ready
            try failing(&failure) { () throws(KindError) in try refill() }
        }
        position = ready
    }

    /// Runs `body` (a step of the stream itself: reading, decrypting), keeping its error in `failure`.
    func failing<T>(_ failure: inout KindError?, _ body: () throws(KindError) -> T) throws(KindError) -> T {
        do { return try body() } catch {
            failure = error
            throw error
        }
    }
}

/// SEIPD v1 (RFC 9580 5.13.1): CFB, and a SHA-1 MDC packet over the prefix and the whole stream
/// (and the MDC packet's own two header bytes) as its last 22 bytes, held back from the parser.
final class OpenPGPCFBStream: OpenPGPDecryptedStream {
    /// The MDC packet that ends the decrypted stream (header 0xD3 0x14, SHA-1).
    static let mdcSize = 22
    /// 1 MiB at a time: few system calls, little memory.
    private static let capacity = (1 << 20) + mdcSize

    private let body: OpenPGPBodySource
    private let packets: KindInput
    private let cfb: OpenPGPCFBDecryptor
    private let sha1: OpenPGPDigest
    private let cipherBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
    private let plainBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
    /// plain[0..<ready] is hashed and may be read (up to `position` it was); plain[ready..<held]
    /// is held back: it may be the MDC packet.
    var window: UnsafeMutableRawBufferPointer { plainBuffer }
    var position = 0
    private(set) var ready = 0
    private var held = 0
    private(set) var ended = false
    var failure: KindError?

    /// The stream of `header`'s SEIPD v1 body under `cfb`; `prefix` is the body's first bytes
    /// (the random prefix of a block and two, and any bytes read with it).
    init(header: OpenPGPKind.Header, cfb: OpenPGPCFBDecryptor, sha1: OpenPGPDigest, blockSize bs: Int) {
        body = header.body
        packets = header.packets
        self.cfb = cfb
        self.sha1 = sha1
        let prefix = header.prefix
        prefix.withUnsafeBytes { cipherBuffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        cfb.decrypt(UnsafeRawBufferPointer(rebasing: cipherBuffer[0..<prefix.count]), into: plainBuffer)
        sha1.update(UnsafeRawBufferPointer(rebasing: plainBuffer[0..<(bs + 2)]))
        held = prefix.count - (bs + 2)
        if held > 0 { plainBuffer.baseAddress!.copyMemory(from: plainBuffer.baseAddress! + bs + 2, byteCount: held) }
    }

    deinit {
        Crypto.cleanse(plainBuffer)
        cipherBuffer.deallocate()
        plainBuffer.deallocate()
    }

    /// Decrypts the next ciphertext (as much as fits) after what is held back, and hashes what
    /// may be read. Called only once everything ready was read.
    func refill() throws(KindError) {
        let back = held - ready
        if ready > 0 && back > 0 { plainBuffer.baseAddress!.copyMemory(from: plainBuffer.baseAddress! + ready, byteCount: back) }
        held = back
        ready = 0
        position = 0
        // A whole buffer where the input has it (a body in partial lengths comes a part a read).
        var filled = 0
        while held + filled < Self.capacity {
            let n = try body.read(into: UnsafeMutableRawBufferPointer(rebasing: cipherBuffer[filled..<(Self.capacity - held)]))
            if n == 0 { ended = true; break }
            filled += n
        }
        cfb.decrypt(UnsafeRawBufferPointer(rebasing: cipherBuffer[0..<filled]), into: UnsafeMutableRawBufferPointer(rebasing: plainBuffer[held...]))
        held += filled
        if held > Self.mdcSize {
            ready = held - Self.mdcSize
            sha1.update(UnsafeRawBufferPointer(rebasing: plainBuffer[0..<ready]))
        }
    }

    func finish() throws(KindError) {
        try drain()
        guard try packets.isAtEnd() else { throw .payload("data after the encrypted data packet") }
        guard held - ready == Self.mdcSize else { throw .payload("the encrypted data is cut short (no MDC)") }
        let mdc = UnsafeRawBufferPointer(rebasing: plainBuffer[ready..<held])
        sha1.update(UnsafeRawBufferPointer(rebasing: mdc[0..<2]))
        let digest = sha1.finish()
        guard mdc[0] == 0xD3, mdc[1] == 0x14,
              digest.withUnsafeBytes({ Crypto.constantTimeEqual($0, UnsafeRawBufferPointer(rebasing: mdc[2...])) }) else {
            throw .payload("the modification detection code does not match (the message was changed, or a wrong key passed the quick check)")
        }
    }
}

/// SEIPD v2 (RFC 9580 5.13.2): AEAD chunks, each opened (its tag checked) before any of it is
/// read; the final tag, over the total length, checked by `finish()`.
final class OpenPGPAEADStream: OpenPGPDecryptedStream {
    private let body: OpenPGPBodySource
    private let packets: KindInput
    private let v2: OpenPGPKind.SEIPDv2
    private let opener: OpenPGPAEADOpener
    private let noncePrefix: [UInt8]
    private let chunkSize: Int
    private static let tagSize = OpenPGPAEADMode.tagSize
    /// A whole sealed chunk and the 16 bytes after it: a chunk is known to be a full one (not
    /// the last) only when more than its tag follows it.
    private let sealed: UnsafeMutableRawBufferPointer
    private let plain: UnsafeMutableRawBufferPointer
    private var held = 0
    var window: UnsafeMutableRawBufferPointer { plain }
    /// plain[position..<ready] is opened and not read yet.
    var position = 0
    private(set) var ready = 0
    private(set) var ended = false
    private var index: UInt64 = 0
    private var total: UInt64 = 0
    var failure: KindError?

    init(header: OpenPGPKind.Header, v2: OpenPGPKind.SEIPDv2, opener: OpenPGPAEADOpener, noncePrefix: [UInt8]) {
        body = header.body
        packets = header.packets
        self.v2 = v2
        self.opener = opener
        self.noncePrefix = noncePrefix
        chunkSize = v2.chunkSize
        sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: v2.chunkSize + 2 * Self.tagSize, alignment: 16)
        plain = UnsafeMutableRawBufferPointer.allocate(byteCount: v2.chunkSize, alignment: 16)
    }

    deinit {
        Crypto.cleanse(plain)
        sealed.deallocate()
        plain.deallocate()
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) } }

    /// SEIPD v2: the nonce prefix and the index; LibrePGP: the starting nonce XOR the index.
    private func nonce(_ index: UInt64) -> [UInt8] {
        guard var iv = v2.librePGPIV else { return noncePrefix + Self.bigEndian(index) }
        for (i, byte) in Self.bigEndian(index).enumerated() { iv[iv.count - 8 + i] ^= byte }
        return iv
    }

    /// SEIPD v2: the packet's fields; LibrePGP: and the chunk index.
    private func associatedData(_ index: UInt64) -> [UInt8] {
        v2.librePGPIV == nil ? v2.associatedData : v2.associatedData + Self.bigEndian(index)
    }

    /// Opens the chunk of `count` sealed bytes at the start of `sealed` into `plain`.
    private func openChunk(_ count: Int) throws(KindError) {
        let length = count - Self.tagSize
        let ok = opener.open(UnsafeRawBufferPointer(rebasing: sealed[0..<length]), tag: UnsafeRawBufferPointer(rebasing: sealed[length..<count]),
                             nonce: nonce(index), ad: associatedData(index), into: plain)
        guard ok else {
            throw .payload("\(v2.packetName) chunk \(index) does not authenticate (the message was changed, or cut)")
        }
        position = 0
        ready = length
        index += 1
        total += UInt64(length)
    }

    /// Reads and opens the next chunk; at the end of the body, the last one (shorter), leaving
    /// the final tag at the start of `sealed`.
    func refill() throws(KindError) {
        let capacity = sealed.count
        while held < capacity {
            let n = try body.read(into: UnsafeMutableRawBufferPointer(rebasing: sealed[held..<capacity]))
            if n == 0 { break }
            held += n
        }
        if held == capacity {
            try openChunk(chunkSize + Self.tagSize)
            sealed.baseAddress!.copyMemory(from: sealed.baseAddress! + chunkSize + Self.tagSize, byteCount: Self.tagSize)
            held = Self.tagSize
            return
        }
        ended = true
        guard held >= Self.tagSize else { throw .payload("the encrypted data is cut short (no final tag)") }
        if held > Self.tagSize {
            guard held - Self.tagSize > Self.tagSize else { throw .payload("the encrypted data is cut short (a chunk shorter than its tag)") }
            try openChunk(held - Self.tagSize)
            sealed.baseAddress!.copyMemory(from: sealed.baseAddress! + held - Self.tagSize, byteCount: Self.tagSize)
            held = Self.tagSize
        }
    }

    func finish() throws(KindError) {
        try drain()
        guard try packets.isAtEnd() else { throw .payload("data after the encrypted data packet") }
        // The final tag: over no plaintext, with the total length in the associated data.
        let finalAD = associatedData(index) + Self.bigEndian(total)
        let finalOK = opener.open(UnsafeRawBufferPointer(start: nil, count: 0), tag: UnsafeRawBufferPointer(rebasing: sealed[0..<Self.tagSize]),
                                  nonce: nonce(index), ad: finalAD, into: UnsafeMutableRawBufferPointer(rebasing: plain[0..<0]))
        guard finalOK else { throw .payload("the final \(v2.packetName) tag does not match (the message was cut short or changed)") }
    }
}
