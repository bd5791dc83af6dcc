internal import COpenSSL
internal import CSHA1Kernel

/// PBKDF2-HMAC-SHA1 with the HMAC states precomputed once per password.
///
/// HMAC(K, m) = H((K ^ opad) ‖ H((K ^ ipad) ‖ m)). The blocks K ^ ipad and
/// K ^ opad depend only on the password, so their SHA-1 states are computed
/// once; every later PBKDF2 iteration hashes a 20-byte digest, i.e. exactly one
/// pre-padded 64-byte block per hash: two SHA-1 compressions per iteration.
///
/// The setup (key hashing, the two pad states, U1 = HMAC(P, S ‖ INT(i))) always
/// uses OpenSSL's SHA-1. The iterations 2…c then run either on OpenSSL's block
/// function `SHA1_Transform` (portable) or in the SHA-NI kernel of `CSHA1Kernel`.
extension Crypto {
    /// Which loop runs iterations 2…c.
    enum PBKDF2Loop {
        /// OpenSSL's `SHA1_Transform`, one chain at a time.
        case portable
        /// The SHA-NI kernel, up to three chains interleaved (portable when the CPU lacks it).
        case sha
    }

    /// Words per chain: inner state, outer state, U/T (five SHA-1 state words each), as `rw_pbkdf2_chain`.
    private static let chainWords = 15

    /// Whether the CPU can run the SHA-NI kernel (SHA, SSE4.1, SSSE3). Not the known-answer check.
    static var sha1KernelSupported: Bool { rw_sha1ni_available() != 0 }

    /// PBKDF2-HMAC-SHA1 of each (password, salt) pair with the same iteration count and length.
    static func pbkdf2SHA1(_ requests: [(password: SecretBytes, salt: [UInt8])], iterations: Int, keyLength: Int, loop: PBKDF2Loop) -> [SecretBytes] {
        precondition(iterations >= 1 && keyLength >= 1, "PBKDF2 needs at least one iteration and one byte")
        precondition(iterations <= Int(UInt32.max), "PBKDF2 iteration count out of range")
        guard !requests.isEmpty else { return [] }
        // OpenSSL set up our way first (no configuration read): a long password was once hashed
        // with SHA1(), whose EVP call initialised the library itself, configuration included,
        // when the set-up thread had not done it yet (scripts/check-startup.sh holds it back).
        initializeOpenSSL()
        let blocksPerKey = (keyLength + 19) / 20
        let chainCount = requests.count * blocksPerKey
        let words = UnsafeMutablePointer<UInt32>.allocate(capacity: chainCount * chainWords)
        words.initialize(repeating: 0, count: chainCount * chainWords)
        defer {
            OPENSSL_cleanse(words, chainCount * chainWords * MemoryLayout<UInt32>.stride)
            words.deallocate()
        }

        for (index, request) in requests.enumerated() {
            request.password.withUnsafeBytes { password in
                request.salt.withUnsafeBytes { salt in
                    prepareChains(password: password, salt: salt, blocks: blocksPerKey,
                                  into: words + index * blocksPerKey * chainWords)
                }
            }
        }

        if iterations > 1 {
            var done = false
            if loop == .sha {
                done = words.withMemoryRebound(to: rw_pbkdf2_chain.self, capacity: chainCount) {
                    rw_pbkdf2_sha1ni($0, chainCount, UInt32(iterations)) == 0
                }
            }
            if !done {
                runPortable(words, chains: chainCount, iterations: iterations)
            }
        }

        return (0..<requests.count).map { index in
            SecretBytes(count: keyLength) { out in
                for block in 0..<blocksPerKey {
                    let t = words + (index * blocksPerKey + block) * chainWords + 10
                    for word in 0..<5 {
                        var bigEndian = t[word].bigEndian
                        withUnsafeBytes(of: &bigEndian) { bytes in
                            for byte in 0..<4 where block * 20 + word * 4 + byte < keyLength {
                                out[block * 20 + word * 4 + byte] = bytes[byte]
                            }
                        }
                        bigEndian = 0
                    }
                }
            }
        }
    }

