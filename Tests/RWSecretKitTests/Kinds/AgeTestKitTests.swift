import COpenSSL
import CZlib
import Foundation
@testable import RWSecretKit
import Testing

/// One vector of the C2SP CCTV age test kit (Fixtures/age-testkit, vendored from
/// github.com/C2SP/CCTV age/testdata): `key: value` lines, an empty line, then the file.
struct AgeTestKitVector: CustomTestStringConvertible, Sendable {
    let name: String
    let expect: String
    let payloadSHA256: String?
    let identities: [String]
    let passphrases: [String]
    let armored: Bool
    let file: [UInt8]

    var testDescription: String { "age-testkit/\(name) (\(expect))" }

    /// Vectors that need an ML-KEM-768 + X25519 (post-quantum hybrid) identity: OpenSSL 3.0 has
    /// no ML-KEM, so rwsecret cannot unwrap their stanzas and sees a recipient that is not ours.
    var needsMLKEM: Bool { !identities.isEmpty && identities.allSatisfy { $0.hasPrefix("AGE-SECRET-KEY-PQ-1") } && passphrases.isEmpty }

    static let directory = Fixtures.directory.appendingPathComponent("age-testkit")

    static let all: [AgeTestKitVector] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0 != "LICENSE" && $0 != "README.md" }.sorted().map { load($0) }
    }()

    static func load(_ name: String) -> AgeTestKitVector {
        let data = Array(FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) ?? Data())
        var offset = 0
        var fields: [(String, String)] = []
        while let newline = data[offset...].firstIndex(of: 0x0a) {
            let line = String(decoding: data[offset..<newline], as: UTF8.self)
            offset = newline + 1
            if line.isEmpty { break }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            fields.append((parts[0], parts.count > 1 ? parts[1] : ""))
        }
        func values(_ key: String) -> [String] { fields.filter { $0.0 == key }.map(\.1) }
        var file = Array(data[offset...])
        if values("compressed").first == "zlib" { file = inflate(file) }
        return AgeTestKitVector(name: name, expect: values("expect").first ?? "?", payloadSHA256: values("payload").first,
                                identities: values("identity"), passphrases: values("passphrase"),
                                armored: values("armored").first == "yes", file: file)
    }

    static func inflate(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        precondition(inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var input = input
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var status = Z_OK
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output += chunk[0..<(chunk.count - Int(stream.avail_out))]
            } while status == Z_OK
        }
        precondition(status == Z_STREAM_END, "zlib stream did not end")
        return output
    }

    /// What rwsecret makes of the vector: its outcome in the kit's words, and what it released.
    func run() -> (outcome: String, released: [UInt8]) {
        var credentials: [RWSecretKit.Credential] = passphrases.map { .password(SecretBytes(utf8: $0)) }
        for identity in identities where !identity.hasPrefix("AGE-SECRET-KEY-PQ-1") {
            guard let parsed = AgeX25519Identity(identity) else { return ("bad identity in vector", []) }
            credentials.append(.ageX25519(parsed))
        }
        // Recognised by content: the armor is found only where it begins the file (after whitespace).
        let prefix = ArraySlice(file.prefix(detectionLength))
        if armored && !AgeArmorSource.detect(prefix) { return ("armor failure", []) }
        guard AgeKind.detect(prefix) || file.isEmpty || expect == "header failure" else { return ("not detected", []) }
        let sink = MemoryPlaintext()
        do {
            _ = try AgeKind.decrypt(KindInput(bytes: file), credentials: credentials, into: sink)
            return ("success", sink.bytes)
        } catch {
            return (error.testKitClass, [])
        }
    }
}

func sha256Hex(_ bytes: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
    return Hex.encode(digest)
}

@Suite("The C2SP CCTV age test kit")
struct AgeTestKitTests {
    @Test("the kit is vendored whole: 143 vectors, every outcome class")
    func coverage() {
        #expect(AgeTestKitVector.all.count == 143)
        #expect(Set(AgeTestKitVector.all.map(\.expect)) == ["success", "no match", "HMAC failure", "header failure", "payload failure", "armor failure"])
        #expect(AgeTestKitVector.all.filter(\.needsMLKEM).count == 18)
    }

    /// Every vector per its `expect` line; a success releases exactly the payload whose hash
    /// the vector gives, and every failure releases nothing at all (stricter than the kit asks:
    /// rwsecret releases nothing before the final chunk is verified).
    @Test("every vector gives the outcome its expect line names", arguments: AgeTestKitVector.all.filter { !$0.needsMLKEM })
    func vector(_ vector: AgeTestKitVector) {
        let (outcome, released) = vector.run()
        #expect(outcome == vector.expect, "\(vector.testDescription)")
        if outcome == "success", let hash = vector.payloadSHA256 {
            #expect(sha256Hex(released) == hash, "\(vector.testDescription)")
        } else {
            #expect(released.isEmpty, "\(vector.testDescription)")
        }
    }

    /// Without ML-KEM (not in OpenSSL 3.0) a hybrid stanza is a recipient that is not ours:
    /// rwsecret names its type and releases nothing, unless the kit itself expects a failure
    /// rwsecret finds first.
    @Test("vectors that need a post-quantum identity are a recipient that is not ours", arguments: AgeTestKitVector.all.filter(\.needsMLKEM))
    func hybrid(_ vector: AgeTestKitVector) {
        let (outcome, released) = vector.run()
        #expect(outcome == "no match" || outcome == vector.expect, "\(vector.testDescription): \(outcome)")
        #expect(released.isEmpty)
    }
}
