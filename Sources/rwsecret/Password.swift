import ArgumentParser
import RWSecretKit

extension RWSecret {
    struct Password: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add, remove and list stored passwords.")
        @OptionGroup var global: GlobalOptions
        func run() throws { throw CommandFailure(.usage, "password: not built yet") }
    }
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Which store, where, why, how many passwords, locked or not.")
        @OptionGroup var global: GlobalOptions
        func run() throws { throw CommandFailure(.usage, "status: not built yet") }
    }
}
