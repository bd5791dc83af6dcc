/// Several passwords tried at once against an age scrypt stanza: each try costs one scrypt
/// (age's default, work factor 18: 256 MiB and about a second), so up to `jobs` run at once, on
/// this thread and the scheduler's threads free to help (`Scheduler`), as many as the run's
/// memory budget (`TryBudget`, drawn from the scheduler's one budget) holds. The outcome is decided
/// in chain order: the first password of the list whose file key unwraps wins, whatever
/// finishes first.
package struct AgeScryptBatch {
    package var budget: TryBudget

    package init(budget: TryBudget) { self.budget = budget }

    package init(jobs: Int, memoryBudget: Int) { budget = TryBudget(jobs: jobs, memory: memoryBudget) }

    /// The memory one scrypt of work factor `logN` (r = 8) needs.
    package static func memoryPerTry(logN: Int) -> Int { 128 * 8 << logN }

    /// How many tries run at once for `count` passwords at work factor `logN`.
    package func atOnce(count: Int, logN: Int) -> Int {
        budget.atOnce(count: count, perTry: Self.memoryPerTry(logN: logN))
    }

    /// What a run of tries cost, for the verbose line.
    package struct Cost: Sendable {
        package let logN: Int
        package let atOnce: Int
        package let tries: Int
        package let milliseconds: Int
        /// The budget's memory, in bytes.
        package var budget = 0
        /// Another KDF than scrypt (OpenPGP's S2K): its description and memory per try.
        package var kdf: String? = nil
        package var memoryPerTry = 0
        /// How many ran at once when an allocation failed, after which the rest ran one at a time (0: none failed).
        package var narrowedFrom = 0

        /// `scrypt work factor 18: 256 MiB per try, 4 tried, 2 at once (memory budget 11.2 GiB), 2010 ms, about 1005 ms a try`:
        /// a try's wall time is that of its round (tries run `atOnce` at a time).
        package var words: String {
            let narrowed = narrowedFrom > 1 ? " (memory ran out for \(narrowedFrom) at once: then one at a time)" : ""
            return wordsWithoutNarrowing + narrowed
        }

        private var wordsWithoutNarrowing: String {
            if let kdf {
                let memory = memoryPerTry >= 1 << 20 ? "\(memoryPerTry >> 20) MiB" : "\(memoryPerTry >> 10) KiB"
                return "\(kdf): \(memory) per try, \(tries) tried, \(atOnce) at once (memory budget \(Self.size(budget))), \(milliseconds) ms"
            }
            let mib = AgeScryptBatch.memoryPerTry(logN: logN) >> 20
            let rounds = max(1, (tries + atOnce - 1) / max(1, atOnce))
            return "scrypt work factor \(logN): \(mib) MiB per try, \(tries) tried, \(atOnce) at once (memory budget \(Self.size(budget))), "
                + "\(milliseconds) ms, about \(milliseconds / rounds) ms a try"
        }

        /// 300 MiB, 11.2 GiB
        static func size(_ bytes: Int) -> String {
            if bytes >= 1 << 30 { return "\((Double(bytes) / Double(1 << 30) * 10).rounded() / 10) GiB" }
            return "\(bytes >> 20) MiB"
        }
    }

    /// The failure when even one scrypt at a time could not get its memory.
    package static func outOfMemory(logN: Int) -> KindError {
        .outOfMemory("scrypt work factor \(logN) needs \(memoryPerTry(logN: logN) >> 20) MiB for one try, more than this process may allocate")
    }

    /// Tries `passwords` in order, `atOnce` at a time: the index and file key of the first that
    /// opens the stanza (its header MAC checked), or nil; and what it cost.
    ///
    /// A try whose memory could not be allocated (the budget read the process's limits too
    /// generously) is tried again, and every later one too, one at a time; when one at a time
    /// fails too, memory ran out (`.outOfMemory`), which never reads as a damaged file.
    package func unlock(_ header: AgeKind.Header, passwords: [SecretBytes]) throws(KindError) -> (found: (index: Int, fileKey: SecretBytes)?, cost: Cost)? {
        guard let scrypt = header.scrypt, !passwords.isEmpty else { return nil }
        var width = atOnce(count: passwords.count, logN: scrypt.logN)
        var narrowedFrom = 0
        let clock = ContinuousClock()
        let started = clock.now
        var tried = 0
        func cost() -> Cost {
            let elapsed = clock.now - started
            let ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
            return Cost(logN: scrypt.logN, atOnce: width, tries: tried, milliseconds: ms, budget: budget.memory, narrowedFrom: narrowedFrom)
        }
        var start = 0
        while start < passwords.count {
            let batch = Array(passwords[start..<min(start + width, passwords.count)])
            let slots = ResultSlots<AgeKind.ScryptUnwrap>(count: batch.count)
            let unwrap: @Sendable (Int) -> Void = { index in
                slots[index] = AgeKind.unwrapScrypt(scrypt, password: batch[index])
            }
            // The batch's memory comes from the run's one budget (a chunk ring's buffers draw from it too).
            let memory = Scheduler.shared.reserve(batch.count * Self.memoryPerTry(logN: scrypt.logN), within: budget.memory)
            Scheduler.shared.forEach(batch.count, width: batch.count, unwrap)
            memory.release()
            var retry: Int?
            for index in 0..<batch.count {
                if case .outOfMemory? = slots[index] {
                    guard batch.count > 1 else { throw Self.outOfMemory(logN: scrypt.logN) }
                    retry = index
                    break
                }
                tried += 1
                switch slots[index] {
                case .refused?: throw .header("scrypt refused work factor \(scrypt.logN)")
                case .opened(let fileKey)?:
                    try AgeKind.checkMAC(header, fileKey: fileKey)
                    return ((start + index, fileKey), cost())
                default: continue
                }
            }
            if let retry {
                // The tries before it were wrong passwords; it and the rest go one at a time.
                narrowedFrom = width
                width = 1
                start += retry
                continue
            }
            start += batch.count
        }
        return (nil, cost())
    }
}
