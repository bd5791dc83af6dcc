/// One `!vault |` value found in a YAML file: a message of its own, named by its key and line.
package struct AnsibleVaultValue: Sendable, Equatable {
    /// The mapping key the value belongs to (nil for a list item).
    package let key: String?
    /// The 1-based line of the key.
    package let line: Int
    /// The vault text, indentation removed (`$ANSIBLE_VAULT;…` and its hex lines).
    package let text: [UInt8]
}

extension AnsibleVaultKind {
    /// The `!vault |` block scalars of a YAML document, in order (what `ansible-vault
    /// encrypt_string` writes: `key: !vault |` then the indented vault lines). Only this shape is
    /// recognised; a YAML file with none gives none.
    package static func vaultValues(inYAML text: [UInt8]) -> [AnsibleVaultValue] {
        var lines = text.split(separator: 0x0a, omittingEmptySubsequences: false).map { line -> ArraySlice<UInt8> in
            line.last == 0x0d ? line.dropLast() : line
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        var values: [AnsibleVaultValue] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            let keyLine = index
            let indent = line.prefix { $0 == 0x20 }.count
            guard let key = vaultKey(line.dropFirst(indent)) else { continue }
            // The block: the following lines indented more than the key's line (blank lines included).
            var block: [ArraySlice<UInt8>] = []
            var blockIndent: Int?
            while index < lines.count {
                let next = lines[index]
                let nextIndent = next.prefix { $0 == 0x20 }.count
                if nextIndent == next.count {
                    block.append([])
                    index += 1
                    continue
                }
                if blockIndent == nil {
                    guard nextIndent > indent else { break }
                    blockIndent = nextIndent
                }
                guard nextIndent >= blockIndent! else { break }
                block.append(next.dropFirst(blockIndent!))
                index += 1
            }
            while block.last?.isEmpty == true { block.removeLast() }
            guard !block.isEmpty else { continue }
            values.append(AnsibleVaultValue(key: key.name, line: keyLine, text: Array(block.joined(separator: [0x0a]))))
        }
        return values
    }

    /// For `key: !vault |` (or `- key: !vault |`, `- !vault |`): the key (nil for a bare list
    /// item); nil when the line is not the start of a vault block.
    private static func vaultKey(_ content: ArraySlice<UInt8>) -> (name: String?, Void)? {
        var rest = content
        if rest.starts(with: "- ".utf8) { rest = rest.dropFirst(2).drop { $0 == 0x20 } }
        var name: String?
        if !rest.starts(with: "!vault".utf8) {
            guard let colon = findTag(rest) else { return nil }
            var key = rest[..<colon]
            while key.last == 0x20 { key.removeLast() }
            if key.count >= 2, let q = key.first, q == UInt8(ascii: "\"") || q == UInt8(ascii: "'"), key.last == q {
                key = key.dropFirst().dropLast()
            }
            name = String(decoding: key, as: UTF8.self)
            rest = rest[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
            guard rest.starts(with: "!vault".utf8) else { return nil }
        }
        rest = rest.dropFirst(6)
        guard rest.first == 0x20 || rest.first == 0x09 else { return nil }
        rest = rest.drop { $0 == 0x20 || $0 == 0x09 }
        guard rest.first == UInt8(ascii: "|") else { return nil }
        rest = rest.dropFirst()
        if rest.first == UInt8(ascii: "-") || rest.first == UInt8(ascii: "+") { rest = rest.dropFirst() }
        rest = rest.drop { $0 == 0x20 || $0 == 0x09 }
        guard rest.isEmpty || rest.first == UInt8(ascii: "#") else { return nil }
        return (name, ())
    }

    /// The index of the `:` that ends a mapping key followed by `!vault`.
    private static func findTag(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8>.Index? {
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: ":") {
                let after = s[(i + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
                if after.starts(with: "!vault".utf8) && after.startIndex > i + 1 { return i }
            }
            i += 1
        }
        return nil
    }
}
