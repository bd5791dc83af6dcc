/// What the raw arguments say before any parser runs: for work started while they are parsed.
enum EarlyArguments {
    /// The last value each of `names` is given before any `--` (`--name VALUE` or
    /// `--name=VALUE`), read before the parser runs, for work started while it parses
    /// (the set-up threads): a guess, never what the run does.
    static func lastValues(of names: Set<String>, in arguments: [String]) -> [String: String] {
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            index += 1
            if names.contains(argument) {
                if index < arguments.count {
                    values[argument] = arguments[index]
                    index += 1
                }
            } else if let equals = argument.firstIndex(of: "="), names.contains(String(argument[..<equals])) {
                values[String(argument[..<equals])] = String(argument[argument.index(after: equals)...])
            }
        }
        return values
    }
}
