import Foundation
import Testing
import RWSecretKit

/// `--ask-password` on a real pseudo-terminal (util-linux `script` provides one).
@Suite("asking for a password on a terminal")
struct AskPasswordTests {
    static let script = "/usr/bin/script"

    @Test("the password is asked on the terminal without echo and opens the message",
          .enabled(if: FileManager.default.isExecutableFile(atPath: script), "needs util-linux's script(1) for a pseudo-terminal"))
    func askPassword() throws {
        let dir = TemporaryFolder()
        let messages = dir.file("m.txt", Messages.password("opened by the prompt", "typed secret") + "\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.arguments = ["-qec", "'\(RWSecretProcess.executable.path)' decrypt --no-store --json --ask-password '\(messages)'", "/dev/null"]
        process.environment = RWSecretProcess.environment(home: dir.url)
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.runCheckingDescriptors()
        // Type the password once the prompt is up.
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("Password:") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        input.fileHandleForWriting.writeToChild(Data("typed secret\n".utf8))
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        let screen = String(decoding: seen, as: UTF8.self)
        #expect(screen.contains("\"plaintext\":\"opened by the prompt\""), "\(screen)")
        #expect(screen.contains("\"password\":\"prompt\""))
        #expect(!screen.contains("typed secret"), "the password is not echoed")
        #expect(process.terminationStatus == 0)
    }
}
