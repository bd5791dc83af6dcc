import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// The rows of one text input as `decrypt` reads them, each with what it holds.
///
/// A row is one physical line. Blank and `#` rows are skipped; with `--id-column`
/// a row is `ID<TAB>MESSAGE`. Base64 wrapped at 64 or 76 columns (iOS
/// `lineLength64/76Characters`, Android's default, `openssl base64`) is joined: a
/// row of exactly that many base64 characters that is not a whole message by
/// itself (too short, or a bad length) starts a wrapped message, and the
/// following rows of the same width, then one shorter last row, are joined to
/// it; a blank row, a row that breaks the pattern, or the end ends it. The
/// message is reported at its first row; each later row comes out as a
/// `continuation` (so a consumer that zips rows with records stays in step).
/// Memory stays bounded: a row over 1 MiB is not held, and neither is a wrapped
/// message over 1 MiB (both are `line too long`).
struct LineSource {
    /// One input row.
    struct Row {
        /// The physical line, 1-based (a wrapped message's first line).
        let line: Int
        /// The row's ID (`--id-column`); nil when the row has none (blank, comment, continuation).
        let id: [UInt8]?
        let content: Content
    }

    enum Content {
        /// A blank or `#` row, or an ID with no message.
        case skipped
        /// A later row of the wrapped message reported at line `of`.
        case continuation(of: Int)
        /// A structurally valid message.
        case message(Message)
        /// A row that is no message, and a hint when it is another known format.
        case failure(RowFailure, hint: FormatHint?)
    }

    /// The widths at which producers wrap base64.
    static let wrapWidths: Set<Int> = [64, 76]

    private var reader: LineReader
    private let idColumn: Bool
    private let maximumLength: Int
    /// A line read past the end of a wrapped message, to be read again.
    private var pushback: (number: Int, line: LineReader.Line)?
    /// Continuation rows owed after the wrapped message just returned: consecutive lines.
    private var continuations: (of: Int, lines: Range<Int>)?
    /// Whether the input starts like a raw (binary) RNCryptor message rather than text.
    private(set) var isRawMessage = false

    /// Starts reading `input`; looks at its first bytes to tell a raw message from text.
    init(_ input: InputFile, idColumn: Bool, maximumLength: Int = LineReader.defaultMaximumLength) throws(SystemError) {
        reader = LineReader(input, maximumLength: maximumLength)
        self.idColumn = idColumn
        self.maximumLength = maximumLength
        do {
            var first = try reader.peek(atLeast: 1)
            if let byte = first.first, byte <= 3 { first = try reader.peek(atLeast: 2) }
            isRawMessage = Self.looksRaw(first)
        } catch let error as SystemError {
            throw error
        } catch {
            throw SystemError(code: EIO)  // not reached: InputFile throws only SystemError
        }
    }

    /// A raw message starts with its version (0–3), then bytes that are not base64 text.
    static func looksRaw(_ prefix: ArraySlice<UInt8>) -> Bool {
        guard let version = prefix.first, version <= 3 else { return false }
        guard prefix.count >= 2 else { return true }
        return !Base64.isAlphabetCharacter(prefix[prefix.startIndex + 1])
    }

    /// The next row, or nil at the end of the input.
    mutating func next() throws -> Row? {
        if let owed = continuations {
            let line = owed.lines.lowerBound
            continuations = owed.lines.count > 1 ? (owed.of, owed.lines.dropFirst()) : nil
            return Row(line: line, id: nil, content: .continuation(of: owed.of))
        }
        guard let (number, line) = try nextPhysical() else { return nil }
        return try row(number, line)
    }

    private mutating func nextPhysical() throws -> (Int, LineReader.Line)? {
        if let saved = pushback {
            pushback = nil
            return saved
        }
        guard let line = try reader.next() else { return nil }
        return (reader.lineNumber, line)
    }

    private mutating func row(_ number: Int, _ line: LineReader.Line) throws -> Row {
        let bytes: [UInt8]
        switch line {
        case .text(let text): bytes = text
        case .tooLong(let prefix):
            let id = idColumn ? prefix.firstIndex(of: Self.tab).map { Array(prefix[..<$0]) } : nil
            return Row(line: number, id: id, content: .failure(.message(.lineTooLong), hint: .lineTooLong))
        }
        let whole = Self.trim(bytes[...])
        if whole.isEmpty || whole.first == UInt8(ascii: "#") { return Row(line: number, id: nil, content: .skipped) }
        var id: [UInt8]?
        var text = whole
        if idColumn {
            guard let tab = bytes.firstIndex(of: Self.tab) else {
                return Row(line: number, id: nil, content: .failure(.missingID, hint: nil))
            }
            id = Array(bytes[..<tab])
            text = Self.trim(bytes[(tab + 1)...])
            if text.isEmpty || text.first == UInt8(ascii: "#") { return Row(line: number, id: id, content: .skipped) }
        }
        let alone = Self.parse(text)
        if case .failure(.message(.format(let error)), _) = alone, error == .tooShort || error == .badLength,
           Self.wrapWidths.contains(text.count), text.allSatisfy(Base64.isAlphabetCharacter) {
            return try wrapped(firstLine: number, id: id, firstRow: text, alone: alone)
        }
        return Row(line: number, id: id, content: alone)
    }

