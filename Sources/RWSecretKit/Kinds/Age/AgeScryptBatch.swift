import Dispatch

/// Several passwords tried at once against an age scrypt stanza: each try costs one scrypt
/// (age's default, work factor 18: 256 MiB and about a second), so up to `jobs` run on threads
/// of their own, as many as `memoryBudget` holds. The outcome is decided in chain order: the
/// first password of the list whose file key unwraps wins, whatever finishes first.
package struct AgeScryptBatch {
    /// Threads to use.
    package var jobs: Int
    /// Bytes all the tries at once may use.
    package var memoryBudget: Int

    package init(jobs: Int, memoryBudget: Int) {
        self.jobs = max(1, jobs)
        self.memoryBudget = memoryBudget
    }

    /// The memory one scrypt of work factor `logN` (r = 8) needs.
    package static func memoryPerTry(logN: Int) -> Int { 128 * 8 << logN }

    /// How many tries run at once for `count` passwords at work factor `logN`.
    package func atOnce(count: Int, logN: Int) -> Int {
        atOnce(count: count, memoryPerTry: Self.memoryPerTry(logN: logN))
    }

    /// How many tries of any costly KDF (scrypt, OpenPGP's Argon2 or iterated S2K) run at once
    /// for `count` passwords, each needing `memoryPerTry` bytes and `threads` threads of its own.
    package func atOnce(count: Int, memoryPerTry: Int, threads: Int = 1) -> Int {
        max(1, min(jobs / max(1, threads), count, memoryBudget / max(1, memoryPerTry)))
    }

    /// What a run of tries cost, for the verbose line.
    package struct Cost: Sendable {
        package let logN: Int
        package let atOnce: Int
        package let tries: Int
        package let milliseconds: Int
        /// Another KDF than scrypt (OpenPGP's S2K): its description and memory per try.
        package var kdf: String? = nil
        package var memoryPerTry = 0

        package var words: String {
            if let kdf {
                let memory = memoryPerTry >= 1 << 20 ? "\(memoryPerTry >> 20) MiB" : "\(memoryPerTry >> 10) KiB"
                return "\(kdf): \(memory) per try, \(tries) tried, \(atOnce) at once, \(milliseconds) ms"
            }
            let mib = AgeScryptBatch.memoryPerTry(logN: logN) >> 20
            return "scrypt work factor \(logN): \(mib) MiB per try, \(tries) tried, \(atOnce) at once, \(milliseconds) ms"
        }
    }

    /// Tries `passwords` in order, `atOnce` at a time: the index and file key of the first that
    /// opens the stanza (its header MAC checked), or nil; and what it cost.
    package func unlock(_ header: AgeKind.Header, passwords: [SecretBytes]) throws(KindError) -> (found: (index: Int, fileKey: SecretBytes)?, cost: Cost)? {
        guard let scrypt = header.scrypt, !passwords.isEmpty else { return nil }
        let width = atOnce(count: passwords.count, logN: scrypt.logN)
        let clock = ContinuousClock()
        let started = clock.now
        var tried = 0
        func cost() -> Cost {
            let elapsed = clock.now - started
            let ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
            return Cost(logN: scrypt.logN, atOnce: width, tries: tried, milliseconds: ms)
        }
        var start = 0
        while start < passwords.count {
            let batch = Array(passwords[start..<min(start + width, passwords.count)])
            let slots = ResultSlots<AgeKind.ScryptUnwrap>(count: batch.count)
            let unwrap: @Sendable (Int) -> Void = { index in
                slots[index] = AgeKind.unwrapScrypt(scrypt, password: batch[index])
            }
            if batch.count > 1 {
                DispatchQueue.concurrentPerform(iterations: batch.count, execute: unwrap)
            } else {
                unwrap(0)
            }
            for index in 0..<batch.count {
                tried += 1
                switch slots[index] {
                case .refused?: throw .header("scrypt refused work factor \(scrypt.logN)")
                case .opened(let fileKey)?:
                    try AgeKind.checkMAC(header, fileKey: fileKey)
                    return ((start + index, fileKey), cost())
                default: continue
                }
            }
            start += batch.count
        }
        return (nil, cost())
    }
}
