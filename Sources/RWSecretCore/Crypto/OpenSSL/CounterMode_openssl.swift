internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// AES-256 in the counter mode of RNCryptor v0: CommonCrypto's little-endian
/// counter, which only ever increments the first byte of the counter block
/// (wrapping at 256 without carry). Encryption and decryption are the same XOR.
final class LittleEndianCounterCipher {
    nonisolated(unsafe) private static let aes256ECB: OpaquePointer = {
        Crypto.initializeOpenSSL()
        guard let cipher = rws_legacy_cipher(EVP_aes_256_ecb()) ?? EVP_CIPHER_fetch(nil, "AES-256-ECB", nil) else {
            fatalError("OpenSSL has no AES-256-ECB")
        }
        return cipher
    }()

    private let context: OpaquePointer
    private var counter: [UInt8]
    /// Unused keystream bytes of the last block, from `keystreamOffset` on.
    private var keystream = [UInt8](repeating: 0, count: Crypto.blockSize)
    private var keystreamOffset = Crypto.blockSize

    /// Starts the counter at `iv` under a 32-byte `key`.
    init(key: some ContiguousByteStorage, iv: [UInt8]) {
        precondition(iv.count == Crypto.blockSize)
        guard let ctx = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL EVP_CIPHER_CTX_new failed (out of memory)") }
        context = ctx
        counter = iv
        let ok = key.withUnsafeBytes { k in
            EVP_CipherInit_ex2(ctx, Self.aes256ECB, k.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, 1, nil)
        }
        precondition(ok == 1, "OpenSSL EVP_CipherInit_ex2 failed")
        EVP_CIPHER_CTX_set_padding(ctx, 0)
    }

    deinit {
        keystream.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        EVP_CIPHER_CTX_free(context)
    }

    /// XORs `input` with the keystream, appending the result to `output`.
    func update(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        guard input.count > 0 else { return }
        var index = 0
        output.reserveCapacity(output.count + input.count)
        while index < input.count && keystreamOffset < Crypto.blockSize {
            output.append(input[index] ^ keystream[keystreamOffset])
            index += 1
            keystreamOffset += 1
        }
        let remaining = input.count - index
        guard remaining > 0 else { return }
        // Whole keystream for the rest, in chunks of up to 256 blocks (one counter lap).
        let blocks = (remaining + Crypto.blockSize - 1) / Crypto.blockSize
        var counters = [UInt8](repeating: 0, count: min(blocks, 256) * Crypto.blockSize)
        var stream = [UInt8](repeating: 0, count: counters.count)
        defer { stream.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        var done = 0
        while done < blocks {
            let chunk = min(blocks - done, 256)
            for block in 0..<chunk {
                for byte in 0..<Crypto.blockSize { counters[block * Crypto.blockSize + byte] = counter[byte] }
                counter[0] &+= 1
            }
            var written: Int32 = 0
            let ok = stream.withUnsafeMutableBytes { out in
                counters.withUnsafeBytes { inp in
                    EVP_CipherUpdate(context, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
                                     inp.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(chunk * Crypto.blockSize))
                }
            }
            precondition(ok == 1 && Int(written) == chunk * Crypto.blockSize, "OpenSSL EVP_CipherUpdate failed")
            let bytes = min(chunk * Crypto.blockSize, input.count - index)
            for i in 0..<bytes { output.append(input[index + i] ^ stream[i]) }
            index += bytes
            done += chunk
            if bytes < chunk * Crypto.blockSize {
                // Keep the unused end of the last keystream block for the next update.
                let lastStart = (chunk - 1) * Crypto.blockSize
                for i in 0..<Crypto.blockSize { keystream[i] = stream[lastStart + i] }
                keystreamOffset = bytes - lastStart
            }
        }
    }
}
