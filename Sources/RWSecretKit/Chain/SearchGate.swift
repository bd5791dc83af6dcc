/// Lets the messages decrypted at the same time divide the chain between them and
/// share each winner the moment it is found, instead of queueing (issue 22).
///
/// Every message in flight walks its own chain: its keys depend on its own salt, so
/// no key can be shared. What is shared is knowledge. The messages of a run are
/// often under the same password (one password for all, or runs of one), and then
/// the first message to find it saves every other one the rest of its walk. So:
///
/// - **The winner first.** A message tries, before anything else it has not
///   tried, the password that opened the nearest of its neighbours (walks are
///   numbered as they begin, in input order; neighbours as far as the number of
///   walks in flight; earlier first on a tie), recorded the moment its HMAC
///   matches, not when its output is written; then the chain's head when it is a
///   winner (the password of the latest message written: `PasswordClient`'s
///   last-winner-first order). A message that started before a neighbour's winner
///   was found switches to it at its next key. At `--jobs 1` the only neighbour is
///   the previous message, so this is exactly the last-winner-first order, and
///   `--jobs 1` derives the keys it did.
/// - **Divide the rest.** Past the winners, a message claims the first password
///   in its chain order that no other walk in flight has claimed (tried, or is
///   trying). N messages looking for one unknown password thus sweep the chain
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
/// from 3 passwords derive the keys of `--jobs 1` (±3%) with N−1 or N keys in
/// flight 80–99% of the time; the 64-password chain exactly `--jobs 1`'s keys.
/// Runs of one password shorter than a few times N cost more (up to 1.25–1.4× at
/// N = 16 for runs of 15–20): the messages of a new run already in flight each
/// try the previous run's password once before a neighbour finds the new one.
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
        /// `remembered` walks' at most).
        var winners: [Int: String] = [:]
        /// For each password (by chain name): how many walks in flight are deriving its keys now.
        var trying: [String: Int] = [:]
        /// For each password: how many walks in flight have tried it, and it did not match.
        var failed: [String: Int] = [:]
        /// For each password ever claimed: when it was claimed last (claims are numbered).
        var claimed: [String: Int] = [:]
        var claims = 0
    }
    private let state = LockedState(State())
    /// How many walks' winners are kept (a walk looks only as far as the walks in flight).
    private static let remembered = 256

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

    /// A walk starts: it is in flight until `end(_:failed:)`. Returns its number: walks are
    /// numbered as they begin, which is the input order but for races between threads.
    func begin() -> Int {
        state.withLock { state in
            state.walks += 1
            state.begun += 1
            state.winners[state.begun - Self.remembered] = nil
            return state.begun
        }
    }

    /// Picks the next of `names` to try, from those that `untried` marks, and claims them
    /// for walk `walk`:
    /// 1. alone, the password that opened the nearest walk's message (in walk numbers,
    ///    earlier first on a tie) that this walk has not tried, among the neighbours
    ///    as far as the number of walks in flight: at `--jobs 1` the previous message's
    ///    alone, as in the chain's last-winner-first order;
    /// 2. else `preferred` alone (the chain's head, when it opened the latest message written);
    /// 3. else the first in the order of `names` that no other walk has claimed;
    /// 4. else the one the fewest other walks have tried in vain, the latest claimed first.
    /// 3 and 4 give `count` at once when this walk is the only one in flight (a lone message
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
    func claim(_ count: Int, of names: [String], untried: [Bool], preferred: Int?, walk: Int) -> [Int] {
        state.withLock { state in
            var picked: [Int] = []
            func take(_ index: Int) {
                picked.append(index)
                state.trying[names[index], default: 0] += 1
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
            if let preferred, untried[preferred] {
                take(preferred)
                return picked
            }
            let count = state.walks > 1 ? 1 : count
            var open = untried
            while picked.count < count {
                var best: (index: Int, failed: Int, claimed: Int)?
                for index in names.indices where open[index] {
                    let failed = state.failed[names[index], default: 0]
                    if failed == 0 && state.trying[names[index], default: 0] == 0 {
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
    func tried(_ names: [String], matched: String? = nil, opener: String? = nil, walk: Int) {
        state.withLock { state in
            for name in names {
                Self.decrement(&state.trying, name)
                if name != matched { state.failed[name, default: 0] += 1 }
            }
            if let opener {
                state.latest = opener
                state.winners[walk] = opener
            }
        }
    }

    /// A walk ends: its passwords tried in vain (`failed`) no longer count.
    func end(failed: [String]) {
        state.withLock { state in
            state.walks -= 1
            for name in failed { Self.decrement(&state.failed, name) }
        }
    }

    private static func decrement(_ counts: inout [String: Int], _ name: String) {
        if let count = counts[name], count > 1 { counts[name] = count - 1 } else { counts[name] = nil }
    }
}
