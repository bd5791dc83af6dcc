import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// How one row's outcome is written on stdout: one type per output format.
///
/// A format writes a record and nothing else: `RecordWriter` flushes, counts, keeps
/// the exit status and the progress line, and says on stderr what a format does not
/// record. A new format is one new type here and one line where `RecordWriter` picks it.
protocol ResultFormat {
    /// Writes a verified plaintext and what opened it.
    func decrypted(_ place: RecordWriter.Place, _ plaintext: [UInt8], openedBy: Opener)
    /// Writes a failure record; false when failures are not records in this format (they go to stderr).
    func failed(_ place: RecordWriter.Place, _ failure: RowFailure) -> Bool
    /// Writes a record for a row without a message; false when this format writes none.
    func skipped(_ place: RecordWriter.Place) -> Bool
    /// Writes a failure record for a whole input (missing, a folder, unreadable, binary data,
    /// a raw message): it has no line. The line on stderr is written as well.
    func inputFailed(_ source: String, _ reason: String)
}

extension ResultFormat {
    func inputFailed(_ source: String, _ reason: String) {}
}

/// Plaintexts, one per line (`ID<TAB>` first with `--id-column`); failures on stderr.
struct TextFormat: ResultFormat {
    let idColumn: Bool
    /// On a terminal, control characters of a plaintext (but TAB and LF) are shown escaped
    /// (`\x1b`), as less and git do, so that a message cannot drive the terminal (SPEC "Output").
    var escapesControls = isatty(STDOUT_FILENO) == 1

    func decrypted(_ place: RecordWriter.Place, _ plaintext: [UInt8], openedBy: Opener) {
        if idColumn {
            Output.standardOutput.write(bytes: escapesControls ? TerminalText.escaped(place.id ?? []) : place.id ?? [])
            Output.standardOutput.write("\t")
        }
        if escapesControls, TerminalText.needsEscaping(plaintext) {
            var shown = TerminalText.escaped(plaintext)
            defer { SecretBytes.cleanse(&shown) }
            Output.standardOutput.write(bytes: shown)
            TerminalText.sayOnce()
        } else {
            Output.standardOutput.write(bytes: plaintext)
        }
        if !place.wholeFile { Output.standardOutput.write("\n") }
    }

    func failed(_ place: RecordWriter.Place, _ failure: RowFailure) -> Bool { false }
    func skipped(_ place: RecordWriter.Place) -> Bool { false }
}

/// One JSON object per message (`--json`), or per input row (`--in-band`: failures and
/// skipped rows are records too).
struct JSONFormat: ResultFormat {
    let idColumn: Bool
    let inBand: Bool

