// fuzz-line: an input file of lines, as `rwsecret decrypt FILE` reads it, through the base64
// reader, the header parser and the password chain (PBKDF2 at `fuzzIterations`).
//
// Each line is trimmed, skipped when blank or `#`, decoded as lenient base64, parsed as a
// message, then opened as the command does: password-based messages by the chain
// (PasswordClient over a memory store plus run-only passwords; one client for the whole
// input, so the password that opened a line goes first for the next), key-based ones with
// the key pair. Checked, beyond "no crash, no leak, no overflow":
// - base64: what the reader accepts re-encodes and decodes to the same bytes;
// - the chain decides exactly as an independent oracle does: the incremental engine (`DecryptorEngine`)
//   tried with each candidate in the chain's order; the first whose HMAC matches decides
//   (plaintext, or bad padding), otherwise "no password opened it (tried N)";
// - the chain's order afterwards: the password that opened the line is first;
// - key-based messages: the chain's one-shot path and the streaming decryptor agree.
import RWSecretKit

private let stored = [StoredPassword(label: "alpha", secret: SecretBytes(utf8: "not the password")),
                      StoredPassword(label: "fuzz", secret: SecretBytes(utf8: FuzzSecrets.password))]
/// Run-only passwords: the vectors' passwords, and a duplicate of a stored one (dropped by the client).
private let runOnly = FuzzSecrets.vectorPasswords.enumerated().map { ChainPassword(name: "run:\($0.offset)", secret: SecretBytes(utf8: $0.element)) }
    + [ChainPassword(name: "duplicate", secret: SecretBytes(utf8: FuzzSecrets.password))]

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    fuzzInitialize()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    let store = MemoryPasswordStore(stored)
    let client = PasswordClient(runOnly: runOnly, legacyFormats: .allowed) { store }
    for line in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        check(line, client: client)
    }
    return 0
}

private func check(_ line: ArraySlice<UInt8>, client: PasswordClient) {
    // As `rwsecret decrypt` parses a line (Sources/rwsecret/Decrypting/DecryptSession.swift, parse(_:)).
    let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    guard let first = line.firstIndex(where: { !isBlank($0) }) else { Outcomes.record("blank"); return }
    let text = line[first...line.lastIndex(where: { !isBlank($0) })!]
    if text.first == UInt8(ascii: "#") { Outcomes.record("comment"); return }
    guard let raw = Base64.decodeLenient(text) else { Outcomes.record("bad base64"); return }
    let again = Base64.encode(raw)
    require(Base64.decodeLenient(Array(again.utf8)) == raw, "base64 re-encoding changed the bytes")
    let message: Message
    switch Result(catching: { () throws(RNCryptorError) in try Message(raw) }) {
    case .success(let parsed): message = parsed
    case .failure(let error): Outcomes.record("format " + Outcome.failure(error).caseName); return
    }

    if !message.header.isPasswordBased {
        let chain = Result { () throws(RNCryptorError) in try message.decrypt(keys: FuzzSecrets.keys, legacyFormats: .allowed) }
        let oracle = streamed(raw, .keys(FuzzSecrets.keys))
        require(agreeExactly(chain, oracle), "key-based: one-shot \(chain.summary), streaming \(oracle.summary)")
        Outcomes.record("keys \(chain.caseName)")
        return
    }

    guard let head = try? client.chainHead() else { require(false, "the memory store failed"); return }
    let candidates = head.chainPasswords()
    require(candidates.count == stored.count + runOnly.count - 1, "the duplicate run-only password was not dropped (\(candidates.count) candidates)")

    // The oracle: each candidate in order, through the streaming decryptor.
    var expected: Result<(name: String, plaintext: [UInt8]), DecryptionFailure> = .failure(.noPasswordOpened(tried: candidates.count))
    for candidate in candidates {
        switch streamed(raw, .password(candidate.secret)) {
        case .success(let plaintext): expected = .success((candidate.name, plaintext))
        case .failure(.hmacMismatch): continue
        case .failure(.badPadding): expected = .failure(.badPadding)
        case .failure(let error): require(false, "streaming says \(error) for a message Message(_:) accepted")
        }
        break
    }

    // On one thread: with `parallelism` > 1 libdispatch's workers derive keys, and their
    // allocations outlive the input, which makes libFuzzer run a full leak check after every
    // input (200 instead of 1,500 inputs a second). Those threads are TSan's business (make
    // sanitize); the decision they feed is the same.
    let result = head.handle(message)
    switch result {
    case .success(let decrypted): Outcomes.record("chain opened by \(decrypted.openedBy.passwordName)")
    case .failure(let failure): Outcomes.record("chain: \(failure)")
    }
    switch (result, expected) {
    case (.success(let decrypted), .success(let want)):
        require(decrypted.openedBy.passwordName == want.name, "opened by \(decrypted.openedBy.passwordName), the oracle says \(want.name)")
        require(decrypted.plaintext == want.plaintext, "the chain's plaintext differs from the streaming decryptor's")
        client.messageFinished(openedBy: decrypted.openedBy)
        let reordered = (try? client.chainHead())?.chainPasswords() ?? []
        require(reordered.first?.name == want.name, "the password that opened the line is not first now")
    case (.failure(let got), .failure(let want)):
        require(got == want, "the chain says \(got), the oracle \(want)")
    default:
        require(false, "the chain says \(result), the oracle \(expected)")
    }
}

/// The streaming decryptor, fed the message in two uneven pieces.
private func streamed(_ message: [UInt8], _ credential: Credential) -> Outcome {
    let decryptor = credential.decryptor()
    do throws(RNCryptorError) {
        let cut = message.count / 3
        var plaintext = try decryptor.update(message[..<cut])
        plaintext += try decryptor.update(message[cut...])
        plaintext += try decryptor.finalize()
        return .success(plaintext)
    } catch {
        return .failure(error)
    }
}

private func agreeExactly(_ a: Outcome, _ b: Outcome) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)): x == y
    case (.failure(let x), .failure(let y)): x == y
    default: false
    }
}
