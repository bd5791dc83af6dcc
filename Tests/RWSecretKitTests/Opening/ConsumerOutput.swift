import RWSecretKit
import SystemPackage

// A consumer's code, written against the public API alone: `ConsumerOutputTests` runs it, and
// typechecks this very file as a program that depends on RWSecretKit does (no `package`
// symbols, no `@testable`). What the tool does with plaintext files, a result's description
// and the memory budget (issue 33, item 4), a program can do the same way.

/// What a program does with a plaintext file, an opened OpenPGP message and the memory budget.
enum ConsumerOutput {
    /// Writes `chunks` to `path` as the tool's `-o` does: in a file with no name (mode 0600)
    /// that gets `path` only once complete; `beforeLink` runs when every chunk is written.
    /// Fails with EOPNOTSUPP, before anything is written, where the folder's filesystem cannot
    /// make unnamed files. Returns the bytes written.
    static func writePrivately(_ chunks: [[UInt8]], to path: FilePath, beforeLink: () -> Void = {}) throws(Errno) -> Int {
        let file = try PrivateFile(in: path.removingLastComponent(), needsName: true, namedFallback: false)
        for chunk in chunks { try file.write(chunk) }
        try file.sync()
        beforeLink()
        try file.link(as: path)
        return file.size
    }

    /// Whether `folder` can hold plaintext with no name until it is complete.
    static func canWritePrivately(in folder: FilePath) -> Bool { PrivateFile.canBeUnnamed(in: folder) }

    /// Spools `bytes` to an unnamed file that never gets a name, then moves them to `output`.
    static func spool(_ bytes: [UInt8], to output: FileDescriptor, in folder: FilePath) throws(Errno) {
        let file = try PrivateFile(in: folder, needsName: false)
        try file.write(bytes)
        try file.move(to: output)
    }

    /// An opened message described as the tool's `--json` record describes it: its kind, and
    /// an OpenPGP message's file name, date, format and who signed it.
    static func describe(_ opened: Decrypted) -> String {
        var words = ["kind \(opened.kind)"]
        if let literal = opened.literal {
            words.append("name \(String(decoding: literal.name, as: UTF8.self))")
            words.append(literal.date == 0 ? "no date" : "date \(literal.date)")
            words.append("format \(Character(Unicode.Scalar(literal.format)))")
            for signature in literal.signatures {
                switch signature.outcome {
                case .verified: words.append("signed by \(signature.issuer), verified")
                case .bad: words.append("signed by \(signature.issuer), BAD")
                case .unknownKey: words.append("signed by \(signature.issuer), not verified")
                case .unchecked(let why): words.append("signed by \(signature.issuer), not verified (\(why))")
                }
            }
            if !literal.signers.isEmpty { words.append("signers \(literal.signers.joined(separator: " "))") }
        }
        return words.joined(separator: "; ")
    }

    /// Sets the process's memory budget from a size as a user writes it (`512M`, `1.5G`);
    /// false when the text is no size.
    static func limitMemory(_ text: String) -> Bool {
        guard let bytes = ProcessMemory.parseSize(text) else { return false }
        ProcessMemory.limit(to: bytes)
        return true
    }
}
