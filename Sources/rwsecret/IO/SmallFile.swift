import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Reads a small whole file (a key or password file); missing, unreadable or a
/// directory stops the run with 66, a read error with 74.
func readSmallFile(_ path: String, what: String, limit: Int = 16 << 20) throws(CommandFailure) -> [UInt8] {
    let file: InputFile
    do { file = try InputFile(path) } catch { throw CommandFailure(.noInput, "\(Output.escaped(path)): \(error)") }
    return try readToEnd(limit: limit, tooLarge: CommandFailure(.dataError, "\(Output.escaped(path)): \(what) is too large")) { buffer, count throws(CommandFailure) in
        do throws(Errno) { return try file.read(into: buffer, count: count) } catch {
            throw CommandFailure(error.meansMissingInput ? .noInput : .ioError, "\(Output.escaped(path)): \(error)")
        }
    }
}

/// Reads with `read` (fills at most `count` bytes at `buffer`, returns how many, 0 at the end)
/// to the end, into one buffer that holds what was read and nothing else: a password or key
/// file is never in a second buffer. The buffer starts at 4 KiB and doubles; each smaller one
/// is wiped before it is freed, as is the buffer when the read fails. More than `limit` bytes:
/// `tooLarge`. The caller wipes what it gets once it is done with it.
///
/// Before, a 64 KiB chunk, zeroed first, took each read and was copied onto the result: a
/// 7-byte password file cost 16 page faults (issue 36, row (a)), and neither the chunk nor the
/// copies left behind as the result grew were wiped.
func readToEnd(limit: Int, tooLarge: @autoclosure () -> CommandFailure,
               _ read: (UnsafeMutableRawPointer, Int) throws(CommandFailure) -> Int) throws(CommandFailure) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: min(4096, limit + 1))
    var count = 0
    do throws(CommandFailure) {
        while true {
            if count == bytes.count {
                guard count <= limit else { throw tooLarge() }
                var larger = [UInt8](repeating: 0, count: min(count * 2, limit + 1))
                larger.withUnsafeMutableBytes { to in bytes.withUnsafeBytes { to.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) } }
                SecretBytes.cleanse(&bytes)
                swap(&bytes, &larger)
            }
            var failure: CommandFailure?
            let n = bytes.withUnsafeMutableBytes { raw in
                do throws(CommandFailure) { return try read(raw.baseAddress! + count, raw.count - count) } catch { failure = error; return 0 }
            }
            if let failure { throw failure }
            if n == 0 { break }
            count += n
        }
    } catch {
        SecretBytes.cleanse(&bytes)
        throw error
    }
    // In place: the bytes after `count` never held anything.
    bytes.removeLast(bytes.count - count)
    return bytes
}
