internal import COpenSSL

/// AES-256-CBC with PKCS#7 padding over OpenSSL's EVP interface (AES-NI when the CPU has it).
final class Cipher {
    enum Direction { case encrypt, decrypt }

    // Made once: OpenSSL's built-in AES-256-CBC through its legacy method table (no provider
    // fetch; see rws_legacy_cipher in COpenSSL's shim.h), or fetched where the build has none.
    nonisolated(unsafe) private static let aes256CBC: OpaquePointer = {
        Crypto.initializeOpenSSL()
        guard let cipher = rws_legacy_cipher(EVP_aes_256_cbc()) ?? EVP_CIPHER_fetch(nil, "AES-256-CBC", nil) else {
            fatalError("OpenSSL has no AES-256-CBC")
        }
        return cipher
    }()

    private let context: OpaquePointer

    /// Makes the cipher's method now (see `Crypto.prepare()`).
    static func prepare() { _ = aes256CBC }

    /// Starts a cipher with a 32-byte `key` and a 16-byte `iv`. `padding: false`:
    /// whole blocks only, every block out at once (a range of a longer body).
    init(_ direction: Direction, key: some ContiguousByteStorage, iv: some ContiguousByteStorage, padding: Bool = true) {
        guard let ctx = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL EVP_CIPHER_CTX_new failed (out of memory)") }
        context = ctx
        let ok = key.withUnsafeBytes { k in
            iv.withUnsafeBytes { i in
                EVP_CipherInit_ex2(ctx, Self.aes256CBC,
                                   k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                   i.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                   direction == .encrypt ? 1 : 0, nil)
            }
        }
        precondition(ok == 1, "OpenSSL EVP_CipherInit_ex2 failed")
        if !padding { EVP_CIPHER_CTX_set_padding(ctx, 0) }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Processes `input`, appending the output to `output` (at most `input.count + 16` bytes).
    func update(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        guard input.count > 0 else { return }
        let start = output.count
        output.append(contentsOf: [UInt8](repeating: 0, count: input.count + Crypto.blockSize))  // one memset, even unoptimised
        var written: Int32 = 0
        let ok = output.withUnsafeMutableBytes { out in
            EVP_CipherUpdate(context, (out.baseAddress! + start).assumingMemoryBound(to: UInt8.self), &written,
                             input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count))
        }
        precondition(ok == 1, "OpenSSL EVP_CipherUpdate failed")
        output.removeLast(output.count - start - Int(written))
    }

    /// Processes `input` into `output` (room for `input.count + 16` bytes; it may be
    /// `input`'s own memory, exactly, for in-place work); returns the bytes written.
    func update(_ input: UnsafeRawBufferPointer, to output: UnsafeMutableRawPointer) -> Int {
        guard input.count > 0 else { return 0 }
        var written: Int32 = 0
        let ok = EVP_CipherUpdate(context, output.assumingMemoryBound(to: UInt8.self), &written,
                                  input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count))
        precondition(ok == 1, "OpenSSL EVP_CipherUpdate failed")
        return Int(written)
    }

    /// Finishes: adds padding (encrypt) or checks and strips it (decrypt).
    /// Returns `false` when decryption finds bad padding.
    func finalize(into output: inout [UInt8]) -> Bool {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: Crypto.blockSize))
        var written: Int32 = 0
        let ok = output.withUnsafeMutableBytes { out in
            EVP_CipherFinal_ex(context, (out.baseAddress! + start).assumingMemoryBound(to: UInt8.self), &written)
        }
        output.removeLast(output.count - start - (ok == 1 ? Int(written) : 0))
        if ok != 1 { ERR_clear_error() }
        return ok == 1
    }
}
