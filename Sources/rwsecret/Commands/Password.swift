import ArgumentParser
import RWSecretKit

extension RWSecret {
    /// `rwsecret password add|remove|list|rename|copy`.
    struct Password: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password",
            abstract: "Add, remove, list, rename and copy stored passwords.",
            subcommands: [Add.self, Remove.self, List.self, Rename.self, Copy.self]
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        /// The global options given before `password`, before and after the subcommand's name.
        func globals(_ own: GlobalOptions) throws -> Globals {
            try own.merged(with: global.merged(with: root.global))
        }
    }
}
