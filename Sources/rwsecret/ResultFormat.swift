import RWSecretKit

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

    func decrypted(_ place: RecordWriter.Place, _ plaintext: [UInt8], openedBy: Opener) {
        if idColumn {
            Output.standardOutput.write(bytes: place.id ?? [])
            Output.standardOutput.write("\t")
        }
        Output.standardOutput.write(bytes: plaintext)
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