    func decrypted(_ place: RecordWriter.Place, _ plaintext: [UInt8], openedBy: Opener) {
        var members = head(place)
        members.append(("status", .string("decrypted")))
        // A UTF-8 plaintext is escaped byte by byte into a buffer wiped once written: through
        // Strings (the text, its escaped form, the object) it left copies nobody could wipe.
        guard var escaped = Self.escapedString(utf8: plaintext) else {
            members.append(("plaintext_base64", .string(RNCryptor.Base64.encode(plaintext))))
            members.append(("password", .string(openedBy.words)))
            // Only for v0 and v1: a record without it had its header and ciphertext authenticated.
            if place.ciphertextOnly { members.append(("authenticated", .string("ciphertext-only"))) }
            Output.standardOutput.line(JSON.object(members))
            return
        }
        defer { SecretBytes.cleanse(&escaped) }
        // The object so far, without its closing brace.
        let opening = JSON.object(members).dropLast()
        Output.standardOutput.write(String(opening) + #","plaintext":"#)
        Output.standardOutput.write(bytes: escaped)
        let authenticated = place.ciphertextOnly ? #","authenticated":"ciphertext-only""# : ""
        Output.standardOutput.write(#","password":"# + JSON.string(openedBy.words) + authenticated + "}\n")
    }

    /// `bytes` as a JSON string literal (`JSON.string`'s escapes), or nil when they are not UTF-8.
    static func escapedString(utf8 bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8 + 2)
        out.append(UInt8(ascii: "\""))
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var start = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let length = encoded.count
                let scalar = Unicode.UTF8.decode(encoded)
                switch scalar {
                case "\"": out += Array(#"\""#.utf8)
                case "\\": out += Array(#"\\"#.utf8)
                case "\n": out += Array(#"\n"#.utf8)
                case "\r": out += Array(#"\r"#.utf8)
                case "\t": out += Array(#"\t"#.utf8)
                case _ where scalar.value < 0x20 || scalar.value == 0x7f || scalar.value == 0x2028 || scalar.value == 0x2029:
                    let hex = String(scalar.value, radix: 16)
                    out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                default: out += bytes[start..<start + length]
                }
                start += length
            case .emptyInput:
                out.append(UInt8(ascii: "\""))
                return out
            case .error:
                SecretBytes.cleanse(&out)
                return nil
            }
        }
    }

    func failed(_ place: RecordWriter.Place, _ failure: RowFailure) -> Bool {
        Output.standardOutput.line(JSON.object(head(place) + [("status", .string("failed")), ("error", .string(failure.description))]))
        return true
    }

    /// `{"source":"gone.txt","line":null,"kind":null,"status":"failed","error":"No such file or directory"}`:
    /// so that a join by `source` loses no input. Not under `--in-band`, whose records are one per
    /// input row (an input that cannot be read has none).
    func inputFailed(_ source: String, _ reason: String) {
        guard !inBand else { return }
        var members: [(String, JSON.Value)] = [("source", .string(source)), ("line", .null), ("kind", .null)]
        if idColumn { members.append(("id", .null)) }
        Output.standardOutput.line(JSON.object(members + [("status", .string("failed")), ("error", .string(reason))]))
    }

    func skipped(_ place: RecordWriter.Place) -> Bool {
        guard inBand else { return false }
        Output.standardOutput.line(JSON.object(head(place) + [("status", .string("skipped"))]))
        return true
    }

    /// The members every object starts with: source, line, and the ID under `--id-column`.
    private func head(_ place: RecordWriter.Place) -> [(String, JSON.Value)] {
        var members: [(String, JSON.Value)] = [("source", .string(place.source)), ("line", .int(place.line)), ("kind", .string(place.kind.description))]
        if let key = place.key { members.append(("key", .string(key))) }
        if let literal = place.literal {
            if let name = String(validating: literal.name, as: UTF8.self) {
                members.append(("literal_name", .string(name)))
            } else {
                members.append(("literal_name", .null))
                members.append(("literal_name_base64", .string(RNCryptor.Base64.encode(literal.name))))
            }
            members.append(("literal_date", literal.date == 0 ? .null : .string(literal.isoDate)))
            if !literal.signatures.isEmpty {
                // Who the message says signed it, and what the check found (one each, in order).
                members.append(("signed_by", .string(literal.signers.joined(separator: " "))))
                members.append(("signature", .string(literal.signatures.map(\.outcome.jsonWord).joined(separator: ", "))))
            }
        }
        if idColumn {
            if let id = place.id {
                if let text = String(validating: id, as: UTF8.self) {
                    members.append(("id", .string(text)))
                } else {
                    members.append(("id", .null))
                    members.append(("id_base64", .string(RNCryptor.Base64.encode(id))))
                }
            } else {
                members.append(("id", .null))
            }
        }
        return members
    }
}

/// Plaintext bytes for a terminal: C0 controls but TAB and LF, DEL, and C1 controls
/// (UTF-8 `C2 80`–`C2 9F`) as `\xNN`.
enum TerminalText {
    static func needsEscaping(_ bytes: [UInt8]) -> Bool {
        for (index, byte) in bytes.enumerated() where isControl(bytes, index) || byte == 0xC2 && isC1(bytes, index) { return true }
        return false
    }

    static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            if isControl(bytes, index) {
                out += hex(bytes[index])
            } else if bytes[index] == 0xC2, isC1(bytes, index) {
                out += hex(bytes[index + 1])
                index += 1
            } else {
                out.append(bytes[index])
            }
            index += 1
        }
        return out
    }

    private static func isControl(_ bytes: [UInt8], _ index: Int) -> Bool {
        let byte = bytes[index]
        return (byte < 0x20 && byte != 0x09 && byte != 0x0A) || byte == 0x7F
    }

    private static func isC1(_ bytes: [UInt8], _ index: Int) -> Bool {
        index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1])
    }

    private static func hex(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [UInt8(ascii: "\\"), UInt8(ascii: "x"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
    }

    /// Said once per run, on stderr, the first time a plaintext is shown escaped.
    nonisolated(unsafe) private static var said = false
    static func sayOnce() {
        guard !said else { return }
        said = true
        Output.standardOutput.flush()
        Output.standardError.line("rwsecret: note: control characters in plaintexts are shown escaped (\\x1b) because stdout is a terminal; redirect stdout for the exact bytes")
    }
}
