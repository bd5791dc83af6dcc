import Testing
@testable import RWSecretKit

/// The order in which a run offers its identities to each whole file (`IdentityChain`): the one
/// that opened the file before it goes first, by the files' places in the run, not by which
/// thread finished first. Seen failing in a full `swift test` beside a CI run (load 4):
/// IdentityCommandTests' second file to `b`, after one opened by `b`, tried `a` first
/// ("tried 2"), because the third file, to `a`, had opened meanwhile on the other thread.
@Suite("identities offered in the order of the files' places")
struct IdentityChainOrderTests {
    let chain = IdentityChain(files: ["a", "b", "c"].map { Age.Identity.generate(name: $0).identity })

    func first(at position: Int?) -> String? { chain.fileIdentities(at: position).first?.name }

    @Test("a later file opened first does not reorder an earlier one's identities; the nearest earlier winner goes first")
    func byPlace() {
        #expect(first(at: nil) == "a")
        chain.finished(openedBy: "b")  // the first file, opened alone
        chain.finished(openedBy: "a", at: 2)  // the third, on the pipeline, before the second
        #expect(first(at: 1) == "b")
        #expect(first(at: 3) == "a")
        chain.finished(openedBy: "c", at: 1)
        #expect(first(at: 2) == "c")
        #expect(first(at: 3) == "a")
        // A file opened alone after them (everything before it done): after every place seen.
        chain.finished(openedBy: "b")
        #expect(first(at: 4) == "b")
        // Without a place (--jobs 1, a file opened alone): the latest winner.
        #expect(first(at: nil) == "b")
    }
}
