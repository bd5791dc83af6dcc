import Foundation
import Testing
@testable import rwsecret

/// `readToEnd`: how a password, key or identity file (`readSmallFile`) and `--password-fd`
/// are read: into one buffer that starts at 4 KiB and doubles, every smaller one wiped.
@Suite("small files read to their end")
struct SmallFileTests {
    let dir = TemporaryFolder()

    /// Bytes of `count`, handed out `step` at a time by a reader like `read(2)`.
    func read(_ bytes: [UInt8], step: Int, limit: Int) throws(CommandFailure) -> [UInt8] {
        var offset = 0
        return try readToEnd(limit: limit, tooLarge: CommandFailure(.dataError, "too large")) { buffer, count throws(CommandFailure) in
            let n = min(step, count, bytes.count - offset)
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
            offset += n
            return n
        }
    }

    @Test("every size around the buffer's doublings comes back whole, in reads of any size",
          arguments: [0, 1, 4095, 4096, 4097, 8192, 8193, 70_000], [1, 7, 4096, 100_000])
    func sizes(count: Int, step: Int) throws {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(try read(bytes, step: step, limit: 1 << 20) == bytes)
    }

    @Test("the limit itself is read; one byte more is too large, at and past a doubling",
          arguments: [1, 4095, 4096, 4097, 10_000])
    func limit(limit: Int) throws {
        let bytes = [UInt8](repeating: 0x61, count: limit)
        #expect(try read(bytes, step: 1000, limit: limit) == bytes)
        #expect(throws: CommandFailure.self) { try read(bytes + [0x61], step: 1000, limit: limit) }
    }

    @Test("a read's failure is the failure of the whole read")
    func failure() {
        var calls = 0
        #expect(throws: CommandFailure.self) {
            try readToEnd(limit: 1 << 20, tooLarge: CommandFailure(.dataError, "too large")) { buffer, count throws(CommandFailure) in
                calls += 1
                guard calls < 3 else { throw CommandFailure(.ioError, "read failed") }
                buffer.initializeMemory(as: UInt8.self, repeating: 0x62, count: min(count, 3000))
                return min(count, 3000)
            }
        }
        #expect(calls == 3)
    }

    @Test("readSmallFile: a file of 100,000 bytes whole; over the limit: the file's line")
    func file() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        let path = dir.file("big", bytes: bytes)
        #expect(try readSmallFile(path, what: "key file") == bytes)
        do {
            _ = try readSmallFile(path, what: "key file", limit: 99_999)
            Issue.record("read past its limit")
        } catch {
            #expect(error.message.hasSuffix("big: key file is too large"), "\(error.message)")
        }
    }
}
