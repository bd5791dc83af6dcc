// fuzz-openpgp: the OpenPGP kind (Sources/RWSecretKit/Kinds/OpenPGP): armor, packet framing
// (old and new headers, partial lengths), SKESK and S2K parsing, the quick check, SEIPD v1
// decryption and its MDC, then the literal, compressed (ZIP, ZLIB, BZip2) and signature packets
// inside.
//
// The input is a whole message, tried with the password "fuzz" (Fuzz/corpus/openpgp holds gpg -c
// messages made with it, --s2k-count 65536). Checked, beyond "no crash, no leak, no overflow,
// no hang": an input that opens has passed its MDC (the sink is written as the body is
// decrypted, and emptied when the MDC or anything else fails: after an error it holds nothing),
// and nothing opens a message whose session key packets are all refused. A message whose
// derivations cost more than 1 MiB of work (OpenPGPKind.checkCost) is not derived.
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

private let password = RWSecretKit.Credential.password(SecretBytes(utf8: FuzzSecrets.password))

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    fuzzInitialize()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenPGP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    _ = OpenPGPKind.detect(input.prefix(detectionLength)[...])
    let kindInput = KindInput(bytes: input)
    let header: OpenPGPKind.Header
    do { header = try OpenPGPKind.parseHeader(kindInput) } catch {
        Outcomes.record("header: \(error.testKitClass)")
        return 0
    }
    // At most 1 MiB of derivation (an iterated count of 2^20, or Argon2's passes × memory).
    do { try OpenPGPKind.checkCost(header, budget: TryBudget(jobs: 1, memory: 0, kdfWork: 1 << 20)) } catch {
        Outcomes.record("costly S2K")
        return 0
    }
    let sink = MemoryPlaintext(limit: 1 << 24)
    do {
        guard case .unlocked(let key) = try OpenPGPKind.unlock(header, with: password) else {
            Outcomes.record("wrong password")
            return 0
        }
        try OpenPGPKind.decryptBody(header, key: key, from: kindInput, into: sink)
        require(OpenPGPKind.literal(header) != nil, "opened without a literal data packet")
        Outcomes.record("opened")
    } catch {
        require(sink.bytes.isEmpty, "\(sink.bytes.count) bytes left in the sink after an error")
        Outcomes.record("body: \(error.testKitClass)")
    }
    return 0
}
