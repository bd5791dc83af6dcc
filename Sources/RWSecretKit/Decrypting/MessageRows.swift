#if canImport(Glibc)
internal import Glibc
#endif
public import SystemPackage

/// The rows of one text input as `rwsecret decrypt` reads them, each with what it holds: an
/// RNCryptor message (base64), a skipped row, or a failure that says why it is no message
/// (and, when it is another known format, a hint).
///
/// Reads a file descriptor (`init(_:idColumn:joinsWrapped:)`) or a `LineReader`, a line at a
/// time, as the input arrives (a pipe's rows are handed out as they come). Before the first
/// row, `kind` says what the input's first bytes are (text, a raw message, binary data), and
/// `otherKindPrefix()` whether it is a whole message of another kind (age, OpenPGP, Ansible
/// Vault) or YAML, for `MessageOpener`.
///
/// A row is one physical line. Blank and `#` rows are skipped; with `idColumn`
/// a row is `ID<TAB>MESSAGE`. Email quoting (leading `>` and blanks) and blanks
/// inside a row are dropped before it is read as base64.
///
/// **Wrapped base64** (docs/line-format.md) is joined. A *run* starts at a row of
/// at least `minimumWrapWidth` base64 characters that is not a whole message by
/// itself; its width W is that row's length. Rows of exactly W characters that
/// are not whole messages and do not start another format (`Salted__`, `RNC`)
/// continue it; a shorter row, or one ending in `=`, is its last row; a blank
/// row, a row that breaks the pattern (another width, not base64, a whole v1–v3
/// message, a row with an ID), or the end ends it before that row. The run is
/// then cut into messages at rows that start an RNCryptor v1–v3 header (a
/// wrapped message whose last row is full width, directly followed by the next
/// one): of all the ways to cut it into valid messages and failed parts (a
/// failed part holds no such row but its first), the one with the fewest
/// failed parts, then the most messages, is taken. A v1–v3 message is 2 bytes more than a multiple of 16
/// long, so two or more of them joined (up to 8) are never a valid message,
/// and one message cut in two never gives two valid ones: the rule cannot
/// mistake one for the other. Each message is reported at its first row; each
/// later row comes out as a `continuation` (so a consumer that zips rows with
/// records stays in step). Memory stays bounded: a row over 1 MiB is not held,
/// and neither is a wrapped message over 1 MiB (both are `line too long`).
///
/// With `joinsWrapped` false (`--in-band`) no run is made: every row is decided at its own
/// line end, alone, so that its record never waits for the next line (a producer that writes
/// a row into a pipe and waits for its record gets it).
public struct MessageRows {
    /// One input row.
    public struct Row: Sendable {
        /// The physical line, 1-based (a wrapped message's first line).
        public let line: Int
        /// The row's ID (`idColumn`); nil when the row has none (blank, comment, continuation).
        public let id: [UInt8]?
        /// What the row holds.
        public let content: Content
        /// The row holds a character that is in no base64 text (prose, YAML): it is no damaged message.
        public internal(set) var notBase64 = false

        init(line: Int, id: [UInt8]?, content: Content) {
            self.line = line
            self.id = id
            self.content = content
        }
    }

    /// What a row holds.
    public enum Content: Sendable {
        /// A blank or `#` row, or an ID with no message.
        case skipped
        /// A later row of the wrapped message reported at line `of`.
        case continuation(of: Int)
        /// A structurally valid message.
        case message(Message)
        /// A row that is no message, and a hint when it is another known format.
        case failure(Failure, hint: Hint?)
    }

    /// The narrowest row that starts a wrapped message (`fold -w`, `base64 -w`, email bodies).
    public static let minimumWrapWidth = 16

    private var reader: LineReader
    private let idColumn: Bool
    private let maximumLength: Int
    /// Whether rows of wrapped base64 are joined (not under `--in-band`).
    private let joinsWrapped: Bool
    /// A line read past the end of a run, to be read again.
    private var pushback: (number: Int, line: LineReader.Line)?
    /// Rows made ready by the last run, handed out in order.
    private var pending: [Row] = []
    private var pendingIndex = 0
    /// A run over the limit being skipped: its first line and width.
    private var skipping: (of: Int, width: Int)?
    /// What the first bytes of the input are, when they are not text rows.
    public private(set) var kind: InputKind = .text

