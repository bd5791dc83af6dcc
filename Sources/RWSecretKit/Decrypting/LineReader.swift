#if canImport(Glibc)
internal import Glibc
#endif
public import SystemPackage

/// Splits an input into lines as they arrive, never holding more than `maximumLength` bytes of one.
///
/// A line longer than `maximumLength` (counted without its LF) is reported as
/// `tooLong` and its bytes are dropped as they are read (all but its first
/// `keptPrefix` bytes, where an ID may be), so memory stays bounded. A last line
/// without its LF is a line too.
///
/// The input is a file descriptor (`init(_:maximumLength:)`) or a function that reads
/// (`init(maximumLength:waiting:lineRead:read:)`: a stream with bytes handed back, a
/// buffer); it is read 64 KiB at a time. `MessageRows` reads its rows through one.
/// Blocks while the input has no bytes ready (a pipe, a terminal).
public struct LineReader {
    /// One line of the input.
    public enum Line {
        /// The line's bytes, without its LF.
        case text([UInt8])
        /// A line over the limit, with its first `keptPrefix` bytes.
        case tooLong(prefix: [UInt8])
    }

    /// Reads up to `buffer.count` bytes into `buffer` and says how many: 0 at the end of the input.
    public typealias Read = (_ buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int

    /// How much of a line that is too long is kept.
    public static let keptPrefix = 1024

    /// The longest line read whole unless told otherwise: 1 MiB.
    public static let defaultMaximumLength = 1 << 20

    private let read: Read
    /// Told true before a read of the input that waits for it, false after (a progress line).
    private let waiting: ((Bool) -> Void)?
    /// Told each line's number and the bytes read up to its end (a progress line).
    private let lineRead: ((_ line: Int, _ consumed: Int64) -> Void)?
    /// The longest line returned as `text`.
    public let maximumLength: Int
    /// Made by the first read (`fill`), by the reader's last owner: one made in `init` was
    /// shared by the copy a caller passes on (`MessageRows(reader)`), and the first read into
    /// it copied all 64 KiB (copy on write).
    private var buffer: [UInt8] = []
    private static let bufferSize = 1 << 16
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// The 1-based number of the line returned last.
    public private(set) var lineNumber = 0
    /// Every byte read from the input so far (the progress line counts what was handed out).
    private var bytesRead: Int64 = 0

    /// Reads the lines `read` gives. `waiting` is told true before each read that `next()`
    /// makes and false after; `lineRead` each line's number and the bytes read through its
    /// end (both for a progress line; neither may call back into the reader).
    public init(maximumLength: Int = defaultMaximumLength, waiting: ((Bool) -> Void)? = nil,
                lineRead: ((_ line: Int, _ consumed: Int64) -> Void)? = nil, read: @escaping Read) {
        precondition(maximumLength > 0, "maximumLength must be positive")
        self.read = read
        self.waiting = waiting
        self.lineRead = lineRead
        self.maximumLength = maximumLength
    }

    /// Reads the lines of `descriptor`, from where it is, retrying reads that a signal
    /// interrupts. The descriptor stays the caller's to close (after the reader's last use).
    public init(_ descriptor: FileDescriptor, maximumLength: Int = defaultMaximumLength) {
        self.init(maximumLength: maximumLength) { (buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int in
            try retryingOnInterrupt { Glibc.read(descriptor.rawValue, buffer.baseAddress, buffer.count) }
        }
    }

    /// The first bytes of the input, at least `count` of them (at most 64 KiB) unless the
    /// input is shorter: reads no further than needed. Only before the first `next()`.
    public mutating func peek(atLeast count: Int) throws(Errno) -> ArraySlice<UInt8> {
        try peek(atLeast: count, orLine: false)
    }

    /// The first bytes of the input, through its first LF or `count` of them, whichever comes
    /// first (or all of a shorter input): a person typing, or a producer that writes one line
    /// and waits, is not waited for beyond it. Only before the first `next()`.
    public mutating func peekLine(atMost count: Int) throws(Errno) -> ArraySlice<UInt8> {
        try peek(atLeast: count, orLine: true)
    }

    private mutating func peek(atLeast count: Int, orLine: Bool) throws(Errno) -> ArraySlice<UInt8> {
        precondition(lineNumber == 0 && start == 0 && count <= Self.bufferSize, "peek only before the first line, up to 64 KiB")
        while end < count && !atEnd && !(orLine && buffer[0..<end].contains(UInt8(ascii: "\n"))) {
            let n = try fill(from: end)
            if n == 0 { atEnd = true }
            end += n
            bytesRead += Int64(n)
        }
        // A copy of what was read, not a slice of the buffer: a caller holds it while it peeks
        // further, and the next read into a buffer it shares copied all 64 KiB (copy on write).
        return ArraySlice(Array(buffer[0..<end]))
    }

    /// One read into the buffer from `offset`.
    private mutating func fill(from offset: Int) throws(Errno) -> Int {
        if buffer.isEmpty {
            // Not zeroed: only bytes a read wrote (`start..<end`) are ever looked at, and zeroing
            // 64 KiB for a file of one small message was 16 page faults (issue 36, row (a)).
            buffer = [UInt8](unsafeUninitializedCapacity: Self.bufferSize) { _, initialized in initialized = Self.bufferSize }
        }
        let read = self.read
        // withUnsafeMutableBytes rethrows untyped: the read's Errno is carried out in a Result.
        let result = buffer.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> in
            Result { () throws(Errno) -> Int in try read(UnsafeMutableRawBufferPointer(rebasing: raw[offset...])) }
        }
        return try result.get()
    }

    /// The next line without its LF, or nil at the end of the input.
    public mutating func next() throws(Errno) -> Line? {
        var current: [UInt8] = []
        var prefix: [UInt8] = []
        var tooLong = false
        while true {
            if start == end {
                if atEnd { break }
                start = 0
                waiting?(true)
                let n: Int
                do { n = try fill(from: 0) } catch {
                    waiting?(false)
                    throw error
                }
                waiting?(false)
                end = n
                bytesRead += Int64(n)
                if n == 0 { atEnd = true; break }
            }
            let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n"))
            let chunkEnd = newline ?? end
            if !tooLong {
                if current.count + (chunkEnd - start) > maximumLength {
                    tooLong = true
                    prefix = Array((current.prefix(Self.keptPrefix) + buffer[start..<chunkEnd].prefix(Self.keptPrefix)).prefix(Self.keptPrefix))
                    current = []
                } else {
                    current.append(contentsOf: buffer[start..<chunkEnd])
                }
            }
            if let newline {
                start = newline + 1
                lineNumber += 1
                lineRead?(lineNumber, bytesRead - Int64(end - start))
                return tooLong ? .tooLong(prefix: prefix) : .text(current)
            }
            start = end
        }
        // End of input: a last line without LF still counts.
        if current.isEmpty && !tooLong { return nil }
        lineNumber += 1
        lineRead?(lineNumber, bytesRead)
        return tooLong ? .tooLong(prefix: prefix) : .text(current)
    }
}
