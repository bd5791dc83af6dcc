import ArgumentParser

/// The command words of a command line, checked before the argument parser sees them:
/// a mistyped command gets a "did you mean", `help` of an unknown command and a command
/// group given alone (`rwsecret password`) are bad usage (64) with usage on stderr.
///
/// The parser itself would report `rwsecret decrpyt` as "2 unexpected arguments", print a
/// group's help on stdout with exit 0, and answer `help nosuch` with the root's help.
enum CommandWords {
    /// Leaf commands that `check` lets pass at once when named first (CommandWordsTests checks
    /// that each is a leaf, so that the loop would let it pass too).
    static let leafNamedFirst = ["decrypt"]

    /// The options that take a value before a subcommand's name (the global ones).
    static let valueOptions: Set<String> = ["--store", "--vault"]

    /// A usage failure for `arguments` (without the program name), or nil to let the parser run.
    static func check(_ arguments: [String]) -> CommandFailure? {
        // `decrypt` first, as most runs: a leaf named first leaves nothing to check (the loop
        // below would find it and stop at its arguments), and the loop's first steps build the
        // root's configuration and a set of strings, 0.3 M instructions of a one-message run.
        if let first = arguments.first, leafNamedFirst.contains(first) { return nil }
        let words = arguments.prefix { $0 != "--" }
        // Help, version and the parser's own tooling options answer as usual.
        if words.contains(where: { ["-h", "--help", "-help", "--version"].contains($0) || $0.hasPrefix("--generate-completion-script") || $0.hasPrefix("--experimental") || $0.hasPrefix("---") }) {
            return nil
        }
        var command: ParsableCommand.Type = RWSecret.self
        var path: [String] = []
        var iterator = words.makeIterator()
        var helpPath: [String]?
        while let word = iterator.next() {
            if word.hasPrefix("-") && word != "-" {
                if valueOptions.contains(word) { _ = iterator.next() }
                if command == RWSecret.self, let misplaced = misplacedOption(word, in: Array(words)) { return misplaced }
                continue
            }
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty { break }  // a leaf's own arguments
            if command == RWSecret.self, word == "help", helpPath == nil {
                helpPath = []
                continue
            }
            guard let next = subcommands.first(where: { $0._commandName == word }) else {
                let names = subcommands.map { $0._commandName } + (command == RWSecret.self && helpPath == nil ? ["help"] : [])
                var message = "unknown command '\(word)'"
                if let guess = suggestion(for: word, among: names) { message += "; did you mean '\(guess)'?" }
                let usagePath = (["rwsecret"] + path).joined(separator: " ")
                message += "\nUsage: \(usagePath) <command> (one of: \(names.joined(separator: ", ")))\n  See '\(usagePath) --help'."
                return CommandFailure(.usage, message)
            }
            command = next
            path.append(word)
            helpPath?.append(word)
        }
        if helpPath != nil { return nil }
        if command != RWSecret.self, !command.configuration.subcommands.isEmpty {
            let names = command.configuration.subcommands.map { $0._commandName }
            return CommandFailure(.usage, "'\(path.joined(separator: " "))' needs a command: \(names.joined(separator: ", "))\n\n"
                                  + RWSecret.helpMessage(for: command))
        }
        return nil
    }

    /// The options every command takes before or after its name.
    static let globalOptions = ["--store", "--vault", "--verbose", "--quiet"]

    /// An option of a subcommand given before the subcommand's name (`rwsecret --jobs 2
    /// decrypt`), or an unknown one there: the parser would take its value for a command
    /// ("unknown command '2'") or suggest an unrelated global option.
    static func misplacedOption(_ word: String, in words: [String]) -> CommandFailure? {
        let name = word.firstIndex(of: "=").map { String(word[..<$0]) } ?? word
        if globalOptions.contains(name) { return nil }
        let owners = leafCommands().filter { accepts($0, name) }
        guard let owner = owners.first(where: { path in words.contains(path.last!) }) ?? owners.first else {
            var message = "unknown option '\(Output.escaped(name))'"
            if let guess = suggestion(for: name, among: globalOptions) { message += "; did you mean '\(guess)'?" }
            return CommandFailure(.usage, message + "\n  See 'rwsecret --help'.")
        }
        let ownerNames = owners.map { "`\($0.joined(separator: " "))`" }
        let listed = ownerNames.count == 1 ? ownerNames[0] : ownerNames.dropLast().joined(separator: ", ") + " and " + ownerNames.last!
        var example = ["rwsecret"] + owner + [Output.escaped(word)]
        if !word.contains("="), takesValue(owner, name), let index = words.firstIndex(of: word), index + 1 < words.count {
            example.append(Output.escaped(words[index + 1]))
        }
        return CommandFailure(.usage, "`\(Output.escaped(name))` is an option of \(listed): `\(example.joined(separator: " ")) …`")
    }

    /// Every command path that runs something (`["decrypt"]`, `["password", "add"]`, …).
    static func leafCommands(of command: ParsableCommand.Type = RWSecret.self, path: [String] = []) -> [[String]] {
        let subcommands = command.configuration.subcommands
        if subcommands.isEmpty { return path.isEmpty ? [] : [path] }
        return subcommands.flatMap { leafCommands(of: $0, path: path + [$0._commandName]) }
    }

    /// Whether the command at `path` has the option `name`: the parser, asked, does not call it unknown.
    /// (A missing positional argument is reported first: asked again with two of them given.)
    private static func accepts(_ path: [String], _ name: String) -> Bool {
        var message = parserMessage(path + [name]).lowercased()
        if message.contains("missing expected argument") { message = parserMessage(path + ["x", "y", name]).lowercased() }
        return !message.contains("unknown option") && !message.contains("missing expected argument")
    }

    private static func takesValue(_ path: [String], _ name: String) -> Bool {
        parserMessage(path + [name]).lowercased().contains("missing value")
    }

    private static func parserMessage(_ arguments: [String]) -> String {
        do { _ = try RWSecret.parseAsRoot(arguments); return "" } catch { return RWSecret.message(for: error) }
    }

    /// The closest of `names` to `word`: within two edits (a swap of neighbours is one),
    /// or one being a prefix of the other.
    static func suggestion(for word: String, among names: [String]) -> String? {
        let scored = names.map { name -> (String, Int) in
            if name.hasPrefix(word) || word.hasPrefix(name) { return (name, 1) }
            return (name, distance(Array(word), Array(name)))
        }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    /// Optimal string alignment distance (Levenshtein plus adjacent transpositions).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}

/// How often an option is given (`--name VALUE` or `--name=VALUE`) before a `--`: for
/// options given at most once, which the parser would otherwise let the last one win.
enum OptionOccurrences {
    static func count(_ name: String, in arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Int {
        arguments.prefix { $0 != "--" }.filter { $0 == name || $0.hasPrefix(name + "=") }.count
    }
}
