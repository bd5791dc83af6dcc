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

        @Flag(help: "Write [{\"label\":…,\"position\":1}, …] instead of one label per line.")
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
                let items = labels.enumerated().map { "{\"label\":\(JSONText.string($1)),\"position\":\($0 + 1)}" }
                Output.standardOutput.line("[" + items.joined(separator: ",") + "]")
            } else {
                for label in labels { Output.standardOutput.line(label) }
            }
        }
    }
}

/// JSON string literals (labels have no control characters, but quotes and backslashes may appear).
enum JSONText {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += String(format: scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func String(format value: UInt32) -> Swift.String {
        let hex = Swift.String(value, radix: 16)
        return "\\u" + Swift.String(repeating: "0", count: 4 - hex.count) + hex
    }
}
