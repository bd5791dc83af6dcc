/// Looking for a piece of text inside a string, byte for byte in UTF-8, with the standard
/// library alone. `String.contains(String)` and its kin come from `_StringProcessing`, which
/// brings `_RegexParser` with it: 880 KB of code and a dozen pages the loader relocates in every
/// run of a program that links them (issue 36; the `decrypt` front links neither).
extension StringProtocol {
    /// Whether `text` occurs in this string (an empty `text` never does, as with `contains`).
    package func containsText(_ text: String) -> Bool {
        let bytes = utf8, wanted = text.utf8
        guard !wanted.isEmpty else { return false }
        var start = bytes.startIndex
        while start != bytes.endIndex {
            if bytes[start...].starts(with: wanted) { return true }
            start = bytes.index(after: start)
        }
        return false
    }
}
