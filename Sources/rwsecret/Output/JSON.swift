import RWSecretKit

/// Just enough JSON writing for rwsecret's one-object-per-line output.
enum JSON {
    /// A JSON object on one line, keys in the given order.
    static func object(_ members: [(String, Value)]) -> String {
        "{" + members.map { "\(string($0.0)):\($0.1.encoded)" }.joined(separator: ",") + "}"
    }

    enum Value {
        case string(String)
        case int(Int)
        case null

        var encoded: String {
            switch self {
            case .string(let s): JSON.string(s)
            case .int(let n): String(n)
            case .null: "null"
            }
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func string(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
