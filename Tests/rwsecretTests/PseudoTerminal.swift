import Foundation
import Testing

/// Runs a shell command line on a real pseudo-terminal (util-linux `script` provides one;
/// the command's stdin, stdout, stderr and `/dev/tty` are that terminal unless the command
/// line redirects them), answers prompts, and renders what a person would see.
struct PseudoTerminal {
    static let script = "/usr/bin/script"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: script) }
    static let unavailable: Comment = "needs util-linux's script(1) for a pseudo-terminal"

    struct Session {
        let status: Int32
        /// The command was still running after the timeout and was killed (a prompt never came).
        let timedOut: Bool
        /// Every byte the terminal received, escape sequences included.
        let raw: String
        /// The screen's lines after carriage returns and erase-line sequences are applied.
        var lines: [String] { PseudoTerminal.render(raw) }
    }

    /// `'path'` for a command line (paths with a quote are not supported, and not needed).
    static func quote(_ word: String) -> String { "'\(word)'" }

    /// The built binary, quoted, for a command line.
    static var rwsecret: String { quote(RWSecretProcess.executable.path) }

    /// Runs `commandLine` with `sh -c` on a pseudo-terminal. Each answer is typed once its
    /// prompt has appeared (at once for an empty prompt); a prompt that never comes fails the test (after `timeout`) rather
    /// than hanging it.
    static func run(_ commandLine: String, environment: [String: String],
                    answers: [(prompt: String, reply: String)] = [], timeout: Double = 60) throws -> Session {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-qec", commandLine, "/dev/null"]
        var environment = environment
        environment["TERM"] = "dumb"
        environment["SHELL"] = "/bin/sh"
        process.environment = environment
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.runCheckingDescriptors()
        final class Flag: @unchecked Sendable { var value = false }
        let fired = Flag()
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { fired.value = true; process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        var seen = Data()
        var consumed = 0
        for (prompt, reply) in answers {
            while !prompt.isEmpty {  // an empty prompt: type at once
                let text = String(decoding: seen, as: UTF8.self)
                let start = text.index(text.startIndex, offsetBy: min(consumed, text.count))
                if let range = text.range(of: prompt, range: start..<text.endIndex) {
                    consumed = text.distance(from: text.startIndex, to: range.upperBound)
                    break
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen.append(chunk)
            }
            try? input.fileHandleForWriting.write(contentsOf: Data((reply + "\n").utf8))
        }
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        return Session(status: process.terminationStatus, timedOut: fired.value, raw: String(decoding: seen, as: UTF8.self))
    }

    /// A tiny terminal: `\r` returns to column 0, `\n` starts a new line, `ESC [ K` erases
    /// to the end of the line, other escape sequences are dropped, and text overwrites.
    static func render(_ raw: String) -> [String] {
        var lines: [[Character]] = [[]]
        var column = 0
        var characters = Array(raw)[...]
        while let c = characters.popFirst() {
            switch c {
            case "\r": column = 0
            case "\n", "\r\n":
                lines.append([]); column = 0
            case "\u{1B}":
                guard characters.first == "[" else { continue }
                characters.removeFirst()
                var parameters = ""
                while let next = characters.popFirst() {
                    if next.isLetter {
                        if next == "K" && (parameters.isEmpty || parameters == "0") {
                            lines[lines.count - 1].removeSubrange(min(column, lines[lines.count - 1].count)...)
                        }
                        break
                    }
                    parameters.append(next)
                }
            default:
                var line = lines[lines.count - 1]
                while line.count < column { line.append(" ") }
                if column < line.count { line[column] = c } else { line.append(c) }
                column += 1
                lines[lines.count - 1] = line
            }
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { String($0) }
    }
}

/// Writing stdin to a child that exits without reading it (bad usage stops before input
/// is read) must fail the write, not kill the test process with SIGPIPE.
let brokenPipesIgnored: Void = ChildInput.catchBrokenPipes()

extension PseudoTerminal {
    /// Runs the built binary with `arguments` on a pseudo-terminal, answering `answers` in
    /// turn; returns the exit status (125 when a prompt never came) and everything shown.
    static func converse(_ arguments: [String], environment: [String: String], answers: [(prompt: String, reply: String)])
        throws -> (status: Int32, screen: String) {
        let line = ([rwsecret] + arguments.map(quote)).joined(separator: " ")
        let session = try run(line, environment: environment, answers: answers)
        return (session.timedOut ? 125 : session.status, session.raw)
    }
}
