import ArgumentParser
import RWSecretKit

extension RWSecret.Password {
    /// `rwsecret password rename OLD NEW`: keeps its place in the chain; all or nothing.
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Rename a stored password's label (it keeps its place in the chain)."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Password

        @Argument(help: ArgumentHelp("The label now.", valueName: "old"))
        var old: String

        @Argument(help: ArgumentHelp("The new label (1-64 characters, no control characters).", valueName: "new"))
        var new: String

        func run() throws {
            let global = try group.globals(self.global)
            do {
                // What was given (65) before the store (69).
                try PasswordLabel.validate(old)
                try PasswordLabel.validate(new)
                let store = try global.openStore()
                try store.rename(old, to: new)
                if !global.quiet {
                    Output.standardError.line("rwsecret: renamed '\(Output.escaped(old))' to '\(Output.escaped(new))' (\(store.kind.rawValue) store)")
                }
            } catch let error as StoreError {
                throw CommandFailure(error)
            }
        }
    }
}