    /// Joins the rows that follow a full-width first row (see the type's documentation).
    private mutating func wrapped(firstLine: Int, id: [UInt8]?, firstRow: ArraySlice<UInt8>, alone: Content) throws -> Row {
        let width = firstRow.count
        var joined = Array(firstRow)
        var tooLong = false
        var lastLine = firstLine
        while let (number, line) = try nextPhysical() {
            guard case .text(let bytes) = line else { pushback = (number, line); break }
            let text = Self.trim(bytes[...])
            guard !text.isEmpty, !(idColumn && bytes.contains(Self.tab)), text.count <= width, Self.isWrappedRow(text) else {
                pushback = (number, line)
                break
            }
            lastLine = number
            if !tooLong {
                if joined.count + text.count > maximumLength {
                    tooLong = true
                    joined = []
                } else {
                    joined += text
                }
            }
            if text.count < width || text.last == UInt8(ascii: "=") { break }
        }
        guard lastLine > firstLine else { return Row(line: firstLine, id: id, content: alone) }
        continuations = (firstLine, (firstLine + 1)..<(lastLine + 1))
        let content: Content = tooLong ? .failure(.message(.lineTooLong), hint: nil) : Self.parse(joined[...])
        return Row(line: firstLine, id: id, content: content)
    }

    /// Decodes base64 and checks the message's structure.
    static func parse(_ text: ArraySlice<UInt8>) -> Content {
        guard let raw = Base64.decodeLenient(text) else { return .failure(.message(.badBase64), hint: nil) }
        do {
            return .message(try Message(raw))
        } catch {
            // Another format: a run-level hint, and the spec's per-message reason for its first byte.
            if let hint = FormatHint(error) { return .failure(.message(.format(.unknownVersion(raw[0]))), hint: hint) }
            return .failure(.message(.format(error)), hint: nil)
        }
    }

    private static let tab = UInt8(ascii: "\t")

    /// ASCII space, TAB and CR trimmed at both ends.
    static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == tab || $0 == UInt8(ascii: "\r") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }) else { return bytes[bytes.endIndex...] }
        let last = bytes.lastIndex(where: { !isBlank($0) })!
        return bytes[first...last]
    }

    /// A later row of wrapped base64: base64 characters, then at most two `=`.
    private static func isWrappedRow(_ text: ArraySlice<UInt8>) -> Bool {
        let padding = text.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        return padding <= 2 && text.dropLast(padding).allSatisfy(Base64.isAlphabetCharacter)
    }
}

/// Why a row gave no message.
enum RowFailure: Error, CustomStringConvertible {
    /// The message itself (the spec's reasons).
    case message(DecryptionFailure)
    /// `--id-column` and a row without a TAB.
    case missingID

    var description: String {
        switch self {
        case .message(let failure): failure.words
        case .missingID: "no ID (expected ID<TAB>MESSAGE)"
        }
    }
}

/// Other formats that people mistake for RNCryptor, as the library recognises them.
enum FormatHint: Hashable {
    /// OpenSSL `enc` output: `Salted__`, an 8-byte salt, the ciphertext.
    case openSSL
    /// The RNCryptor v4 draft: `RNC`, then version 4.
    case rncryptorV4
    /// A line over the line limit: the limit, and what to do.
    case lineTooLong

    init?(_ error: RNCryptorError) {
        switch error {
        case .openSSLEnc: self = .openSSL
        case .rncryptorV4Draft: self = .rncryptorV4
        default: return nil
        }
    }

    /// The run-level line (after `rwsecret: FILE: `).
    var description: String {
        switch self {
        case .openSSL: "hint: messages starting with \"Salted__\" were made by OpenSSL enc, not RNCryptor (open them with openssl enc -d)"
        case .rncryptorV4: "hint: messages starting with \"RNC\" and version 4 use the RNCryptor v4 draft, which rwsecret does not read"
        case .lineTooLong: "hint: a line over 1 MiB (1,048,576 bytes) is not read as a message; a message that large is made with `encrypt --binary` and opened with `decrypt --binary`"
        }
    }
}
