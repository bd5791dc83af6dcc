import ArgumentParser
import RWSecretKit

extension RWSecret {
    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Encrypt each input line into one base64 message line (stdin when no FILE or \"-\").")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Files of messages.") var files: [String] = []
        func run() throws { throw CommandFailure(.usage, "encrypt: not built yet") }
    }
}
