import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The keyring suite points this process at its private bus while other tests run; the
/// environment array another thread may be walking must stay as it was.
struct PublishedEnvironmentTests {
    @Test("a new environment leaves the array a concurrent reader holds untouched")
    func publishingNeverChangesTheHeldArray() {
        let tag = "RWSECRET_TEST_PUBLISHED_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        var changed: [Int] = []
        for round in 0..<16 {
            let held = environ
            var count = 0
            while held[count] != nil { count += 1 }
            let before = Array(UnsafeBufferPointer(start: held, count: count + 1))
            // A new name each round: what made glibc's setenv grow (and free) the array.
            PrivateKeyring.publishEnvironment(setting: ["\(tag)_\(round)": "value \(round)"])
            if Array(UnsafeBufferPointer(start: held, count: count + 1)) != before { changed.append(round) }
            #expect(getenv("\(tag)_\(round)").map { String(cString: $0) } == "value \(round)")
        }
        #expect(changed.isEmpty, "the array a reader held changed in rounds \(changed)")
        PrivateKeyring.publishEnvironment(setting: [:], removing: Set((0..<16).map { "\(tag)_\($0)" }))
        #expect(getenv("\(tag)_0") == nil)
        #expect(getenv("PATH") != nil)
    }
}
