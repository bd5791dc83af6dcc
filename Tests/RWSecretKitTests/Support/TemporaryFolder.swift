import Foundation

/// A fresh folder under /tmp (mode 0700, from mkdtemp), removed when released.
/// Shared by both test targets (Tests/rwsecretTests/Support links to this file).
final class TemporaryFolder {
    let path: String
    /// The same folder as a URL.
    var url: URL { URL(fileURLWithPath: path) }

    init() {
        var template = Array("/tmp/rwsecret-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "cannot create a temporary folder")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `contents` to the file `name` in this folder; returns its path.
    func file(_ name: String, _ contents: String) -> String { file(name, bytes: Array(contents.utf8)) }

    /// Writes `bytes` to the file `name` in this folder (mode 0600, as a password or key file
    /// should be: a looser one draws rwsecret's warning); returns its path.
    func file(_ name: String, bytes: [UInt8]) -> String {
        let path = self.path + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        return path
    }

    /// The permission bits of `path` (e.g. 0o600), or nil when it does not exist.
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o7777)
    }
}
