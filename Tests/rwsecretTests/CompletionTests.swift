import Foundation
import Testing

/// The bash completion script, loaded in a real bash and asked what it completes (issue
/// 12, item 10): files for file arguments and options, the values of --store and
/// --require, and stored labels for `password remove` and `encrypt --password-label`.
@Suite("bash completion", .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash"), "needs bash"))
struct CompletionTests {
    init() { brokenPipesIgnored }
    let home = TemporaryFolder()

    /// What bash offers for `line` (completing its last word; a trailing space starts a new one).
    func complete(_ line: String, environment extra: [String: String] = [:]) throws -> [String] {
        let script = try RWSecretProcess.run(["--generate-completion-script", "bash"], environment: RWSecretProcess.environment(home: home.url))
        #expect(script.status == 0)
        let scriptPath = home.file("rwsecret.bash", script.out)
        let driver = """
            source "$1"
            COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            _rwsecret rwsecret "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var environment = RWSecretProcess.environment(home: home.url, extra: extra)
        // The script runs `rwsecret ---completion …` for labels: the built binary, first on PATH.
        environment["PATH"] = RWSecretProcess.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", driver, "bash", scriptPath, line]
        process.environment = environment
        process.currentDirectoryURL = home.url
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runCheckingDescriptors()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }

    @Test("--store and --require complete their values")
    func values() throws {
        #expect(try complete("rwsecret decrypt --store ") == ["auto", "file", "keyring"])
        #expect(try complete("rwsecret --store k") == ["keyring"])
        #expect(try complete("rwsecret password add --require ") == ["alpha", "alphanumeric", "numeric"])
        // Issue 27 item 15: it listed files.
        #expect(try complete("rwsecret password copy --to ") == ["file", "keyring"])
    }

    @Test("decrypt's options for other kinds complete: --identity a file, --memory sizes")
    func kindOptions() throws {
        _ = home.file("mine.key", "")
        #expect(try complete("rwsecret decrypt --mem") == ["--memory"])
        #expect(try complete("rwsecret decrypt --memory ") == ["1G", "2G", "4G", "512M", "8G"])
        #expect(try complete("rwsecret decrypt --ident") == ["--identity"])
        #expect(try complete("rwsecret decrypt --identity mi") == ["mine.key"])
    }

    @Test("file arguments and file options complete file names")
    func files() throws {
        _ = home.file("messages.txt", "")
        _ = home.file("mine.key", "")
        #expect(try complete("rwsecret decrypt me") == ["messages.txt"])
        #expect(try complete("rwsecret decrypt --password-file mi") == ["mine.key"])
        #expect(try complete("rwsecret decrypt --key-file mi") == ["mine.key"])
        #expect(try complete("rwsecret encrypt --binary -o mi") == ["mine.key"])
        #expect(try complete("rwsecret --vault me") == ["messages.txt"])
    }

    @Test("password remove and encrypt --password-label complete stored labels")
    func labels() throws {
        let passphrase = ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"]
        var environment = RWSecretProcess.environment(home: home.url, extra: passphrase)
        for (label, secret) in [("work", "secret one"), ("home", "secret two"), ("wiki", "secret three")] {
            #expect(try RWSecretProcess.run(["password", "add", label], stdin: Data(secret.utf8), environment: environment).status == 0)
        }
        #expect(try complete("rwsecret password remove ", environment: passphrase) == ["home", "wiki", "work"])
        #expect(try complete("rwsecret password remove w", environment: passphrase) == ["wiki", "work"])
        #expect(try complete("rwsecret password remove work w", environment: passphrase) == ["wiki"])
        #expect(try complete("rwsecret encrypt --password-label h", environment: passphrase) == ["home"])
        // Never a prompt: without the passphrase at hand, nothing.
        environment["RWSECRET_VAULT_PASSPHRASE"] = nil
        #expect(try complete("rwsecret password remove ") == [])
    }

    @Test("identity commands complete stored identities' labels (not passwords'); --to-file and export -o complete files; copy --to its stores")
    func identityLabels() throws {
        let passphrase = ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"]
        let environment = RWSecretProcess.environment(home: home.url, extra: passphrase)
        #expect(try RWSecretProcess.run(["password", "add", "work"], stdin: Data("secret one".utf8), environment: environment).status == 0)
        for label in ["desk", "laptop"] {
            #expect(try RWSecretProcess.run(["identity", "new", label], environment: environment).status == 0)
        }
        #expect(try complete("rwsecret identity remove ", environment: passphrase) == ["desk", "laptop"])
        #expect(try complete("rwsecret identity export l", environment: passphrase) == ["laptop"])
        #expect(try complete("rwsecret identity recipient ", environment: passphrase) == ["desk", "laptop"])
        #expect(try complete("rwsecret password remove ", environment: passphrase) == ["work"])
        #expect(try complete("rwsecret identity copy --to ") == ["file", "keyring"])
        _ = home.file("team.txt", "")
        #expect(try complete("rwsecret encrypt --to-file te") == ["team.txt"])
        #expect(try complete("rwsecret identity export desk -o te") == ["team.txt"])
        #expect(try complete("rwsecret identity import --file te") == ["team.txt"])
    }
}
