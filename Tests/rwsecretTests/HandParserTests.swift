import ArgumentParser
import Testing
@testable import rwsecret

/// `decrypt`'s hand-written parser (DecryptArguments, the hot path) against ArgumentParser: the
/// same command for every vector it takes, nil (ArgumentParser parses) for every other.
@Suite("decrypt: the hand-written parser")
struct HandParserTests {
    /// Every property of a parsed `decrypt`, the root's options included, as one line.
    static func properties(_ command: RWSecret.Decrypt) -> String {
        let g = command.global, r = command.root.global
        return [
            "store=\(g.store ?? "nil") vault=\(g.vault ?? "nil") verbose=\(g.verbose) quiet=\(g.quiet)",
            "root: store=\(r.store ?? "nil") vault=\(r.vault ?? "nil") verbose=\(r.verbose) quiet=\(r.quiet)",
            "files=\(command.files) json=\(command.json) binary=\(command.binary) output=\(command.output ?? "nil")",
            "keyFile=\(command.keyFile ?? "nil") identity=\(command.identity) signerKey=\(command.signerKey) iterations=\(command.iterations)",
            "passwordFile=\(command.passwordFile) askPassword=\(command.askPassword) passwordLabel=\(command.passwordLabel)",
            "noStore=\(command.noStore) passwordFd=\(command.passwordFd) jobs=\(command.jobs.map(String.init) ?? "nil")",
            "memory=\(command.memory ?? "nil") maxKdfCost=\(command.maxKdfCost ?? "nil") allowLegacy=\(command.allowLegacy)",
            "idColumn=\(command.idColumn) inBand=\(command.inBand)",
        ].joined(separator: "; ")
    }

    /// The properties `properties` reads: a property added to `Decrypt` (or GlobalOptions) that the
    /// hand parser does not set would trap when read, so this list must grow with it.
    static let decryptProperties = ["_global", "_root", "_files", "_json", "_binary", "_output", "_keyFile", "_identity", "_signerKey", "_iterations",
                                    "_passwordFile", "_askPassword", "_passwordLabel", "_noStore", "_passwordFd", "_jobs", "_memory",
                                    "_maxKdfCost", "_allowLegacy", "_idColumn", "_inBand"]
    static let globalProperties = ["_store", "_vault", "_verbose", "_quiet"]

    @Test("decrypt and GlobalOptions have exactly the properties the hand parser sets")
    func everyPropertySet() {
        #expect(Mirror(reflecting: RWSecret.Decrypt()).children.map { $0.label ?? "?" } == Self.decryptProperties,
                "a new decrypt option: set it in DecryptArguments.parse, and add it here and to properties(_:)")
        #expect(Mirror(reflecting: GlobalOptions()).children.map { $0.label ?? "?" } == Self.globalProperties)
        #expect(Mirror(reflecting: RWSecret()).children.map { $0.label ?? "?" } == ["_global"])
    }

    /// Vectors the hand parser takes: the command must be ArgumentParser's, property for property.
    static let taken: [[String]] = [
        ["decrypt"],
        ["decrypt", "msgs.txt"],
        ["decrypt", "-"],
        ["decrypt", "a", "b", "-", "c d"],
        ["decrypt", "--no-store", "--password-file", "pw", "msg"],
        ["decrypt", "--password-file=pw", "--password-file", "pw2", "--password-fd", "3", "--password-fd=4", "m"],
        ["decrypt", "--store", "file", "--vault", "/tmp/v", "--verbose", "f"],
        ["decrypt", "--store=keyring", "--quiet", "--password-label", "a", "--password-label=b"],
        ["decrypt", "--json", "--jobs", "4", "--iterations", "1000", "in.txt"],
        ["decrypt", "--jobs=1", "--iterations=10000"],
        ["decrypt", "--binary", "-o", "out.bin", "in.bin"],
        ["decrypt", "-o", "out", "file.age", "--identity", "id.txt", "--identity=id2.txt"],
        ["decrypt", "--signer-key", "alice.asc", "--identity", "me.asc", "--signer-key=bob.gpg", "m.gpg"],
        ["decrypt", "--key-file", "k", "--allow-legacy", "--ask-password"],
        ["decrypt", "--in-band", "--id-column", "--memory", "512M", "--max-kdf-cost=64G"],
        ["decrypt", "--key-file=k", "x", "--no-store", "y"],
        ["decrypt", "--iterations", "+5", "--jobs", "007"],
        ["decrypt", "--vault=v", "--store", "auto", "--verbose", "--in-band"],
    ]

    @Test("the hand parser makes ArgumentParser's command", arguments: taken)
    func sameAsArgumentParser(_ arguments: [String]) throws {
        let hand = try #require(DecryptArguments.parse(arguments), "the hand parser refused \(arguments)")
        let parsed = try RWSecret.parseAsRoot(arguments)
        let full = try #require(parsed as? RWSecret.Decrypt)
        #expect(Self.properties(hand) == Self.properties(full), "\(arguments)")
    }

    /// Vectors it leaves to ArgumentParser: help, completion, errors, spellings it does not read.
    static let left: [[String]] = [
        ["encrypt"], [], ["decrypt", "--help"], ["decrypt", "-h"], ["decrypt", "help"], ["decrypt", "--version"],
        ["decrypt", "--generate-completion-script", "bash"], ["decrypt", "--bogus"], ["decrypt", "-x"],
        ["decrypt", "--json", "--json"], ["decrypt", "--jobs", "1", "--jobs", "2"], ["decrypt", "--jobs", "-1"],
        ["decrypt", "--jobs", "0"], ["decrypt", "--jobs=x"], ["decrypt", "--iterations", "0"], ["decrypt", "--store", "bogus"],
        ["decrypt", "--json", "--binary"], ["decrypt", "--no-store", "--store", "file"], ["decrypt", "-o"],
        ["decrypt", "-o", "-"], ["decrypt", "-oout"], ["decrypt", "--", "-f"], ["decrypt", "--verbose=yes"],
        ["decrypt", "--store="], ["decrypt", "--password-fd", "1"], ["decrypt", "--password-fd", "x"],
        ["decrypt", "--memory", "lots"], ["decrypt", "--quiet", "--verbose"], ["decrypt", "-o", "o", "a", "b"],
        ["decrypt", "--password-file"], ["decrypt", "--password-file", "--json"],
    ]

    @Test("anything else is ArgumentParser's to parse", arguments: left)
    func leftToArgumentParser(_ arguments: [String]) {
        #expect(DecryptArguments.parse(arguments) == nil, "\(arguments)")
    }

    /// CommandWords.check lets a vector that names a leaf command first pass at once (the hot
    /// path's shortcut): that is only the loop's own answer when the name is a leaf.
    @Test("a leaf named first leaves the command words nothing to check")
    func leafNamedFirst() throws {
        for name in CommandWords.leafNamedFirst {
            let command = try #require(RWSecret.configuration.subcommands.first { $0._commandName == name }, "\(name)")
            #expect(command.configuration.subcommands.isEmpty, "\(name) has subcommands")
            #expect(CommandWords.check([name, "--jobs", "2", "FILE"]) == nil)
        }
        #expect(CommandWords.check(["decrpyt", "FILE"])?.message.contains("did you mean 'decrypt'") == true)
        #expect(CommandWords.check(["--jobs", "2", "decrypt"]) != nil)
    }
}
