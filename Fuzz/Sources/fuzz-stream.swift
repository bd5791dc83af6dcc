// fuzz-stream: every decryption engine must agree with the one-shot `RNCryptor.decrypt` on
// every input, whatever the chunk sizes the input is fed in.
//
// Input: byte 0 picks the credential (`credentials`), bytes 1 and 2 seed the chunk sizes
// (`ChunkPlan`), the rest is the message. Seeds: Fuzz/corpus/stream (Fuzz/make_seeds.py).
//
// Agreement: the same plaintext, or the same error; except that an engine that learns the
// credential kind from the header before it knows the length may say keyBasedMessage /
// passwordBasedMessage where one-shot says tooShort / badLength (the rule the unit tests
// use, Tests/RWSecretKitTests/Support/FormatTesting.swift, Expected.agree).
// Also checked: a streaming engine hands out, before its final check, no more plaintext than
// ciphertext it was fed, and when it succeeds, what it handed out early is a prefix of the
// final plaintext.
//
// To fuzz another engine (the streaming decryptor that takes a chain and an input), write a
// type conforming to `Engine` and append it to `engines`.
import RWSecretKit

/// One way to decrypt a whole message given a credential; `plan` cuts the input into the
/// pieces a streaming engine is fed.
protocol Engine: Sendable {
    var name: String { get }
    func decrypt(_ message: [UInt8], _ credential: Credential, _ plan: ChunkPlan) -> Outcome
}

/// The reference: `RNCryptor.decrypt` on the whole message (verifies the HMAC first).
struct OneShot: Engine {
    let name = "one-shot RNCryptor.decrypt"
    func decrypt(_ message: [UInt8], _ credential: Credential, _ plan: ChunkPlan) -> Outcome {
        Result { () throws(RNCryptorError) -> [UInt8] in
            if let password = credential.password { try RNCryptor.decrypt(message, password: password, legacyFormats: .allowed) }
            else { try RNCryptor.decrypt(message, keys: credential.keys!, legacyFormats: .allowed) }
        }
    }
}

/// `DecryptorEngine` (the engine under `Decryptor`) fed the chunks; its unverified output is held back until `finalize()`.
struct Incremental: Engine {
    let name = "incremental Decryptor"
    func decrypt(_ message: [UInt8], _ credential: Credential, _ plan: ChunkPlan) -> Outcome {
        let decryptor = credential.decryptor()
        var unverified: [UInt8] = []
        var fed = 0
        do throws(RNCryptorError) {
            for chunk in plan.chunks(of: message) {
                unverified += try decryptor.update(chunk)
                fed += chunk.count
                // The header (18 bytes or more) and the last 32 bytes (maybe the HMAC) are never plaintext.
                require(unverified.count <= max(0, fed - 18 - 32), "\(name) handed out \(unverified.count) bytes after \(fed) fed")
            }
            let last = try decryptor.finalize()
            return .success(unverified + last)
        } catch {
            return .failure(error)
        }
    }
}

/// The engines compared; the first is the reference.
let engines: [any Engine] = [OneShot(), Incremental()]

/// Credentials byte 0 of the input chooses from. Passwords derive keys at `fuzzIterations`.
let credentials: [Credential] = {
    var list: [Credential] = [.password(SecretBytes(utf8: FuzzSecrets.password)), .keys(FuzzSecrets.keys)]
    list += FuzzSecrets.vectorPasswords.map { .password(SecretBytes(utf8: $0)) }
    // The key pairs of the official v3/key vectors (their messages are seeds as they are).
    func pair(_ encryption: String, _ hmac: String) -> Credential {
        .keys(try! MessageKeys(encryptionKey: SecretBytes(Hex.decode(encryption)), hmacKey: SecretBytes(Hex.decode(hmac))))
    }
    list.append(pair(String(repeating: "00", count: 32), String(repeating: "00", count: 32)))
    list.append(pair("000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f",
                     "0102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f00"))
    list.append(pair("0102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f00",
                     "02030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f0001"))
    list.append(pair("02030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f0001",
                     "030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f000102"))
    return list
}()

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    fuzzInitialize()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard input.count >= 3 else { return 0 }
    let credential = credentials[Int(input[0]) % credentials.count]
    let plan = ChunkPlan(seed: input[1], mode: input[2])
    let message = Array(input[3...])

    let reference = engines[0].decrypt(message, credential, plan)
    Outcomes.record((credential.password != nil ? "password " : "keys ") + reference.caseName)
    // Structure first: what Message(_:) rejects, one-shot rejects with the same error.
    if case .failure(let error) = Result(catching: { () throws(RNCryptorError) in try Message(message) }) {
        require(reference == .failure(error), "Message(_:) threw \(error), one-shot \(reference.summary)")
    }
    for engine in engines.dropFirst() {
        let outcome = engine.decrypt(message, credential, plan)
        require(reference.agrees(withIncremental: outcome), "\(engines[0].name): \(reference.summary); \(engine.name): \(outcome.summary)")
    }
    return 0
}
