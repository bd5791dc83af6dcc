import Foundation
import Testing

/// The official vectors ship inside the project (`Fixtures/rncryptor-spec-vectors`),
/// so a clone tests them with nothing beside it.
@Suite("the official vectors shipped in Fixtures/")
struct ShippedVectorsTests {
    /// Not skipped when missing: a clone without them would test less and still pass.
    @Test("the vectors are in the project", arguments: TestVectors.files)
    func shipped(_ name: String) throws {
        let directory = try #require(TestVectors.directory, "\(TestVectors.missingReason)")
        #expect(!TestVectors.load(name).isEmpty, "\(directory.path)/\(name) has no records")
    }

    /// Checks the copy has not drifted from the folder it was taken from, when that is here.
    @Test("the shipped copy equals ../shared/rncryptor-spec-vectors",
          .enabled(if: TestVectors.sharedDirectory != nil, "../shared/rncryptor-spec-vectors is not beside the project (nothing to compare with)"),
          arguments: TestVectors.files)
    func sameAsShared(_ name: String) throws {
        let shipped = try #require(TestVectors.directory).appendingPathComponent(name)
        let shared = try #require(TestVectors.sharedDirectory).appendingPathComponent(name)
        #expect(try Data(contentsOf: shipped) == Data(contentsOf: shared), "\(name) differs from the shared copy")
    }
}
