internal import CArgon2

/// OpenPGP's symmetric ciphers (RFC 9580 9.3), each with OpenSSL's name of its CFB mode.
package enum OpenPGPCipher: Sendable, Equatable {
    case tripleDES, cast5, blowfish, aes128, aes192, aes256, camellia128, camellia192, camellia256
    /// Known to OpenPGP but not opened here (IDEA, Twofish: OpenSSL has neither).
    case unsupported(UInt8)

    package init(_ id: UInt8) {
        switch id {
        case 2: self = .tripleDES
        case 3: self = .cast5
        case 4: self = .blowfish
        case 7: self = .aes128
        case 8: self = .aes192
        case 9: self = .aes256
        case 11: self = .camellia128
        case 12: self = .camellia192
        case 13: self = .camellia256
        default: self = .unsupported(id)
        }
    }

    /// The algorithm's id (RFC 9580 9.3).
    var id: UInt8 {
        switch self {
        case .tripleDES: 2
        case .cast5: 3
        case .blowfish: 4
        case .aes128: 7
        case .aes192: 8
        case .aes256: 9
        case .camellia128: 11
        case .camellia192: 12
        case .camellia256: 13
        case .unsupported(let id): id
        }
    }

    /// The key size in bytes (0 when unsupported).
    var keySize: Int {
        switch self {
        case .tripleDES, .aes192, .camellia192: 24
        case .cast5, .blowfish, .aes128, .camellia128: 16
        case .aes256, .camellia256: 32
        case .unsupported: 0
        }
    }

    /// The block size in bytes.
    /// The key size in bits of an AES cipher (the only ones OpenSSL has OCB and GCM for); nil for the others.
    var aesBits: Int? {
        switch self {
        case .aes128: 128
        case .aes192: 192
        case .aes256: 256
        default: nil
        }
    }

    var blockSize: Int {
        switch self {
        case .tripleDES, .cast5, .blowfish: 8
        default: 16
        }
    }

    /// OpenSSL's name of the cipher in CFB mode.
    var openSSLCFB: String? {
        switch self {
        case .tripleDES: "DES-EDE3-CFB"
        case .cast5: "CAST5-CFB"
        case .blowfish: "BF-CFB"
        case .aes128: "AES-128-CFB"
        case .aes192: "AES-192-CFB"
        case .aes256: "AES-256-CFB"
        case .camellia128: "CAMELLIA-128-CFB"
        case .camellia192: "CAMELLIA-192-CFB"
        case .camellia256: "CAMELLIA-256-CFB"
        case .unsupported: nil
        }
    }

    /// The name users know it by.
    package var name: String {
        switch self {
        case .tripleDES: "3DES"
        case .cast5: "CAST5"
        case .blowfish: "Blowfish"
        case .aes128: "AES-128"
        case .aes192: "AES-192"
        case .aes256: "AES-256"
        case .camellia128: "Camellia-128"
        case .camellia192: "Camellia-192"
        case .camellia256: "Camellia-256"
        case .unsupported(1): "IDEA"
        case .unsupported(10): "Twofish"
        case .unsupported(let id): "cipher \(id)"
        }
    }

    /// A CFB decryptor under `key` (IV of zeros); nil when OpenSSL lacks the cipher.
    func cfb(key: some ContiguousByteStorage) -> OpenPGPCFBDecryptor? {
        guard let name = openSSLCFB else { return nil }
        return OpenPGPCFBDecryptor(cipher: name, key: key)
    }
}

/// OpenPGP's hash algorithms (RFC 9580 9.5) as OpenSSL names them.
enum OpenPGPHash {
    static func openSSLName(_ id: UInt8) -> String? {
        switch id {
        case 1: "MD5"
        case 2: "SHA1"
        case 3: "RIPEMD160"
        case 8: "SHA256"
        case 9: "SHA384"
        case 10: "SHA512"
        case 11: "SHA224"
        case 12: "SHA3-256"
        case 14: "SHA3-512"
        default: nil
        }
    }
}

