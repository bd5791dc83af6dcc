/// Finding, replacing and splitting at a piece of text, byte for byte in UTF-8, with the
/// standard library alone. `String.contains(String)`, `replacing(_:with:)` and
/// `split(separator: String)` come from `_StringProcessing`, which brings `_RegexParser` with it:
/// 880 KB of code and a dozen pages the loader relocates in every run of the `decrypt` front,
/// which shares this file (issue 36). FrontTests checks that the front links neither.
/// (RWSecretCore has its own `containsText`: the tool uses the library's public API only.)
enum TextSearch {
    /// Where `piece` first occurs in `text`. A match of valid UTF-8 starts with a leading byte,
    /// so the range lies on character-scalar boundaries of `text`.
    static func range(of piece: String, in text: Substring) -> Range<String.Index>? {
        let bytes = text.utf8, wanted = piece.utf8
        guard !wanted.isEmpty else { return nil }
        var start = bytes.startIndex
        while start != bytes.endIndex {
            if bytes[start...].starts(with: wanted) { return start..<bytes.index(start, offsetBy: wanted.count) }
            start = bytes.index(after: start)
        }
        return nil
    }

    /// Whether `piece` occurs in `text`.
    static func contains(_ piece: String, in text: String) -> Bool { range(of: piece, in: text[...]) != nil }

    /// `text` with every occurrence of `piece` (not empty) replaced by `replacement`.
    static func replacing(_ piece: String, with replacement: String, in text: String) -> String {
        var result = "", rest = text[...]
        while let found = range(of: piece, in: rest) {
            result += rest[..<found.lowerBound] + replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }

    /// The parts of `text` between occurrences of `separator` (not empty); empty parts are kept.
    static func split(_ text: String, separator: String) -> [Substring] {
        var parts: [Substring] = [], rest = text[...]
        while let found = range(of: separator, in: rest) {
            parts.append(rest[..<found.lowerBound])
            rest = rest[found.upperBound...]
        }
        parts.append(rest)
        return parts
    }
}
