/// The one place that says what an input is, from its first bytes: which kind of message
/// (RNCryptor raw or base64 lines, age binary or armored, OpenPGP binary or armored, an
/// Ansible Vault envelope, a YAML file with `!vault` values), or what else it is (plain
/// text, binary data, a YAML file with no `!vault` value, another format people mistake for
/// RNCryptor), or that more bytes are needed to tell.
///
/// Every reader asks here: the library's `VerifiedStream` and `MessageOpener`, the tool's
/// line reader, `--binary` and its whole-file look-ahead. No other file outside this one and
/// the kinds' own folders (`Kinds/RNCryptor`, `Kinds/Age`, `Kinds/OpenPGP`, `Kinds/Ansible`)
/// tests magic bytes or headers; a kind's own tests (its `detect`, its header parser) are
/// called from here. Adding a kind: its folder, and one line in `kinds`.
package enum KindRegistry {
    /// Every kind, in the order their `detect` is asked. RNCryptor is first: its messages
    /// (a raw header, or a line of base64) never begin as another kind's do.
    package static let kinds: [any MessageKind.Type] = [
        RNCryptorKind.self,
        AgeKind.self,
        AnsibleVaultKind.self,
        OpenPGPKind.self,
    ]

    /// The kinds whose message is a whole input (every kind but RNCryptor, which is a raw
    /// input or one message per line), in the order their `detect` is asked.
    package static let wholeInputKinds: [any MessageKind.Type] = kinds.filter { !$0.isLineKind }

    // MARK: - The answer

    /// What an input is.
    package enum Answer: Equatable {
        /// A whole input of this kind (age, Ansible Vault, OpenPGP).
        case message(any MessageKind.Type)
        /// A raw (binary) RNCryptor message.
        case rncryptorRaw
        /// Text: rows that may hold base64 RNCryptor messages, or a YAML file that may hold
        /// `!vault` values (`mayBeYAML`, then the Ansible kind's `vaultValues(inYAML:)` tell).
        case text
        /// A raw message of another format that people mistake for RNCryptor.
        case foreign(ForeignFormat)
        /// An OpenPGP message of a form no kind here opens (a packet that begins one).
        case otherOpenPGP
        /// No message: binary data.
        case notMessage(NotAMessage)
        /// Too few bytes to tell, and more may follow: at least this many are needed.
        case needMore(Int)

        package static func == (a: Answer, b: Answer) -> Bool {
            switch (a, b) {
            case (.message(let x), .message(let y)): x == y
            case (.rncryptorRaw, .rncryptorRaw), (.otherOpenPGP, .otherOpenPGP), (.text, .text): true
            case (.foreign(let x), .foreign(let y)): x == y
            case (.notMessage(let x), .notMessage(let y)): x == y
            case (.needMore(let x), .needMore(let y)): x == y
            default: false
            }
        }
    }

    /// What no message is (`NotAMessage`, public).
    package typealias NotAMessage = RWSecretKit.NotAMessage

    /// What the input whose first bytes are `prefix` is. Up to `detectionLength` bytes are
    /// looked at for a kind (an armored message may follow whitespace or, for OpenPGP, other
    /// text), up to 64 KiB to tell text from binary data. `final`: `prefix` is the whole input
    /// (else a prefix too short to tell asks for more).
    package static func detect(_ prefix: ArraySlice<UInt8>, final: Bool) -> Answer {
        if !final, let needed = bytesToTell(prefix) { return .needMore(needed) }
        if let kind = wholeInputKind(prefix.prefix(detectionLength)) { return .message(kind) }
        return classify(prefix)
    }

    /// `detect` less the whole-input kinds: what a line reader sees (RNCryptor raw or
    /// foreign, binary data, or text).
    package static func classify(_ prefix: ArraySlice<UInt8>) -> Answer {
        if RNCryptorKind.looksRaw(prefix) { return .rncryptorRaw }
        if let foreign = ForeignFormat(prefix: prefix) { return .foreign(foreign) }
        if isBinary(prefix) { return isOtherOpenPGP(prefix.prefix(detectionLength)) ? .otherOpenPGP : .notMessage(.binaryData) }
        return .text
    }

    /// How many bytes a prefix this short needs before `classify` can tell (a raw RNCryptor
    /// header's version byte needs its options byte; `S` or `R` may begin `Salted__` or
    /// `RNC\4`), or nil when it can tell now. A first line shorter than 8 bytes (it holds
    /// its LF) is neither magic: its row is not kept waiting for more.
    package static func bytesToTell(_ prefix: ArraySlice<UInt8>) -> Int? {
        guard let first = prefix.first else { return 1 }
        if first <= 3 && prefix.count < 2 { return 2 }
        if prefix.count < 8, !prefix.contains(0x0a), first == UInt8(ascii: "S") || first == UInt8(ascii: "R") { return 8 }
        return nil
    }

    // MARK: - Whole-input kinds

    /// The whole-input kind whose message `prefix` (the first `detectionLength` bytes of an
    /// input) begins, or holds after other text (an OpenPGP armor: gpg reads past it; an age
    /// armor: age refuses it, and so does the age kind, in one line); nil for none.
    package static func wholeInputKind(_ prefix: ArraySlice<UInt8>) -> (any MessageKind.Type)? {
        if let kind = wholeInputKinds.first(where: { $0.detect(prefix) }) { return kind }
        if AgeKind.detectAfterText(prefix) { return AgeKind.self }
        return nil
    }

    /// Whether `prefix` begins an OpenPGP message that no kind here opens (a public-key or
    /// symmetric-key session key packet of a form `OpenPGPKind.detect` does not take, or an
    /// armor): recognised to say so.
    package static func isOtherOpenPGP(_ prefix: ArraySlice<UInt8>) -> Bool {
        OpenPGPKind.beginsSessionKeyPacket(prefix)
    }

    /// Whether `prefix` is another kind's message than a raw RNCryptor one: a whole-input kind,
    /// or an OpenPGP message of another form (`--binary` hands these on instead of failing).
    package static func isOtherKind(_ prefix: ArraySlice<UInt8>) -> Bool {
        let head = prefix.prefix(detectionLength)
        return wholeInputKind(head) != nil || isOtherOpenPGP(head)
    }

    /// Whether the first byte of text can begin a whole-input kind's message (an RNCryptor
    /// message, raw or base64, never begins so): a reader of lines need look further only then.
    package static func mayBeginWholeInputKind(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "a") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "$")
    }

    /// Whether a line of text (without its LF) cannot be an RNCryptor message or part of one:
    /// it holds a character that is in no base64 row (after email quoting and blanks, which
    /// a row may have): prose, a header line, a `#` comment. A whole-input kind's armor may
    /// follow it (OpenPGP after "Hi Bob, here it is:"), so a reader of a stream looks further.
    package static func isProse(_ line: ArraySlice<UInt8>) -> Bool { rowCharacters(line) == nil }

    /// How many characters of a base64 row `line` holds (blanks and leading email quoting
    /// left out), or nil when it holds one that is in no base64 row (`isProse`). One pass,
    /// on every stream's first line.
    package static func rowCharacters(_ line: ArraySlice<UInt8>) -> Int? {
        line.withUnsafeBufferPointer { bytes in
            var count = 0
            for byte in bytes {
                switch byte {
                case 0x20, 0x09, 0x0d: continue
                case UInt8(ascii: ">") where count == 0: continue
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                     UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
                    count += 1
                default: return nil
                }
            }
            return count
        }
    }

    // MARK: - RNCryptor

    /// Whether a row of base64 may begin another format's message (`Salted__`, `RNC`): a
    /// reader that skips rows of a long run looks at such a row properly.
    package static func mayBeginForeignBase64(_ row: [UInt8]) -> Bool {
        ForeignFormat.allCases.contains { row.starts(with: $0.base64Magic) }
    }

    /// The kind of the message `prefix` begins when it is one a `MessageOpener` opens
    /// (a whole-input kind, or a raw RNCryptor message whose header parses); nil otherwise.
    package static func openableKind(_ prefix: ArraySlice<UInt8>) -> MessageKindName? {
        if let kind = wholeInputKind(prefix.prefix(detectionLength)) { return kind.name }
        if RNCryptorKind.headerParses(prefix) { return .rncryptor }
        return nil
    }

    /// Whether `prefix` is base64 text (what `--binary` was not meant for).
    package static func looksLikeBase64Text(_ prefix: [UInt8]) -> Bool {
        let sample = prefix.prefix(64)
        guard sample.count >= 4 else { return false }
        return sample.allSatisfy { byte in
            Base64.isAlphabetCharacter(byte) || [UInt8(ascii: "="), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: " "), UInt8(ascii: "\t")].contains(byte)
        }
    }

    /// Whether the first line of `prefix` is an age file's, damaged (`age-…`, or holding
    /// `-encryption.org/`): better said than RNCryptor's "unknown version 97".
    package static func isDamagedAgeFirstLine(_ prefix: ArraySlice<UInt8>) -> Bool {
        guard let line = prefix.split(separator: 0x0a).first else { return false }
        return AgeKind.looksLikeDamagedIntro(line)
    }

    // MARK: - Text

    /// Whether `prefix` is binary data rather than text: a NUL byte, or more than one byte
    /// in ten that is a control character (other than TAB, LF, VT, FF, CR and ESC) or not
    /// part of valid UTF-8 — so an ID that is not UTF-8, or a comment in Latin-1, leaves a
    /// file text. As `grep` and `git` do, only the start is looked at.
    package static func isBinary(_ prefix: ArraySlice<UInt8>) -> Bool {
        if prefix.contains(0) { return true }
        let isControl: (UInt8) -> Bool = { $0 < 0x20 && ![0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B].contains($0) || $0 == 0x7F }
        var bad = 0
        var index = prefix.startIndex
        while index < prefix.endIndex {
            let byte = prefix[index]
            let length = byte < 0x80 ? 1 : byte >> 5 == 0b110 ? 2 : byte >> 4 == 0b1110 ? 3 : byte >> 3 == 0b11110 ? 4 : 0
            if length == 1 {
                if isControl(byte) { bad += 1 }
                index += 1
            } else if length == 0 {
                bad += 1
                index += 1
            } else if index + length > prefix.endIndex {
                break  // cut by the end of the sample
            } else if prefix[(index + 1)..<(index + length)].allSatisfy({ $0 >> 6 == 0b10 }) {
                index += length
            } else {
                bad += 1
                index += 1
            }
        }
        return bad * 10 > prefix.count
    }

    /// Whether the first significant line looks like YAML (a mapping key, a list item, a
    /// document start) rather than a base64 message, which has no `:` and no space.
    /// (Concrete types, not `some Collection`: the tool calls it across the module boundary,
    /// where a generic call would build its metadata at run time on every start.)
    package static func mayBeYAML(_ prefix: [UInt8]) -> Bool { mayBeYAML(prefix[...]) }

    /// `mayBeYAML` of a slice.
    package static func mayBeYAML(_ prefix: ArraySlice<UInt8>) -> Bool {
        for line in prefix.split(separator: 0x0a) {
            let text = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }
            if text.isEmpty || text.first == UInt8(ascii: "#") { continue }
            return text.contains(UInt8(ascii: ":")) || text.starts(with: "---".utf8) || text.starts(with: "- ".utf8)
        }
        return false
    }

    /// Whether YAML `text` in which the Ansible kind found no `!vault` value has `!vault`
    /// tags all the same (values that could not be read: no or TAB indentation).
    package static func mentionsVault(_ text: [UInt8]) -> Bool { AnsibleVaultKind.mentionsVaultTag(text) }
}

extension MessageKind {
    /// Whether this kind's messages are read one per line of text (RNCryptor) rather than as a whole input.
    package static var isLineKind: Bool { name == .rncryptor }
}