    /// What an input holds, told from its first bytes.
    public enum InputKind: Equatable, Sendable {
        /// Text rows (the usual case).
        case text
        /// A raw (binary) RNCryptor message.
        case rawMessage
        /// A raw message of another known format (OpenSSL `enc`, the RNCryptor v4 draft).
        case rawForeign(Hint)
        /// Other binary data: NUL bytes, control characters, or mostly not UTF-8.
        case binary
    }

    /// Whether the input starts like a raw (binary) RNCryptor message rather than text.
    public var isRawMessage: Bool { kind == .rawMessage }

    /// Starts reading the rows of `descriptor` (from where it is; it stays the caller's to
    /// close, after the last row): looks at its first bytes to tell a raw message or binary
    /// data from text, reading no more of them than it needs to tell.
    /// - Parameters:
    ///   - descriptor: the input, read from where it is.
    ///   - idColumn: rows are `ID<TAB>MESSAGE` (`--id-column`).
    ///   - joinsWrapped: rows of wrapped base64 are joined (false: every row is decided at its
    ///     own line end, alone, `--in-band`).
    public init(_ descriptor: FileDescriptor, idColumn: Bool = false, joinsWrapped: Bool = true) throws(Errno) {
        try self.init(LineReader(descriptor), idColumn: idColumn, joinsWrapped: joinsWrapped)
    }

    /// Starts reading the rows of the lines `reader` gives (it must not have given one yet): a
    /// line over its `maximumLength`, and a wrapped message longer than that, is `line too long`.
    public init(_ reader: LineReader, idColumn: Bool = false, joinsWrapped: Bool = true) throws(Errno) {
        precondition(reader.lineNumber == 0, "MessageRows reads a LineReader from its first line")
        self.reader = reader
        self.idColumn = idColumn
        self.joinsWrapped = joinsWrapped
        maximumLength = reader.maximumLength
        // As many bytes as the registry needs to tell (a raw header's options byte, enough
        // to tell Salted__ or RNC\4), and no more: a row is not kept waiting.
        var first = try self.reader.peek(atLeast: 1)
        while let needed = KindRegistry.bytesToTell(first), needed > first.count {
            let more = try self.reader.peek(atLeast: needed)
            if more.count == first.count { break }
            first = more
        }
        kind = Self.kind(of: first)
    }

    /// For an input read as a stream (a pipe, a terminal, a socket): all it has given so far
    /// when it opens like a message of another kind (age, Ansible Vault, OpenPGP), after blank
    /// lines or not, or like YAML (which may hold `!vault` values), else nil. Looks no further
    /// than its first line of text (or 64 KiB of a binary input): text that is lines is read
    /// once, by `next()`. Only before the first `next()`; the bytes it returns are not read
    /// again by the rows (the input is then another kind's, read on by the caller).
    public mutating func otherKindPrefix() throws(Errno) -> [UInt8]? {
        guard try reader.peek(atLeast: 1).first != nil else { return nil }
        // Blank lines (spaces, tabs, CR) before it do not hide a whole-file kind: the armored
        // age or OpenPGP file after a blank line opens from a pipe as from a file (CCTV's
        // armor_whitespace_outside). They are looked past up to 32 KiB, no further than the
        // first line of text, so a person typing messages is not waited for.
        var seen = try reader.peek(atLeast: 1)
        var start = seen.firstIndex { !Self.isBlank($0) }
        while start == nil, seen.count < Self.blankLookahead {
            let more = try reader.peek(atLeast: seen.count + 1)
            if more.count == seen.count { return nil }  // only blank lines
            seen = more
            start = seen.firstIndex { !Self.isBlank($0) }
        }
        guard let start else { return nil }
        let prefix: ArraySlice<UInt8>
        if KindRegistry.mayBeginWholeInputKind(seen[start]) || start > seen.startIndex {
            // Through the end of the first line of text, or `detectionLength` bytes of it.
            while !seen[start...].contains(0x0a), seen.count < start + detectionLength {
                let more = try reader.peek(atLeast: seen.count + 1)
                if more.count == seen.count { break }
                seen = more
            }
            prefix = seen[start...]
        } else if kind == .binary {
            prefix = try reader.peek(atLeast: detectionLength)
        } else {
            prefix = seen
        }
        if KindRegistry.wholeInputKind(prefix.prefix(detectionLength)) != nil { return Array(try reader.peek(atLeast: 0)) }
        // Armor inside other text (an email: "Hi Bob, here it is:", the armor, "bye"), as a
        // regular file's first `detectionLength` bytes show it.
        if kind == .text, try kindAfterProse(&seen, from: start) { return Array(try reader.peek(atLeast: 0)) }
        guard KindRegistry.mayBeYAML(prefix.prefix(detectionLength)) else { return nil }
        return Array(try reader.peek(atLeast: 0))
    }

