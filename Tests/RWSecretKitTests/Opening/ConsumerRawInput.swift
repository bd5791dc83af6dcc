import RWSecretKit
import SystemPackage

// A consumer's code, written against the public API alone: `RawInputTests` runs it, and
// typechecks this very file as a program that depends on RWSecretKit does (no `package`
// symbols, no `@testable`). What `rwsecret decrypt --binary` does with one raw input of any
// kind (issue 33, item 4), a program does the same way: the input's first bytes are read once
// and told by the library, which opens a raw RNCryptor message through its verified stream and
// hands back the whole message of another kind.

/// One raw input opened by a program, of any kind.
enum ConsumerRawInput {
    /// What came of it.
    struct Outcome {
        /// `rncryptor`, or the other kind's name (`age`, `ansibleVault`, `openPGP`).
        var kind = "rncryptor"
        /// The chain password that opened it.
        var openedBy: String?
        /// Another kind's plaintext (a raw RNCryptor message's went to the output).
        var plaintext: [UInt8]?
        /// Why it did not open.
        var failure: DecryptionFailure?
        /// What it holds instead of a raw RNCryptor message.
        var instead: Decryption.RawInput.Instead?
    }

    /// Opens `input` with `decryption`'s chain: a raw RNCryptor message into `output` (only once
    /// it verified), another kind's whole message into memory; `what` names it to the reporter.
    static func open(_ input: FileDescriptor, with decryption: Decryption, to output: FileDescriptor, askingAfter what: String? = nil) throws -> Outcome {
        let raw = try Decryption.RawInput(input)
        if raw.isOtherKind {
            guard let message = raw.wholeMessage else { return Outcome(kind: "unopenable", instead: .otherKind) }
            switch try decryption.open(message, identities: IdentityChain(files: []), memory: 64 << 20, askingAfter: what) {
            case .success(let opened): return Outcome(kind: "\(opened.kind)", openedBy: opened.openedBy.passwordName, plaintext: opened.plaintext)
            case .failure(let notOpened): return Outcome(kind: "\(message.kind)", failure: notOpened.failure)
            }
        }
        switch try decryption.open(raw, to: .descriptor(output), askingAfter: what) {
        case .success(let decrypted): return Outcome(openedBy: decrypted.openedBy.passwordName)
        case .failure(let notOpened): return Outcome(failure: notOpened.failure, instead: notOpened.instead)
        }
    }

    /// `open(_:with:to:askingAfter:)` in async code: no Swift concurrency thread waits through
    /// the key derivations, the store's first reading or the reporter's ask.
    static func openAsync(_ input: FileDescriptor, with decryption: Decryption, to output: FileDescriptor) async throws -> Outcome {
        let raw = try Decryption.RawInput(input)
        if let message = raw.wholeMessage {
            switch try await decryption.open(message, identities: IdentityChain(files: []), memory: 64 << 20) {
            case .success(let opened): return Outcome(kind: "\(opened.kind)", openedBy: opened.openedBy.passwordName, plaintext: opened.plaintext)
            case .failure(let notOpened): return Outcome(kind: "\(message.kind)", failure: notOpened.failure)
            }
        }
        switch try await decryption.open(raw, to: .descriptor(output)) {
        case .success(let decrypted): return Outcome(openedBy: decrypted.openedBy.passwordName)
        case .failure(let notOpened): return Outcome(failure: notOpened.failure, instead: notOpened.instead)
        }
    }
}
