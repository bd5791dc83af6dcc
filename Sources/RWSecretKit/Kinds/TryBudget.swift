/// What the tries of a costly key derivation (age's scrypt; OpenPGP's Argon2 on the same
/// terms) may take at once: threads and memory. One value per run (`decrypt --jobs`,
/// `--memory`), handed to every kind that tries several passwords in parallel.
///
/// A budget smaller than one try still allows one try at a time: the budget bounds how many
/// run together, never whether a message can be opened (a work factor's own limit, such as
/// age's 22, is what refuses a derivation too costly to run at all).
package struct TryBudget: Sendable, Equatable {
    /// Threads to use.
    package var jobs: Int
    /// Bytes all the tries at once may use.
    package var memory: Int
    /// The bytes of key-derivation work a message may ask of one password (OpenPGP's S2Ks:
    /// Argon2's passes × memory, an iterated count's bytes hashed; `OpenPGPKind.checkCost`).
    package var kdfWork: Int

    /// About 10 s of derivation a password on one core (`OpenPGPCost.swift`): `--max-kdf-cost`'s default.
    package static let defaultKDFWork = 12 << 30

    package init(jobs: Int, memory: Int, kdfWork: Int = TryBudget.defaultKDFWork) {
        self.jobs = max(1, jobs)
        self.memory = max(0, memory)
        self.kdfWork = max(0, kdfWork)
    }

    /// The most memory one Argon2 try may need: 4 GiB, or the memory budget when it is larger.
    package var argon2Memory: Int { max(OpenPGPS2K.argon2MemoryLimit, memory) }

    /// One try at a time, whatever it costs.
    package static let oneAtATime = TryBudget(jobs: 1, memory: 0)

    /// How many tries of `perTry` bytes each run at once for `count` candidates: at most
    /// `jobs` threads (a try may take `threads` of its own, as Argon2's lanes do), as many as
    /// `memory` holds, and at least one.
    package func atOnce(count: Int, perTry: Int, threads: Int = 1) -> Int {
        let byThreads = jobs / max(1, threads)
        return max(1, min(byThreads, count, perTry > 0 ? memory / perTry : byThreads))
    }
}