    /// Fills `blocks` chains for one password: inner and outer HMAC states, and U1 of each output block.
    private static func prepareChains(password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, blocks: Int, into chains: UnsafeMutablePointer<UInt32>) {
        // scratch: [0, 64) HMAC key, [64, 128) key ^ pad, [128, 148) inner digest, [148, 168) U1, [168, 172) INT(i)
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: 176, alignment: 16)
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: 176)
        var innerContext = SHA_CTX()
        var outerContext = SHA_CTX()
        var context = SHA_CTX()
        defer {
            OPENSSL_cleanse(scratch, 176)
            scratch.deallocate()
            withUnsafeMutableBytes(of: &innerContext) { OPENSSL_cleanse($0.baseAddress, $0.count) }
            withUnsafeMutableBytes(of: &outerContext) { OPENSSL_cleanse($0.baseAddress, $0.count) }
            withUnsafeMutableBytes(of: &context) { OPENSSL_cleanse($0.baseAddress, $0.count) }
        }
        let key = scratch.assumingMemoryBound(to: UInt8.self)
        let padded = key + 64
        let innerDigest = key + 128
        let u1 = key + 148
        let counter = key + 168

        // RFC 2104: a key longer than the block is replaced by its hash. SHA1_Init/Update/Final
        // (the method table these chains use), not the one-shot SHA1(): in OpenSSL 3 that goes
        // through EVP_Q_digest, whose first call fetches from the provider, filling the name map
        // and building every digest (0.35 ms). The SHA kernel's known answers hash a 70-byte
        // password, so every run on a CPU with SHA-NI paid it (never under valgrind, which has no
        // SHA-NI: callgrind's counts could not see it; OneMessageStartupTests counts the calls).
        if password.count > 64 {
            SHA1_Init(&context)
            SHA1_Update(&context, password.baseAddress, password.count)
            SHA1_Final(key, &context)
        } else if password.count > 0 {
            key.initialize(from: password.baseAddress!.assumingMemoryBound(to: UInt8.self), count: password.count)
        }

        for i in 0..<64 { padded[i] = key[i] ^ 0x36 }
        SHA1_Init(&innerContext)
        SHA1_Update(&innerContext, padded, 64)
        for i in 0..<64 { padded[i] = key[i] ^ 0x5c }
        SHA1_Init(&outerContext)
        SHA1_Update(&outerContext, padded, 64)

        for block in 0..<blocks {
            let chain = chains + block * chainWords
            storeState(innerContext, into: chain)
            storeState(outerContext, into: chain + 5)

            let index = UInt32(block + 1)
            counter[0] = UInt8(truncatingIfNeeded: index >> 24)
            counter[1] = UInt8(truncatingIfNeeded: index >> 16)
            counter[2] = UInt8(truncatingIfNeeded: index >> 8)
            counter[3] = UInt8(truncatingIfNeeded: index)
            context = innerContext
            if salt.count > 0 { SHA1_Update(&context, salt.baseAddress, salt.count) }
            SHA1_Update(&context, counter, 4)
            SHA1_Final(innerDigest, &context)
            context = outerContext
            SHA1_Update(&context, innerDigest, 20)
            SHA1_Final(u1, &context)
            for word in 0..<5 {
                chain[10 + word] = UInt32(bigEndian: UnsafeRawPointer(u1 + 4 * word).loadUnaligned(as: UInt32.self))
            }
        }
    }

    private static func storeState(_ context: SHA_CTX, into words: UnsafeMutablePointer<UInt32>) {
        words[0] = UInt32(context.h0)
        words[1] = UInt32(context.h1)
        words[2] = UInt32(context.h2)
        words[3] = UInt32(context.h3)
        words[4] = UInt32(context.h4)
    }

    /// Iterations 2…c of each chain with OpenSSL's `SHA1_Transform`: per iteration, two
    /// compressions of pre-padded blocks starting from the saved inner and outer states.
    private static func runPortable(_ words: UnsafeMutablePointer<UInt32>, chains: Int, iterations: Int) {
        // [0, 64): the inner block (U ‖ padding); [64, 128): the outer block (inner digest ‖ padding).
        let blocks = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 16)
        blocks.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
        var context = SHA_CTX()
        defer {
            OPENSSL_cleanse(blocks, 128)
            blocks.deallocate()
            withUnsafeMutableBytes(of: &context) { OPENSSL_cleanse($0.baseAddress, $0.count) }
        }
        let inner = blocks.assumingMemoryBound(to: UInt8.self)
        let outer = inner + 64
        // Padding of a 20-byte message after a 64-byte key block: 0x80, zeros, bit length 84 * 8 = 672.
        for block in [inner, outer] {
            block[20] = 0x80
            block[62] = 0x02
            block[63] = 0xA0
        }
        SHA1_Init(&context)

        for chainIndex in 0..<chains {
            let chain = words + chainIndex * chainWords
            let (i0, i1, i2, i3, i4) = (chain[0], chain[1], chain[2], chain[3], chain[4])
            let (o0, o1, o2, o3, o4) = (chain[5], chain[6], chain[7], chain[8], chain[9])
            var (t0, t1, t2, t3, t4) = (chain[10], chain[11], chain[12], chain[13], chain[14])
            store(t0, t1, t2, t3, t4, into: blocks)
            for _ in 1..<iterations {
                context.h0 = i0; context.h1 = i1; context.h2 = i2; context.h3 = i3; context.h4 = i4
                SHA1_Transform(&context, inner)
                store(context.h0, context.h1, context.h2, context.h3, context.h4, into: blocks + 64)
                context.h0 = o0; context.h1 = o1; context.h2 = o2; context.h3 = o3; context.h4 = o4
                SHA1_Transform(&context, outer)
                store(context.h0, context.h1, context.h2, context.h3, context.h4, into: blocks)
                t0 ^= context.h0; t1 ^= context.h1; t2 ^= context.h2; t3 ^= context.h3; t4 ^= context.h4
            }
            chain[10] = t0; chain[11] = t1; chain[12] = t2; chain[13] = t3; chain[14] = t4
            t0 = 0; t1 = 0; t2 = 0; t3 = 0; t4 = 0
        }
    }

    @inline(__always)
    private static func store(_ h0: UInt32, _ h1: UInt32, _ h2: UInt32, _ h3: UInt32, _ h4: UInt32, into block: UnsafeMutableRawPointer) {
        block.storeBytes(of: h0.bigEndian, toByteOffset: 0, as: UInt32.self)
        block.storeBytes(of: h1.bigEndian, toByteOffset: 4, as: UInt32.self)
        block.storeBytes(of: h2.bigEndian, toByteOffset: 8, as: UInt32.self)
        block.storeBytes(of: h3.bigEndian, toByteOffset: 12, as: UInt32.self)
        block.storeBytes(of: h4.bigEndian, toByteOffset: 16, as: UInt32.self)
    }
}
