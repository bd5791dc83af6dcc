import ArgumentParser
import RWSecretKit

extension RWSecret.Password {
    /// `rwsecret password list [--json]`: labels in stored order, never a secret.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the labels in stored order (the order added); never the secrets."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Password

        @Flag(help: "Write [{\"label\":...,\"position\":1}, ...] instead of one label per line.")
        var json = false

        func run() throws {
            let global = try group.globals(self.global)
            let labels: [String]
            do {
                labels = try global.openStore().labels()
            } catch let error as StoreError {
                throw CommandFailure(error)
            }
            if json {
                let items = labels.enumerated().map { JSON.object([("label", .string($1)), ("position", .int($0 + 1))]) }
                Output.standardOutput.line("[" + items.joined(separator: ",") + "]")
            } else {
                for label in labels { Output.standardOutput.line(Output.escaped(label)) }
            }
        }
    }
}
