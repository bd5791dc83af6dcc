import ArgumentParser

#if RWS_EXTRA_COMMAND
/// One more command, compiled in only by scripts/startup-growth.sh (`-D RWS_EXTRA_COMMAND`): a
/// one-message decrypt may cost at most 0.2 M instructions more with it (issue 36).
enum ExtraCommand {
    static let all: [ParsableCommand.Type] = [Extra.self]

    struct Extra: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "extra", abstract: "A command that only measures start-up.")
        @Option(help: "A value.") var first: String?
        @Option(help: "Values.") var second: [String] = []
        @Option(help: "A number.") var third: Int = 1
        @Flag(help: "A flag.") var fourth = false
        @Argument(help: "Files.") var files: [String] = []
        func run() throws {}
    }
}
#else
enum ExtraCommand {
    static let all: [ParsableCommand.Type] = []
}
#endif
