import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Reads a small whole file (a key or password file); missing, unreadable or a
/// directory stops the run with 66, a read error with 74.
func readSmallFile(_ path: String, what: String, limit: Int = 16 << 20) throws -> [UInt8] {
    let file: InputFile
    do { file = try InputFile(path) } catch { throw CommandFailure(.noInput, "\(Output.escaped(path)): \(error)") }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n: Int
        do {
            n = try chunk.withUnsafeMutableBytes { raw in try file.read(into: raw.baseAddress!, count: raw.count) }
        } catch let error as Errno {
            throw CommandFailure(error.meansMissingInput ? .noInput : .ioError, "\(Output.escaped(path)): \(error)")
        }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
        guard bytes.count <= limit else { throw CommandFailure(.dataError, "\(Output.escaped(path)): \(what) is too large") }
    }
    return bytes
}
