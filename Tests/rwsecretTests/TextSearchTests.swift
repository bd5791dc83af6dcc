import Testing
@testable import rwsecret

/// `TextSearch`: what the tool (and the `decrypt` front, which links no regex engine) uses in
/// place of `String.contains(String)`, `replacing(_:with:)` and `split(separator: String)`.
/// Each answer is checked against the standard library's own (the whole tool links it).
@Suite("text search without the regex engine")
struct TextSearchTests {
    static let texts = ["", "a", "aaa", "abcabc", "rwsecret: 3,025 messages, 41% of 12.0 MiB, 1,512/s, 7 s left",
                        "ssh-keygen -p -f KEY -N '' -Z aes256-ctr -f KEY ", "é, é, ü,, ,", "𝄞 ,  , 𝄞", ", , "]
    static let pieces = ["a", "aa", "abc", ", ", ",", "-f KEY ", "é", "𝄞", " ", "zz"]

    @Test("contains, replacing and split agree with the standard library's", arguments: pieces)
    func agreesWithTheStandardLibrary(piece: String) {
        for text in Self.texts {
            #expect(TextSearch.contains(piece, in: text) == text.contains(piece), "\(text) / \(piece)")
            #expect(TextSearch.replacing(piece, with: "<\(piece)>", in: text) == text.replacing(piece, with: "<\(piece)>"), "\(text) / \(piece)")
            #expect(TextSearch.split(text, separator: piece) == text.split(separator: piece, omittingEmptySubsequences: false), "\(text) / \(piece)")
        }
    }

    @Test func ranges() {
        let text = "x é y é"
        let found = TextSearch.range(of: "é", in: text[...])
        #expect(found.map { String(text[$0]) } == "é")
        #expect(found?.lowerBound == text.firstIndex(of: "é"))
        #expect(TextSearch.range(of: "", in: text[...]) == nil)
        #expect(TextSearch.range(of: "z", in: text[...]) == nil)
        // In a slice: indices of the whole string, from the slice's start on.
        let rest = text[text.index(after: found!.upperBound)...]
        #expect(TextSearch.range(of: "é", in: rest)?.lowerBound == text.lastIndex(of: "é"))
    }

    @Test("the Botan advice names the key's file, as before")
    func botanAdvice() {
        let words = "needs Botan: convert the key with ssh-keygen -p -f KEY (keeps the passphrase)"
        #expect(TextSearch.replacing("-f KEY ", with: "-f id_ed25519 ", in: words)
                == "needs Botan: convert the key with ssh-keygen -p -f id_ed25519 (keeps the passphrase)")
    }
}
