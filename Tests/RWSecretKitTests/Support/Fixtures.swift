import Foundation

/// The project's own `Fixtures/` folder, found from this file's path.
enum Fixtures {
    static let directory: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Fixtures/generate_pypi_fixtures.py").path) {
                return dir.appendingPathComponent("Fixtures")
            }
            dir.deleteLastPathComponent()
        }
        fatalError("Fixtures/ not found above \(#filePath)")
    }()

    static func text(_ name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }
}