    /// Whether a line may be (the first row of) an RNCryptor message: no character that is in
    /// no base64 row (`KindRegistry.isProse`: prose, a `#` comment), and long enough to start
    /// a wrapped one (a whole message is longer still). A blank line is not.
    private static func mayBeRow(_ line: ArraySlice<UInt8>) -> Bool {
        (KindRegistry.rowCharacters(line) ?? 0) >= minimumWrapWidth
    }

    /// When the first line of text, at `start` in `seen`, cannot be a message (prose, a short
    /// line: `mayBeRow`): reads on, a line at a time, while the lines cannot either, up to
    /// `detectionLength` bytes from the input's start (what a regular file's detection looks
    /// at), and says whether a whole-input kind's armor is there. It stops at a row that may
    /// be a message (the first line is one, most often: then nothing more is read): a person
    /// typing messages is not waited for.
    private mutating func kindAfterProse(_ seen: inout ArraySlice<UInt8>, from start: Int) throws(Errno) -> Bool {
        var lineStart = start
        while true {
            while !seen[lineStart...].contains(0x0a), seen.count < detectionLength {
                let more = try reader.peek(atLeast: seen.count + 1)
                if more.count == seen.count { break }  // the end of the input
                seen = more
            }
            // The first line was looked at by the caller; a later one may complete an armor's BEGIN line.
            if lineStart != start, KindRegistry.wholeInputKind(seen.prefix(detectionLength)) != nil { return true }
            guard let end = seen[lineStart...].firstIndex(of: 0x0a), end + 1 - seen.startIndex < detectionLength else { return false }
            if Self.mayBeRow(seen[lineStart..<end]) { return false }
            lineStart = end + 1
        }
    }

