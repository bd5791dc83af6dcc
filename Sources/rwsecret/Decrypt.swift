import ArgumentParser
import RWSecretKit

extension RWSecret {
    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decrypt base64 messages, one per line (stdin when no FILE or \"-\").")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Files of messages.") var files: [String] = []
        func run() throws { throw CommandFailure(.usage, "decrypt: not built yet") }
    }
}
