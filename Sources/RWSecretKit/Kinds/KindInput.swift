#if canImport(Glibc)
internal import Glibc
#endif

/// Where the bytes of a message come from, in order.
package protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 only at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int
}

/// Bytes already in memory.
package final class BytesSource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        let n = min(buffer.count, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
        offset += n
        return n
    }
}

/// An open file descriptor (a file, a pipe, stdin); not closed here.
package final class FileDescriptorSource: ByteSource {
    private let fd: Int32

    package init(fd: Int32) { self.fd = fd }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0 else { return 0 }
        do {
            return try retryingOnInterrupt { Glibc.read(fd, buffer.baseAddress!, buffer.count) }
        } catch {
            throw .io(error)
        }
    }
}

/// A buffered reader over a `ByteSource`: lines for headers, exact counts for bodies.
package final class KindInput {
    private let source: ByteSource
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    package init(_ source: ByteSource) { self.source = source }

    /// Reads `bytes` from memory.
    package convenience init(bytes: [UInt8]) { self.init(BytesSource(bytes)) }

    private var available: Int { buffer.count - start }

    /// Reads more into the buffer; false at the end of the source.
    private func fill(atLeast wanted: Int = 1) throws(KindError) -> Bool {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 1 << 16 {
            buffer.removeFirst(start)
            start = 0
        }
        guard !atEnd else { return false }
        let chunk = max(wanted, 1 << 16)
        // Read into a scratch buffer and append what came (a copy): appending `chunk` zeros
        // first went element by element, ~100 ms a !vault value in a debug build (issue 36).
        let result: Result<Int, KindError> = withUnsafeTemporaryAllocation(byteCount: chunk, alignment: 16) { raw in
            defer { Crypto.cleanse(raw) }
            return Result { () throws(KindError) in
                let n = try source.read(into: raw)
                buffer.append(contentsOf: UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n))
                return n
            }
        }
        let n = try result.get()
        if n == 0 { atEnd = true }
        return n > 0
    }

    /// Up to `count` next bytes without consuming them (fewer only at the end).
    package func peek(_ count: Int) throws(KindError) -> ArraySlice<UInt8> {
        while available < count {
            guard try fill(atLeast: count - available) else { break }
        }
        return buffer[start..<(start + min(count, available))]
    }

    /// The next line up to and including its `\n`, or what is left at the end without one;
    /// nil at the end. A line longer than `limit` bytes is an error.
    package func readLine(limit: Int) throws(KindError) -> ArraySlice<UInt8>? {
        var scanned = 0
        while true {
            if let newline = buffer[(start + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                guard newline - start < limit else { throw .header("a line longer than \(limit) bytes") }
                let line = buffer[start...newline]
                start = newline + 1
                return line
            }
            scanned = available
            guard scanned <= limit else { throw .header("a line longer than \(limit) bytes") }
            guard try fill() else {
                guard available > 0 else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
        }
    }

    /// Reads up to `into.count` bytes, fewer only at the end; returns how many.
    package func readFull(into output: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        var done = 0
        // First what is buffered.
        if available > 0 {
            let n = min(available, output.count)
            buffer.withUnsafeBytes { output.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: n) }
            start += n
            done = n
        }
        while done < output.count && !atEnd {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: output[done...]))
            if n == 0 { atEnd = true }
            done += n
        }
        return done
    }

    /// The next `count` bytes, fewer only at the end.
    package func read(count: Int) throws(KindError) -> [UInt8] {
        let bytes = Array(try peek(count))
        start += bytes.count
        return bytes
    }

    /// Whether nothing is left (reads one byte ahead if it must).
    package func isAtEnd() throws(KindError) -> Bool {
        try peek(1).isEmpty
    }

    /// Everything left, up to `limit` bytes (more is an error).
    package func readAll(limit: Int) throws(KindError) -> [UInt8] {
        while !atEnd {
            guard available <= limit else { throw .tooLarge(limit: limit) }
            _ = try fill()
        }
        guard available <= limit else { throw .tooLarge(limit: limit) }
        let rest = Array(buffer[start...])
        start = buffer.count
        return rest
    }
}