    /// How far blank lines before a whole-file kind are looked past on a stream.
    public static let blankLookahead = 32 << 10

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d }

    /// What the first bytes of an input (as much as one read gave, up to 64 KiB) say it is:
    /// a raw RNCryptor message, a raw message of another format, binary data (NUL bytes,
    /// control characters, or mostly not UTF-8), or text.
    public static func kind(of prefix: ArraySlice<UInt8>) -> InputKind {
        switch KindRegistry.classify(prefix) {
        case .rncryptorRaw: .rawMessage
        case .foreign(let format): .rawForeign(Hint(format))
        case .notMessage, .otherOpenPGP: .binary
        case .text, .message, .needMore: .text
        }
    }

    /// The next row, or nil at the end of the input. Blocks until the row's line has come (the
    /// next lines too, while they may continue a wrapped message).
    public mutating func next() throws(Errno) -> Row? {
        if pendingIndex < pending.count {
            defer {
                pendingIndex += 1
                if pendingIndex == pending.count { pending = []; pendingIndex = 0 }
            }
            return pending[pendingIndex]
        }
        guard let (number, line) = try nextPhysical() else { return nil }
        if let (of, width) = skipping {
            // The usual row of a long run (wrapped junk, a message far over the limit): a full
            // row of base64 characters alone, taken without copying (150 MB of wrapped base64
            // took 24 s to skip row by row).
            if case .text(let bytes) = line, bytes.count == width, width < Self.shortestMessageText,
               bytes.allSatisfy(Base64.isAlphabetCharacter),
               !KindRegistry.mayBeginForeignBase64(bytes) {  // Salted__, RNC: `start(of:)` decides
                return Row(line: number, id: nil, content: .continuation(of: of))
            }
            if let text = continuationText(line), text.count <= width {
                if text.count < width || text.last == UInt8(ascii: "=") { skipping = nil }
                return Row(line: number, id: nil, content: .continuation(of: of))
            }
            skipping = nil
        }
        return try row(number, line)
    }

    private mutating func nextPhysical() throws(Errno) -> (Int, LineReader.Line)? {
        if let saved = pushback {
            pushback = nil
            return saved
        }
        guard let line = try reader.next() else { return nil }
        return (reader.lineNumber, line)
    }

    private mutating func row(_ number: Int, _ line: LineReader.Line) throws(Errno) -> Row {
        let bytes: [UInt8]
        switch line {
        case .text(let text): bytes = text
        case .tooLong(let prefix):
            let id = idColumn ? prefix.firstIndex(of: Self.tab).map { Array(prefix[..<$0]) } : nil
            return Row(line: number, id: id, content: .failure(.lineTooLong, hint: .lineTooLong))
        }
        let whole = Self.trim(bytes[...])
        if whole.isEmpty || whole.first == UInt8(ascii: "#") { return Row(line: number, id: nil, content: .skipped) }
        var id: [UInt8]?
        var text: [UInt8]
        if idColumn {
            guard let tab = bytes.firstIndex(of: Self.tab) else {
                return Row(line: number, id: nil, content: .failure(.missingID, hint: nil))
            }
            id = Array(bytes[..<tab])
            text = Self.messageText(bytes[(tab + 1)...])
        } else {
            text = Self.messageText(bytes[...])
        }
        if text.isEmpty || text.first == UInt8(ascii: "#") { return Row(line: number, id: id, content: .skipped) }
        let alone = Self.parse(text[...])
        if case .message = alone { return Row(line: number, id: id, content: alone) }
        if joinsWrapped, text.count >= Self.minimumWrapWidth, text.last != UInt8(ascii: "="), text.allSatisfy(Base64.isAlphabetCharacter) {
            return try run(firstLine: number, id: id, firstRow: text, alone: alone)
        }
        var row = Row(line: number, id: id, content: alone)
        row.notBase64 = text.contains { !Base64.isAlphabetCharacter($0) && $0 != UInt8(ascii: "=") }
        return row
    }

    /// A row's message text: trimmed, email quoting (`>`) and inner blanks dropped.
    static func messageText(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var text = trim(bytes)
        while text.first == UInt8(ascii: ">") { text = trim(text.dropFirst()) }
        return text.filter { $0 != UInt8(ascii: " ") && $0 != tab && $0 != UInt8(ascii: "\r") }
    }

    /// The message text of a line that may continue a run (no ID, base64 with at most two
    /// trailing `=`, not a whole message, not the start of another format); nil otherwise.
    private func continuationText(_ line: LineReader.Line) -> [UInt8]? {
        guard case .text(let bytes) = line, !(idColumn && bytes.contains(Self.tab)) else { return nil }
        let text = Self.messageText(bytes[...])
        guard !text.isEmpty, text.first != UInt8(ascii: "#"), Self.isWrappedRow(text[...]) else { return nil }
        if case .foreign = Self.start(of: text) { return nil }
        // A whole v1–v3 message ends the run. A version 0 one does not: v0 has no length rule
        // (any 66 bytes or more), so a row of ciphertext that happens to begin `00 00` would
        // read as one (for the same reason, `cuts` never cuts at a v0 header).
        if text.count >= Self.shortestMessageText, case .message(let message) = Self.parse(text[...]), message.version != 0 { return nil }
        return text
    }

    /// No message is shorter than 88 base64 characters (66 bytes): a shorter row is never whole.
    private static let shortestMessageText = 88

    /// Reads the rest of a run that starts with `firstRow` (see the type's documentation),
    /// cuts it into messages, and returns the first; the others and the continuation rows wait in `pending`.
    private mutating func run(firstLine: Int, id: [UInt8]?, firstRow: [UInt8], alone: Content) throws(Errno) -> Row {
        let width = firstRow.count
        var rows: [(line: Int, text: [UInt8])] = [(firstLine, firstRow)]
        var starts: [Start] = [Self.start(of: firstRow)]
        var chars = width
        var made: [Row] = []
        var ended = false
        // A long run is cut every `checkEvery` characters, so that it holds few messages at a time.
        var checkAt = Self.checkEvery
        while !ended {
            var overflow = false
            while let (number, line) = try nextPhysical() {
                guard let text = continuationText(line), text.count <= width else {
                    pushback = (number, line)
                    break
                }
                rows.append((number, text))
                starts.append(Self.start(of: text))
                chars += text.count
                if text.count < width || text.last == UInt8(ascii: "=") { break }
                if chars > min(checkAt, maximumLength) { overflow = true; break }
            }
            ended = !overflow
            if rows.count == 1 && made.isEmpty && rows[0].line == firstLine { return Row(line: firstLine, id: id, content: alone) }
            // With --id-column every message has its own ID row: the run is one message.
            let cuts = idColumn ? [0, rows.count] : Self.cuts(rows.map(\.text), final: ended, starts: starts)
            var segments = Array(zip(cuts, cuts.dropFirst()))
            if overflow, let (start, end) = segments.last {
                let held = rows[start..<end].reduce(0) { $0 + $1.text.count }
                if held <= maximumLength {
                    checkAt = held + Self.checkEvery
                    // The last message may go on: keep its rows, make the others, read on.
                    segments.removeLast()
                    make(segments, of: rows, id: id, firstLine: firstLine, into: &made)
                    rows = Array(rows[start..<end])
                    starts = Array(starts[start..<end])
                    chars = held
                    continue
                }
                // One message over the limit: line too long, and the rest of its rows are skipped.
                make(Array(segments.dropLast()), of: rows, id: id, firstLine: firstLine, into: &made)
                let first = rows[start].line
                made.append(Row(line: first, id: first == firstLine ? id : nil, content: .failure(.lineTooLong, hint: .lineTooLong)))
                for later in rows[(start + 1)..<end] { made.append(Row(line: later.line, id: nil, content: .continuation(of: first))) }
                skipping = (first, width)
                break
            }
            make(segments, of: rows, id: id, firstLine: firstLine, into: &made)
        }
        pending = Array(made.dropFirst())
        pendingIndex = 0
        return made[0]
    }

    /// How many characters of a run are read before the messages before its last are made.
    static let checkEvery = 1 << 16

    /// The rows of the messages `segments` (row ranges) of a run.
    private func make(_ segments: [(Int, Int)], of rows: [(line: Int, text: [UInt8])], id: [UInt8]?, firstLine: Int, into made: inout [Row]) {
        for (start, end) in segments {
            let first = rows[start].line
            let joined = rows[start..<end].reduce(into: [UInt8]()) { $0 += $1.text }
            made.append(Row(line: first, id: first == firstLine ? id : nil, content: Self.parse(joined[...])))
            for later in rows[(start + 1)..<end] { made.append(Row(line: later.line, id: nil, content: .continuation(of: first))) }
        }
    }

    /// Where a run's rows start a new message: indices from 0 to `rows.count` (see the type's
    /// documentation). `final`: the run ended (else its last message may go on).
    /// `starts`: each row's `start(of:)`, when the caller has them (a long run is cut again
    /// every `checkEvery` characters: each row's start is worked out once, not at every cut).
    static func cuts(_ rows: [[UInt8]], final: Bool, starts given: [Start]? = nil) -> [Int] {
        let n = rows.count
        let starts = given ?? rows.map { start(of: $0) }
        // Boundaries: the run's start, rows that start a v1–v3 header, the run's end.
        var candidates = [0]
        for index in 1..<n { if case .rncryptor(let version, _) = starts[index], version != 0 { candidates.append(index) } }
        candidates.append(n)
        guard candidates.count > 2, candidates.count <= 4096 else { return [0, n] }
        var charsBefore = [0]
        for row in rows { charsBefore.append(charsBefore[charsBefore.count - 1] + row.count) }
        // best[k]: (failed parts, -messages) for the rows before candidates[k], and the cut before it.
        var best: [(failed: Int, messages: Int, from: Int)] = [(0, 0, -1)]
        for k in 1..<candidates.count {
            var choice: (failed: Int, messages: Int, from: Int)?
            for i in 0..<k {
                let padding = candidates[k] == n ? rows[n - 1].reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count : 0
                let valid = isMessage(start: starts[candidates[i]], characters: charsBefore[candidates[k]] - charsBefore[candidates[i]] - padding,
                                      padded: padding > 0)
                    || (!final && k == candidates.count - 1)
                // A failed part holds no row that may start a message but its first.
                if !valid && i != k - 1 { continue }
                let cost = (failed: best[i].failed + (valid ? 0 : 1), messages: best[i].messages + (valid ? 1 : 0), from: i)
                if let current = choice, (current.failed, -current.messages) <= (cost.failed, -cost.messages) { continue }
                choice = cost
            }
            best.append(choice!)
        }
        var cuts: [Int] = []
        var k = candidates.count - 1
        while k >= 0 { cuts.append(candidates[k]); k = best[k].from }
        return cuts.reversed()
    }

    /// How a row of base64 starts.
    enum Start: Equatable {
        /// An RNCryptor header's version and options bytes (options 1: password-based).
        case rncryptor(version: UInt8, passwordBased: Bool)
        /// Another format's magic (`Salted__`, `RNC` and 4).
        case foreign
        case other
    }

    static func start(of row: [UInt8]) -> Start {
        let prefix = row.prefix(12).filter { $0 != UInt8(ascii: "=") }
        guard prefix.count >= 4, let bytes = Base64.decodeLenient(prefix.prefix(prefix.count / 4 * 4)) else { return .other }
        do {
            let length = try MessageHeader.headerLength(of: bytes, moreMayFollow: true)
            return .rncryptor(version: bytes[0], passwordBased: length == MessageHeader.maximumLength)
        } catch .openSSLEnc, .rncryptorV4Draft {
            return .foreign
        } catch {
            return .other
        }
    }

    /// Whether a run segment that starts so and has this many base64 characters (not
    /// counting `=`) has a valid message's length (`Message` would take it: header, whole
    /// blocks, HMAC). `padded`: it ended in `=`, so its length is not a multiple of 4.
    static func isMessage(start: Start, characters: Int, padded: Bool) -> Bool {
        guard case .rncryptor(let version, let passwordBased) = start else { return false }
        let remainder = characters % 4
        guard remainder != 1, !(padded && remainder == 0) else { return false }
        let bytes = characters / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        let header = passwordBased || version == 0 ? 34 : 18
        if version == 0 { return bytes >= header + 32 }
        return bytes >= header + 16 + 32 && (bytes - header - 32) % 16 == 0
    }
    /// Decodes base64 and checks the message's structure.
    static func parse(_ text: ArraySlice<UInt8>) -> Content {
        guard let raw = Base64.decodeLenient(text) else { return .failure(Failure(.badBase64), hint: nil) }
        do {
            return .message(Message(try RWSecretKit.Message(raw)))
        } catch {
            // Another format: a run-level hint, and the spec's per-message reason for its first byte.
            if let hint = Hint(error) { return .failure(Failure(.format(.unknownVersion(raw[0]))), hint: hint) }
            return .failure(Failure(.format(error)), hint: nil)
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

