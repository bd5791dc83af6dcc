import RWSecretKit

/// Reads `--key-file`: 64 raw bytes (encryption key, then HMAC key), or 128 hex
/// characters in any case, optionally followed by one LF or CRLF.
enum KeyFile {
    static func load(_ path: String) throws -> MessageKeys {
        var bytes = try readSmallFile(path, what: "key file", limit: 4096)
        defer { SecretBytes.cleanse(&bytes) }
        if bytes.count == 64, let keys = MessageKeys(concatenated: SecretBytes(bytes)) { return keys }
        var hex = bytes[...]
        if hex.last == UInt8(ascii: "\n") { hex = hex.dropLast() }
        if hex.last == UInt8(ascii: "\r") && bytes.last == UInt8(ascii: "\n") { hex = hex.dropLast() }
        guard hex.count == 128 else { throw malformed(path) }
        let raw = try SecretBytes(count: 64) { out in
            var index = hex.startIndex
            for i in 0..<64 {
                guard let high = nibble(hex[index]), let low = nibble(hex[index + 1]) else { throw malformed(path) }
                out[i] = high << 4 | low
                index += 2
            }
        }
        return MessageKeys(concatenated: raw)!
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func malformed(_ path: String) -> CommandFailure {
        CommandFailure(.dataError, "\(Output.escaped(path)): not a key file (expected 64 raw bytes, or 128 hex characters and an optional newline)")
    }
}
