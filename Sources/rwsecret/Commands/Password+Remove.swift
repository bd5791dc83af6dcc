import ArgumentParser
import RWSecretKit

extension RWSecret.Password {
    /// `rwsecret password remove LABEL…`: all or nothing.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove stored passwords (all or nothing: an unknown label removes none)."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Password

        @Argument(help: ArgumentHelp("The labels to remove.", valueName: "label"), completion: .custom(LabelCompletion.complete))
        var labels: [String]

        func validate() throws {
            if labels.isEmpty { throw ValidationError("give at least one label") }
        }

        func run() throws {
            let global = try group.globals(self.global)
            do {
                for label in labels { try PasswordLabel.validate(label) }
                let store = try global.openStore()
                try store.remove(labels: labels)
                if !global.quiet {
                    let names = labels.map { "'\(Output.escaped($0))'" }.joined(separator: ", ")
                    Output.standardError.line("rwsecret: removed \(names)")
                }
            } catch let error as StoreError {
                throw CommandFailure(error)
            }
        }
    }
}