/// A string-to-key specifier (RFC 9580 3.7): simple, salted, iterated and salted, Argon2.
package struct OpenPGPS2K: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        case simple
        case salted([UInt8])
        case iterated([UInt8], count: Int)
        /// Argon2 (RFC 9580 3.7.1.4): salt, passes, parallelism, log2 of the memory in KiB.
        case argon2([UInt8], passes: UInt8, parallelism: UInt8, memoryExponent: UInt8)
    }

    package let mode: Mode
    /// The hash algorithm's id (unused for Argon2).
    package let hash: UInt8

    /// Parses a specifier at the start of `bytes`; returns it and its length.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(KindError) -> (OpenPGPS2K, Int) {
        let b = Array(bytes)
        guard let type = b.first else { throw .header("S2K specifier missing") }
        switch type {
        case 0:
            guard b.count >= 2 else { throw .header("S2K specifier cut short") }
            return (OpenPGPS2K(mode: .simple, hash: b[1]), 2)
        case 1:
            guard b.count >= 10 else { throw .header("S2K specifier cut short") }
            return (OpenPGPS2K(mode: .salted(Array(b[2..<10])), hash: b[1]), 10)
        case 3:
            guard b.count >= 11 else { throw .header("S2K specifier cut short") }
            let c = Int(b[10])
            return (OpenPGPS2K(mode: .iterated(Array(b[2..<10]), count: (16 + (c & 15)) << ((c >> 4) + 6)), hash: b[1]), 11)
        case 4:
            guard b.count >= 20 else { throw .header("Argon2 S2K specifier cut short") }
            return (OpenPGPS2K(mode: .argon2(Array(b[1..<17]), passes: b[17], parallelism: b[18], memoryExponent: b[19]), hash: 0), 20)
        case 101:
            throw .refused("a GnuPG-private S2K (a key stub, not a password): use gpg -d")
        default:
            throw .header("unknown S2K type \(type)")
        }
    }

    /// The most memory one Argon2 derivation may ask for (4 GiB, 2^22 KiB) unless the memory
    /// budget is larger (`TryBudget.argon2Memory`, `OpenPGPKind.checkCost`).
    package static let argon2MemoryLimit = 1 << 32

    /// The memory one derivation needs (Argon2: 2^m KiB; the others: next to none).
    package var memoryPerTry: Int {
        if case .argon2(_, _, _, let m) = mode { return 1024 << Int(m) }
        return 64 << 10
    }

    /// Whether a derivation costs enough to be worth trying several passwords at once
    /// (Argon2, or an iterated count of at least a megabyte hashed).
    package var isCostly: Bool {
        switch mode {
        case .argon2: true
        case .iterated(_, let count): count >= 1 << 20
        default: false
        }
    }

    /// The threads one derivation runs on (Argon2: its lanes).
    package var threads: Int {
        if case .argon2(_, _, let p, _) = mode { return Int(p) }
        return 1
    }

    /// The S2K in words, for the verbose line.
    package var words: String {
        switch mode {
        case .argon2(_, let t, let p, let m): "OpenPGP Argon2 S2K (t=\(t), p=\(p), m=2^\(m) KiB)"
        case .iterated(_, let count): "OpenPGP iterated S2K (\(count) bytes hashed)"
        case .salted: "OpenPGP salted S2K"
        case .simple: "OpenPGP simple S2K"
        }
    }

    /// Checks what can be checked before any password is tried.
    func validate() throws(KindError) {
        if case .argon2(_, let passes, let parallelism, let m) = mode {
            // RFC 9580 3.7.1.4: at least 8 KiB per lane, at most 2^31 KiB.
            var lanesLog = 0
            while 1 << lanesLog < Int(parallelism) { lanesLog += 1 }
            guard passes >= 1, parallelism >= 1, Int(m) >= 3 + lanesLog, m <= 31 else {
                throw .header("Argon2 S2K with invalid parameters (t=\(passes), p=\(parallelism), m=2^\(m) KiB)")
            }
            return
        }
        guard let name = OpenPGPHash.openSSLName(hash) else { throw .refused("S2K with hash algorithm \(hash): not supported") }
        guard OpenPGPDigest(name) != nil else { throw .refused("S2K with hash \(name): this OpenSSL has no \(name)") }
    }

    /// The key of `length` bytes derived from `password`.
    func derive(password: some ContiguousByteStorage, length: Int) throws(KindError) -> SecretBytes {
        DerivationWitness.deriving(from: password)
        if case .argon2(let salt, let passes, let parallelism, let m) = mode {
            let argon2 = try LoadedLibraries.argon2()
            var status = ARGON2_OK.rawValue
            let key = SecretBytes(count: length) { out in
                status = password.withUnsafeBytes { pw in
                    salt.withUnsafeBytes { s in
                        argon2.argon2id_hash_raw(UInt32(passes), UInt32(1) << UInt32(m), UInt32(parallelism), pw.baseAddress, pw.count,
                                          s.baseAddress, s.count, out.baseAddress, length)
                    }
                }
            }
            if status == ARGON2_MEMORY_ALLOCATION_ERROR.rawValue {
                throw .outOfMemory("\(words) needs \(memoryPerTry >> 20) MiB for one try")
            }
            guard status == ARGON2_OK.rawValue else {
                throw .refused("Argon2 S2K failed: \(argon2.argon2_error_message(status).map { String(cString: $0) } ?? "status \(status)")")
            }
            return key
        }
        let digest = OpenPGPDigest(OpenPGPHash.openSSLName(hash)!)!
        return SecretBytes(count: length) { out in
            var produced = 0
            var preload = 0
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: digest.size, alignment: 16)
            defer {
                Crypto.cleanse(block)
                block.deallocate()
            }
            while produced < length {
                digest.reset()
                if preload > 0 { digest.update([UInt8](repeating: 0, count: preload)) }
                password.withUnsafeBytes { pw in
                    switch mode {
                    case .simple:
                        digest.update(pw)
                    case .salted(let salt):
                        digest.update(salt)
                        digest.update(pw)
                    case .iterated(let salt, let count):
                        Self.hashIterated(digest, salt: salt, password: pw, count: count)
                    case .argon2:
                        preconditionFailure("Argon2 returns above")
                    }
                }
                digest.finish(into: block)
                let n = min(digest.size, length - produced)
                out.baseAddress!.advanced(by: produced).copyMemory(from: block.baseAddress!, byteCount: n)
                produced += n
                preload += 1
            }
        }
    }

    /// Hashes salt‖password repeated until `count` bytes (at least once whole).
    private static func hashIterated(_ digest: OpenPGPDigest, salt: [UInt8], password: UnsafeRawBufferPointer, count: Int) {
        let unit = salt.count + password.count
        let total = max(count, unit)
        // A buffer of whole repetitions, fed many times: the hash sees one long stream.
        let repetitions = max(1, min(total / unit, (64 << 10) / unit))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: unit * repetitions, alignment: 16)
        defer {
            Crypto.cleanse(buffer)
            buffer.deallocate()
        }
        for r in 0..<repetitions {
            let base = buffer.baseAddress! + r * unit
            salt.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: salt.count) }
            if password.count > 0 { (base + salt.count).copyMemory(from: password.baseAddress!, byteCount: password.count) }
        }
        var left = total
        while left > 0 {
            let n = min(left, buffer.count)
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            left -= n
        }
    }
}
