import Dispatch
import RWSecretKit
import Testing

/// Issue 33 item 4: what the tool's age encryption and decrypt pipeline do, through the library's
/// public API alone (`Age.Writer`, `Age.Recipient.parseFile`, `OrderedPipeline`).
@Suite("the tool's orchestration through the public API")
struct PublicOrchestrationTests {
    @Test("Age.Writer streams a file in pieces of any size that opens whole, to a recipient and under a passphrase")
    func ageWriterStreams() throws {
        let plaintext = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let (identity, _, recipient) = Age.Identity.generate(name: "fresh")
        for armor in [false, true] {
            let writer = try Age.Writer(to: [recipient], armor: armor)
            var file: [UInt8] = []
            var offset = 0
            for size in [1, 7, 65_536, 65_535, 3, 100_000] where offset < plaintext.count {
                let end = min(plaintext.count, offset + size)
                file += writer.update(plaintext[offset..<end])
                offset = end
            }
            file += writer.update(plaintext[offset...])
            file += writer.finalize()
            #expect(try MessageOpener(passwords: [], identities: [identity]).open(file).plaintext == plaintext)
        }
        let writer = Age.Writer(passphrase: SecretBytes(utf8: "pw"), workFactor: 10)
        let file = writer.update(plaintext.prefix(10)) + writer.update(plaintext.dropFirst(10)) + writer.finalize()
        let opened = try MessageOpener(passwords: [ChainPassword(name: "p", secret: SecretBytes(utf8: "pw"))]).open(file)
        #expect(opened.plaintext == plaintext)
        #expect(throws: Age.KeyError.self) { try Age.Writer(to: []) }
    }

    @Test("Age.Recipient.parseFile: recipients in order, unsupported SSH key types skipped with their line, errors name the line")
    func recipientsFile() throws {
        let (_, _, first) = Age.Identity.generate(name: "a")
        let (_, _, second) = Age.Identity.generate(name: "b")
        var skipped: [(line: Int, type: String)] = []
        let text = "# team\n\(first)\necdsa-sha2-nistp256 AAAAE2VjZHNh x@y\n\n\(second)\n"
        let parsed = try Age.Recipient.parseFile(text, skipped: &skipped)
        #expect(parsed.map(\.description) == [first.description, second.description])
        #expect(skipped.map(\.line) == [3] && skipped.map(\.type) == ["ecdsa-sha2-nistp256"])
        #expect(throws: Age.KeyError.self) { try Age.Recipient.parseFile("\(first)\nnot a recipient\n", skipped: &skipped) }
        do { _ = try Age.Recipient.parseFile("# none\n", skipped: &skipped) } catch { #expect(error.code == .empty) }
    }

    @Test("OrderedPipeline delivers every result once, in submission order, at 1 and at 4 threads")
    func pipelineOrder() {
        for jobs in [1, 4] {
            final class Delivered: @unchecked Sendable { var values: [Int] = [] }
            let delivered = Delivered()
            let pipeline = OrderedPipeline<Int>(jobs: jobs, stretches: true) { delivered.values.append($0) }
            for item in 0..<500 {
                if item % 50 == 0 {
                    pipeline.submit(result: -item)
                } else {
                    pipeline.submit({ _, sequence in
                        // Later items finish first now and then: delivery still waits for order.
                        if sequence % 7 == 0 { for _ in 0..<20_000 { _ = DispatchTime.now() } }
                        return item
                    })
                }
            }
            pipeline.drain()
            #expect(pipeline.synchronized { delivered.values } == (0..<500).map { $0 % 50 == 0 ? -$0 : $0 })
        }
    }
}
