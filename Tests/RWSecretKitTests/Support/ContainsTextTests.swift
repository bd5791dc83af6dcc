@testable import RWSecretCore
import Testing

/// `containsText`: the library's substring test without the regex engine (`String.contains(String)`
/// comes from `_StringProcessing`, which the `decrypt` front does not link), checked against the
/// standard library's own answer.
@Suite("containsText")
struct ContainsTextTests {
    @Test func agreesWithTheStandardLibrary() {
        let texts = ["", "a", "autolaunch failed", "Object does not exist at path “/org/freedesktop/secrets/aliases/default”",
                     "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC", "é𝄞é", "aab"]
        let pieces = ["", "a", "ab", "autolaunch", "Object does not exist at path", "Proc-Type: 4,ENCRYPTED", "𝄞", "é𝄞", "zz", "aab", "aabb"]
        for text in texts {
            for piece in pieces {
                #expect(text.containsText(piece) == text.contains(piece), "\(text) / \(piece)")
                #expect(text[...].containsText(piece) == text.contains(piece), "\(text) / \(piece)")
            }
        }
    }
}
