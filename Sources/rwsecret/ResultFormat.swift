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
            defer { Crypto.cleanse(&shown) }
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
        members.append(String(validating: plaintext, as: UTF8.self).map { ("plaintext", .string($0)) }
                       ?? ("plaintext_base64", .string(Base64.encode(plaintext))))
        members.append(("password", .string(openedBy.words)))
        // Only for v0 and v1: a record without it had its header and ciphertext authenticated.
        if place.ciphertextOnly { members.append(("authenticated", .string("ciphertext-only"))) }
        Output.standardOutput.line(JSON.object(members))
    }

    func failed(_ place: RecordWriter.Place, _ failure: RowFailure) -> Bool {
        Output.standardOutput.line(JSON.object(head(place) + [("status", .string("failed")), ("error", .string(failure.description))]))
        return true
    }

    func skipped(_ place: RecordWriter.Place) -> Bool {
        guard inBand else { return false }
        Output.standardOutput.line(JSON.object(head(place) + [("status", .string("skipped"))]))
        return true
    }

    /// The members every object starts with: source, line, and the ID under `--id-column`.
    private func head(_ place: RecordWriter.Place) -> [(String, JSON.Value)] {
        var members: [(String, JSON.Value)] = [("source", .string(place.source)), ("line", .int(place.line)), ("kind", .string(place.kind.rawValue))]
        if let key = place.key { members.append(("key", .string(key))) }
        if let literal = place.literal {
            if let name = String(validating: literal.name, as: UTF8.self) {
                members.append(("literal_name", .string(name)))
            } else {
                members.append(("literal_name", .null))
                members.append(("literal_name_base64", .string(Base64.encode(literal.name))))
            }
            members.append(("literal_date", literal.date == 0 ? .null : .string(literal.isoDate)))
        }
        if idColumn {
            if let id = place.id {
                if let text = String(validating: id, as: UTF8.self) {
                    members.append(("id", .string(text)))
                } else {
                    members.append(("id", .null))
                    members.append(("id_base64", .string(Base64.encode(id))))
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
