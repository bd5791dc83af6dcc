import RWSecretKit

/// Issue 35, item 5: a text input none of whose rows is a message is said once, as what it
/// is — "not a secret message (plain text)", or "a YAML file with no `!vault` value" — not
/// one "bad base64" or "unknown version" line per row.
///
/// Text mode only (--json and --in-band keep a record per row). The rows that are no message
/// are held until a row shows the input holds messages (then they are written as before, in
/// order) or the input ends. Held: up to `limit` rows, none with a hint of another format,
/// and the verdict needs one row that is not base64 at all (a damaged message alone — a
/// truncated or misversioned base64 line — keeps its own reason).
struct NotMessages {
    /// The most rows held; past it the rows are written as they come.
    static let limit = 10_000

    /// Whether the input's first line of text looks like YAML (a mapping key, a list item, `---`).
    let looksLikeYAML: Bool
    private var rows: [(place: RecordWriter.Place, failure: RowFailure)] = []
    private var sawText = false

    /// Whether it has `!vault` tags whose values could not be read.
    let vaultUnread: Bool

    init(looksLikeYAML: Bool, vaultUnread: Bool = false) {
        self.looksLikeYAML = looksLikeYAML
        self.vaultUnread = vaultUnread
    }

    /// Holds `row`, which failed with `failure`; false when it is not held (then release).
    mutating func hold(_ row: MessageRows.Row, failure: RowFailure, hint: FormatHint?, source: String, input: Int) -> Bool {
        guard hint == nil, rows.count < Self.limit else { return false }
        if row.notBase64 { sawText = true }
        rows.append((RecordWriter.Place(input: input, source: source, line: row.line, id: row.id), failure))
        return true
    }

    /// The rows held, as the outcomes they would have been; none are held after.
    mutating func release() -> [DecryptSession.Outcome] {
        defer { rows = [] }
        return rows.map { .message($0.place, .failure($0.failure), hint: nil) }
    }

    /// At the end of the input: one line for it when nothing in it was a message, else the rows held.
    mutating func verdict(source: String) -> [DecryptSession.Outcome] {
        guard !rows.isEmpty else { return [] }
        guard sawText || looksLikeYAML else { return release() }
        rows = []
        let what: NotAMessage = vaultUnread ? .yamlVaultUnread : looksLikeYAML ? .yamlWithoutVault : .plainText
        return [.notMessages(source: source, what: what.description)]
    }
}
