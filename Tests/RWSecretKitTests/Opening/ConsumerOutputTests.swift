import Foundation
import RWSecretKit
import SystemPackage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 33, item 4: what the tool needs to write plaintext files and describe results is
/// public API, so the tool (and any program) does it without `package` access: a private
/// file (`PrivateFile`: no name until complete, mode 0600), an opened OpenPGP message's
/// literal data (`Decrypted.literal`, `LiteralData`, `OpenPGPSignature`) and the memory
/// budget (`ProcessMemory`). The calls are `ConsumerOutput`'s, which typechecks as a
/// consumer's file. Before, each was `package`: the tool's files failed `make thin-check`.
@Suite("The tool's output on public API: private files, literal data, the memory budget")
struct ConsumerOutputTests {
    @Test("ConsumerOutput.swift typechecks as a consumer's file: PrivateFile, LiteralData, OpenPGPSignature and ProcessMemory are public API")
    func consumerFileIsPublic() throws {
        let errors = try PublicAPITests.typecheckFile("ConsumerOutput.swift", besideTest: #filePath)
        #expect(errors.isEmpty, "\(errors)")
    }

    static func folderEntries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test("a private file has no name until it is complete, then has the destination's name, mode 0600 and every byte")
    func privateFileNamedWhenComplete() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rwsecret-private-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/plain.txt"
        let chunks = [Array("first part\n".utf8), Array(repeating: UInt8(ascii: "x"), count: 1 << 20), Array("end\n".utf8)]
        guard ConsumerOutput.canWritePrivately(in: FilePath(folder)) else {
            // No O_TMPFILE here: refused before anything is written, and nothing is left.
            #expect(throws: Errno.notSupported) { _ = try ConsumerOutput.writePrivately(chunks, to: FilePath(path)) }
            #expect(try Self.folderEntries(folder) == [])
            return
        }
        var entriesBeforeLink: [String]?
        let size = try ConsumerOutput.writePrivately(chunks, to: FilePath(path)) { entriesBeforeLink = try? Self.folderEntries(folder) }
        #expect(entriesBeforeLink == [], "a name existed before the file was complete")
        #expect(size == chunks.map(\.count).reduce(0, +))
        #expect(try Self.folderEntries(folder) == ["plain.txt"])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == chunks.flatMap { $0 })
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        // Linked again over an existing file: replaced whole, still no other name left behind.
        _ = try ConsumerOutput.writePrivately([Array("second\n".utf8)], to: FilePath(path))
        #expect(try Self.folderEntries(folder) == ["plain.txt"])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == Array("second\n".utf8))
    }

    @Test("a spooled private file that never gets a name moves its bytes to a descriptor (a pipe)")
    func spoolMovesToADescriptor() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let bytes = Array("spooled plaintext\n".utf8)
        try ConsumerOutput.spool(bytes, to: FileDescriptor(rawValue: fds[1]), in: FilePath(NSTemporaryDirectory()))
        close(fds[1])
        var read = [UInt8](repeating: 0, count: 64)
        let n = Glibc.read(fds[0], &read, read.count)
        #expect(Array(read.prefix(max(0, n))) == bytes)
    }

    @Test("an opened OpenPGP message says its literal data packet's name, date and format; other kinds have none")
    func literalDataOfAnOpenedMessage() throws {
        let message = try OpenPGPBuilder.message(password: Array("pw".utf8), plaintext: Array("hello\n".utf8))
        let opened = try MessageOpener(passwords: [ChainPassword(name: "p", secret: SecretBytes(utf8: "pw"))]).open(message)
        #expect(opened.plaintext == Array("hello\n".utf8))
        #expect(opened.literal?.name == Array("data".utf8))
        #expect(opened.literal?.format == UInt8(ascii: "b"))
        #expect(opened.literal?.signatures == [])
        #expect(ConsumerOutput.describe(opened) == "kind openpgp; name data; no date; format b")
        let rncryptor = RNCryptor.encrypt(Array("rn".utf8), password: SecretBytes(utf8: "pw"))
        let other = try MessageOpener(passwords: [ChainPassword(name: "p", secret: SecretBytes(utf8: "pw"))]).open(rncryptor)
        #expect(other.literal == nil)
        #expect(ConsumerOutput.describe(other) == "kind rncryptor")
    }

    @Test("sizes as users write them: binary units, an optional B or iB; nothing else", arguments: [
        ("512M", 512 << 20), ("4G", 4 << 30), ("1.5G", 3 << 29), ("300MiB", 300 << 20), ("65536K", 64 << 20), ("2147483648", 1 << 31),
        ("1kB", 1024), ("1kb", nil), ("0", nil), ("", nil), ("M", nil), ("1.2.3G", nil), ("4X", nil), ("iB", nil), ("5iB", nil), ("2048P", nil), ("-1G", nil),
    ] as [(String, Int?)])
    func sizes(_ text: String, _ expected: Int?) {
        #expect(ProcessMemory.parseSize(text) == expected, "\(text)")
        if expected == nil { #expect(!ConsumerOutput.limitMemory(text)) }
    }
}
