import Foundation
import Testing

/// Fuzz/Makefile builds RWSecretKit with swiftc directly and mirrors Package.swift's module
/// layout by hand: every system library module the library imports needs its module map
/// there. Before, CLibSSH and CBotan were missing and `make -f Fuzz/Makefile build` failed with
/// `no such module 'CBotan'`; nothing said so until someone fuzzed.
@Suite("Fuzz/Makefile mirrors Package.swift")
struct FuzzMakefileTests {
    static let root = Fixtures.directory.deletingLastPathComponent()

    @Test("every system library target of Package.swift has its module map in Fuzz/Makefile's flags")
    func everySystemLibraryHasItsModuleMap() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let makefile = try String(contentsOf: Self.root.appendingPathComponent("Fuzz/Makefile"), encoding: .utf8)
        // `.systemLibrary(name: "X"` on one line, or `.systemLibrary(` then `name: "X",` on the next.
        let names = try Regex(#"\.systemLibrary\(\s*name:\s*"([A-Za-z0-9]+)""#)
        let found = manifest.matches(of: names).map { String($0.output[1].substring ?? "") }
        #expect(found.count >= 8, "\(found)")  // COpenSSL … CArgon2: a regex that finds none proves nothing
        for name in found {
            #expect(makefile.contains("-fmodule-map-file=Sources/\(name)/module.modulemap"), "Fuzz/Makefile lacks \(name)'s module map")
        }
    }
}
