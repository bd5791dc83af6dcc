// The two names of RNCryptor Swift that its own tests (Upstream/) reach through `@testable
// import RNCryptor` although they are not public API: `V3`, an internal alias of the public
// `RNCryptor.FormatV3`, and `FormatV3.formatVersion`, the constant 3. They are restated here,
// in the test target and not in RNCryptorCompat, so that the vendored tests compile with only
// their import line changed and still call nothing but RNCryptorCompat's public API.
// What is left out, and why: Upstream/README.md.
import RNCryptorCompat

typealias V3 = RNCryptor.FormatV3

extension RNCryptor.FormatV3 {
    static let formatVersion = UInt8(3)
}
