import RWSecretKit
/// Splits an input into lines as they arrive, never holding more than `maximumLength` bytes of one.
///
/// A line longer than `maximumLength` (counted without its LF) is reported as
/// `tooLong` and its bytes are dropped as they are read (all but its first
/// `keptPrefix` bytes, where an id may be), so memory stays bounded.
struct LineReader {
    enum Line {
        case text([UInt8])
        /// A line over the limit, with its first bytes.
        case tooLong(prefix: [UInt8])
    }

    /// How much of a line that is too long is kept.
    static let keptPrefix = 1024

    static let defaultMaximumLength = 1 << 20

    private let input: InputFile
    private let maximumLength: Int
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// The 1-based number of the line returned last.
    private(set) var lineNumber = 0
    /// Every byte read from the input so far (the progress line counts what was handed out).
    private var bytesRead: Int64 = 0

    init(_ input: InputFile, maximumLength: Int = defaultMaximumLength) {
        self.input = input
        self.maximumLength = maximumLength
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    /// The first bytes of the input, at least `count` of them unless the input is shorter
    /// (reads no further than needed). Call before `next()`.
    mutating func peek(atLeast count: Int) throws -> ArraySlice<UInt8> {
        try peek(atLeast: count, orLine: false)
    }

    /// The first bytes of the input, through its first LF or `count` of them, whichever comes
    /// first (or all of a shorter input): a person typing, or a producer that writes one line
    /// and waits, is not waited for beyond it. Call before `next()`.
    mutating func peekLine(atMost count: Int) throws -> ArraySlice<UInt8> {
        try peek(atLeast: count, orLine: true)
    }

    private mutating func peek(atLeast count: Int, orLine: Bool) throws -> ArraySlice<UInt8> {
        precondition(lineNumber == 0 && start == 0 && count <= buffer.count)
        while end < count && !atEnd && !(orLine && buffer[0..<end].contains(UInt8(ascii: "\n"))) {
            let n = try buffer.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) throws -> Int in
                try input.read(into: raw.baseAddress! + end, count: raw.count - end)
            }
            if n == 0 { atEnd = true }
            end += n
            bytesRead += Int64(n)
        }
        return buffer[0..<end]
    }

    /// The next line without its LF, or nil at the end of the input.
    mutating func next() throws -> Line? {
        var current: [UInt8] = []
        var prefix: [UInt8] = []
        var tooLong = false
        while true {
            if start == end {
                if atEnd { break }
                start = 0
                ProgressLine.reading(true)
                defer { ProgressLine.reading(false) }
                let n = try buffer.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) throws -> Int in
                    try input.read(into: raw.baseAddress!, count: raw.count)
                }
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
                ProgressLine.lineRead(lineNumber, consumed: bytesRead - Int64(end - start))
                return tooLong ? .tooLong(prefix: prefix) : .text(current)
            }
            start = end
        }
        // End of input: a last line without LF still counts.
        if current.isEmpty && !tooLong { return nil }
        lineNumber += 1
        ProgressLine.lineRead(lineNumber, consumed: bytesRead)
        return tooLong ? .tooLong(prefix: prefix) : .text(current)
    }
}
