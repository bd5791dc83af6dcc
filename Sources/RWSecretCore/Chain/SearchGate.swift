/// Lets the messages decrypted at the same time divide the chain between them and
/// share each winner the moment it is found, instead of queueing (issue 22).
///
/// Every message in flight walks its own chain: its keys depend on its own salt, so
/// no key can be shared. What is shared is knowledge. The messages of a run are
/// often under the same password (one password for all, or runs of one), and then
/// the first message to find it saves every other one the rest of its walk. So:
///
/// - **The winner first.** A message tries, before anything else it has not
///   tried, the password that opened the nearest of its neighbours (by place in the
///   input, which the tool gives; else walks are numbered as they begin; neighbours
///   as far as the number of walks in flight; earlier first on a tie), recorded the
///   moment its HMAC matches, not when its output is written; then the password of
///   the nearest earlier message opened, however far back, and of the nearest later
///   one; then the chain's head when it is a winner (the password of the latest
///   message written: `PasswordClient`'s last-winner-first order). A message that
///   started before a neighbour's winner was found switches to it at its next key.
///   At `--jobs 1` the only neighbour is the previous message, so this is exactly
///   the last-winner-first order, and `--jobs 1` derives the keys it did.
/// - **Stretches, not a front.** The tool's threads each work through a stretch of
///   consecutive messages (`OrderedPipeline`), so a message's predecessor is
///   usually opened before it starts and the password of its run is known, as in N
///   separate processes over 1/N of the input. Were the N messages in flight the
///   next N of the input, each would try the previous run's password once when the
///   password changes (1.13× the keys of `--jobs 1` at N = 8, 1.25× at 16, on runs of
///   1–40 messages under one of 3 passwords). A stretch's first message finds its
///   run through the nearest messages opened before and after it.
/// - **Divide the rest.** Past the winners, a message claims the first password
///   in its chain order that no related walk in flight has claimed (tried, or is
///   trying): a walk is related when no message between the two was opened (one
///   opened between them would have opened both, were they in one run). A walk in
///   another run says nothing of this one's password. N messages looking for one unknown password thus sweep the chain
///   about once between them, not N times: 8 messages on 64 passwords with the
///   right one last try 8 each, and the one that finds it hands it to the other
///   seven, which then need one key each — the keys of `--jobs 1` (64 for the
///   first message, 1 for each next). When every password it has not tried is
///   claimed, it takes the one the fewest walks tried in vain, the latest claimed
///   first (`claim`). Claims are released when their walk ends.
/// - **Never wait.** A message never waits for another. Messages under different
///   passwords (random draws) need their own walks, and the order of a walk past
///   the winners does not change what it costs on average, so they run as N
///   separate processes would, each core deriving a key.
///
/// What it costs (`ScaleModelTests`, docs/performance-scaling.md): random draws
/// from 3 passwords derive the keys of `--jobs 1` (±1%) with N−1 or N keys in
/// flight 85–99% of the time; the 64-password chain exactly `--jobs 1`'s keys; runs
/// of 1–40 messages under one password 1.00–1.03× (3,000 messages, 3 or 64
/// passwords, N = 2, 8, 16), more on small inputs, whose ends are a larger share.
///
/// The outcome does not depend on this order: a message is opened by the first
/// password in its chain order whose key form matches (see `PasswordHandler`), and
/// a message that no password opens has tried them all (`tried` counts passwords).
///
/// The gate before this one let a single message at a time walk past the head;
/// with random draws from 3 passwords, two messages in three do, so a run stopped
/// scaling after about three cores (on 16 CPUs, `--jobs 16` had 0.29× the
/// throughput of 16 processes).
package final class SearchGate: Sendable {
    private struct State {
        /// The password that matched most recently.
        var latest: String?
        /// Walks begun (their numbers), and walks in flight.
        var begun = 0
        var walks = 0
        /// The password that opened each recent walk's message, by walk number (the last
        /// `remembered` at most), and those numbers in order.
        var winners: [Int: String] = [:]
        var winnerNumbers: [Int] = []
        /// The walks in flight, by number: the passwords (chain names) each is deriving the keys
        /// of now, and those it has tried in vain.
        var inFlight: [Int: (trying: Set<String>, failed: Set<String>)] = [:]
        /// For each password ever claimed: when it was claimed last (claims are numbered).
        var claimed: [String: Int] = [:]
        var claims = 0
    }
    private let state = LockedState(State())
    /// How many walks' winners are kept (the nearest earlier one may be as far back as the
    /// tool's pipeline window).
    private static let remembered = 4096

    /// A gate for one run: share it between the messages decrypted at the same time.
    package init() {}

    /// Records that `name` opened a message (outside any walk of this gate).
    package func opened(_ name: String) {
        state.withLock { $0.latest = name }
    }

    /// The name of the password that opened the latest message, if any.
    package var latestOpener: String? {
        state.withLock { $0.latest }
    }

    /// A walk starts: it is in flight until `end(_:failed:)`. Returns its number: `position`
    /// (the message's place in the input) when given, else walks are numbered as they
    /// begin, which is the input order but for races between threads.
    package func begin(at position: Int? = nil) -> Int {
        state.withLock { state in
            state.walks += 1
            state.begun += 1
            let number = position ?? state.begun
            state.inFlight[number] = ([], [])
            return number
        }
    }

    /// Picks the next of `names` to try, from those that `untried` marks, and claims them
    /// for walk `walk`:
    /// 1. alone, the password that opened the nearest walk's message (in walk numbers,
    ///    earlier first on a tie) that this walk has not tried, among the neighbours
    ///    as far as the number of walks in flight: at `--jobs 1` the previous message's
    ///    alone, as in the chain's last-winner-first order;
    /// 2. else the password of the nearest earlier message opened, then of the nearest later one;
    /// 3. else `preferred` alone (the chain's head, when it opened the latest message written);
    /// 4. else the first in the order of `names` that no related walk (none opened between) has claimed;
    /// 5. else the one the fewest related walks have tried in vain, the latest claimed first.
    /// 4 and 5 give `count` at once when this walk is the only one in flight (a lone message
    /// may derive several keys at once; beside others, each core already has a walk).
    /// Returns their indices (none when nothing is untried).
    ///
    /// The nearest walk, not the latest to finish: messages under one password come in
    /// runs, and in flight are neighbours in the input, some of them across the start of a
    /// run; the nearest one's password is this one's most likely. A password others are
    /// trying beats one they tried in vain: for a message under the same password as
    /// theirs, the first may be the winner, the second is not. Among those others are
    /// trying, the one claimed last goes first: the walks sweep the chain in order, so it
    /// is the one whose outcome comes last, and the others' come before this walk's key is
    /// ready. At the end of a sweep it is the winner's: the walks that run out of unclaimed
    /// passwords meanwhile all try it, which each of them needs, rather than passwords other
    /// walks are about to fail (16 walks, 64 passwords, the right one last, 20 messages:
    /// 103 keys as at `--jobs 1`, not 116, in the scale model).
    package func claim(_ count: Int, of names: [String], untried: [Bool], preferred: Int?, walk: Int) -> [Int] {
        state.withLock { state in
            var picked: [Int] = []
            func take(_ index: Int) {
                picked.append(index)
                state.inFlight[walk]?.trying.insert(names[index])
                state.claims += 1
                state.claimed[names[index]] = state.claims
            }
            // Neighbours within the walks in flight (at --jobs 1, the previous message alone).
            for distance in 1...max(1, state.walks) {
                for neighbour in [walk - distance, walk + distance] {
                    if let name = state.winners[neighbour], let winner = names.indices.first(where: { untried[$0] && names[$0] == name }) {
                        take(winner)
                        return picked
                    }
                }
            }
            // Else the nearest earlier message with a winner, however far back, then the nearest
            // later one: where the tool's threads work through stretches of the input
            // (`OrderedPipeline`), the end of the stretch before this one, and the start of the
            // stretch after it, which may be in the same run of one password and have found it
            // already. At --jobs 1 the earlier one is the previous message written, whose winner
            // heads the chain (`preferred`), and no later one is known: the order is the same.
            for nearest in [Self.nearestEarlier(than: walk, state.winnerNumbers), Self.nearestLater(than: walk, state.winnerNumbers)] {
                if let nearest, let name = state.winners[nearest],
                   let winner = names.indices.first(where: { untried[$0] && names[$0] == name }) {
                    take(winner)
                    return picked
                }
            }
            if let preferred, untried[preferred] {
                take(preferred)
                return picked
            }
            let count = state.walks > 1 ? 1 : count
            // Divided with the walks that may be looking for the same password: those with no
            // message opened between them and this one (a message opened between two walks
            // would have opened both, had they been in one run of one password). A walk far
            // off in the input, in another run, says nothing of this one's password: dividing
            // with it would only put off the passwords it happens to have tried.
            var trying: [String: Int] = [:]
            var failed: [String: Int] = [:]
            for (other, sets) in state.inFlight where other != walk && Self.noneBetween(walk, other, state.winnerNumbers) {
                for name in sets.trying { trying[name, default: 0] += 1 }
                for name in sets.failed { failed[name, default: 0] += 1 }
            }
            var open = untried
            while picked.count < count {
                var best: (index: Int, failed: Int, claimed: Int)?
                for index in names.indices where open[index] {
                    let failed = failed[names[index], default: 0]
                    if failed == 0 && trying[names[index], default: 0] == 0 {
                        best = (index, 0, 0)
                        break
                    }
                    let claimed = state.claimed[names[index]] ?? 0
                    if best == nil || (failed, -claimed) < (best!.failed, -best!.claimed) { best = (index, failed, claimed) }
                }
                guard let best else { break }
                open[best.index] = false
                take(best.index)
            }
            return picked
        }
    }

    /// The keys of `names` (claimed by `claim`) are derived: none matched, or the key of
    /// `matched` did, and `opener` opened walk `walk`'s message (the first password in
    /// chain order with that key form: usually `matched`).
    package func tried(_ names: [String], matched: String? = nil, opener: String? = nil, walk: Int) {
        state.withLock { state in
            for name in names {
                state.inFlight[walk]?.trying.remove(name)
                if name != matched { state.inFlight[walk]?.failed.insert(name) }
            }
            if let opener {
                state.latest = opener
                if state.winners.updateValue(opener, forKey: walk) == nil {
                    let place = Self.insertionPoint(of: walk, in: state.winnerNumbers)
                    state.winnerNumbers.insert(walk, at: place)
                    if state.winnerNumbers.count > Self.remembered {
                        state.winners[state.winnerNumbers.removeFirst()] = nil
                    }
                }
            }
        }
    }

    /// Walk `walk` ends: what it claimed and tried no longer counts.
    package func end(walk: Int) {
        state.withLock { state in
            state.walks -= 1
            state.inFlight[walk] = nil
        }
    }

    /// Whether no message between walks `one` and `other` was opened (`numbers`: sorted).
    private static func noneBetween(_ one: Int, _ other: Int, _ numbers: [Int]) -> Bool {
        let (low, high) = (min(one, other), max(one, other))
        return insertionPoint(of: low, in: numbers) == insertionPoint(of: high - 1, in: numbers)
    }

    /// The index in sorted `numbers` at which `number` would go (after any equal ones).
    private static func insertionPoint(of number: Int, in numbers: [Int]) -> Int {
        var low = 0, high = numbers.count
        while low < high {
            let middle = (low + high) / 2
            if numbers[middle] <= number { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The greatest of sorted `numbers` below `number`.
    private static func nearestEarlier(than number: Int, _ numbers: [Int]) -> Int? {
        let place = insertionPoint(of: number - 1, in: numbers)
        return place > 0 ? numbers[place - 1] : nil
    }

    /// The least of sorted `numbers` above `number`.
    private static func nearestLater(than number: Int, _ numbers: [Int]) -> Int? {
        let place = insertionPoint(of: number, in: numbers)
        return place < numbers.count ? numbers[place] : nil
    }
}
