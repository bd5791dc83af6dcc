/// What a message may make a password cost before it opens (issue 32): the S2K derivations of
/// its session key packets, in bytes of work. An Argon2 derivation works through its memory once
/// a pass (passes × memory); an iterated one hashes its count of bytes once per digest the key
/// needs. Both run at about 1.4 GB a second on one core here (999 SKESKs at gpg's largest count,
/// 65 GB hashed, took 46.5 s), so `TryBudget.defaultKDFWork`, 12 GiB, is about 10 s a password.
extension OpenPGPS2K {
    /// The bytes of work one derivation of a key of `keyLength` bytes costs.
    package func work(keyLength: Int) -> Int {
        switch mode {
        case .argon2(_, let passes, _, _):
            return Int(passes) * memoryPerTry
        case .iterated(let salt, let count):
            let digest = OpenPGPHash.digestSize(hash)
            return max(count, salt.count) * max(1, (keyLength + digest - 1) / digest)
        case .simple, .salted:
            return 0
        }
    }
}

extension OpenPGPHash {
    /// The digest size in bytes of hash `id` (20 for one unknown: only an estimate depends on it).
    static func digestSize(_ id: UInt8) -> Int {
        switch id {
        case 1: 16
        case 8, 12: 32
        case 9: 48
        case 10, 14: 64
        case 11: 28
        default: 20
        }
    }
}

extension OpenPGPKind {
    /// Refuses, before any password is tried, a message whose derivations would cost a password
    /// more than `budget` allows: an Argon2 try needing more memory than `budget.argon2Memory`
    /// (`--memory` raises it), or key derivations, one or all of the session key packets' together
    /// (one per distinct S2K and key size, as `unlock` derives them), costing more work than
    /// `budget.kdfWork` (`--max-kdf-cost` raises it). The refusal names the cost and the option.
    package static func checkCost(_ header: Header, budget: TryBudget) throws(KindError) {
        var seen: [(OpenPGPS2K, Int)] = []
        var total = 0
        var costliest: (work: Int, s2k: OpenPGPS2K)? = nil
        for skesk in header.skesks {
            let size = skesk.cipher.keySize
            guard !seen.contains(where: { $0.0 == skesk.s2k && $0.1 == size }) else { continue }
            seen.append((skesk.s2k, size))
            if case .argon2 = skesk.s2k.mode, skesk.s2k.memoryPerTry > budget.argon2Memory {
                throw .refused("\(skesk.s2k.words) needs \(Self.size(skesk.s2k.memoryPerTry)) a try, more than the \(Self.size(budget.argon2Memory)) allowed "
                               + "(give --memory \(Self.option(skesk.s2k.memoryPerTry)) to allow it)")
            }
            let work = skesk.s2k.work(keyLength: size)
            total += work
            if work > (costliest?.work ?? -1) { costliest = (work, skesk.s2k) }
        }
        guard total > budget.kdfWork, let costliest else { return }
        let allowed = "more than the \(Self.size(budget.kdfWork)) allowed (about \(max(1, (budget.kdfWork + Self.workPerSecond / 2) / Self.workPerSecond)) s)"
        if costliest.work > budget.kdfWork {
            let how = if case .argon2 = costliest.s2k.mode { "passes × memory" } else { "bytes hashed" }
            throw .refused("\(costliest.s2k.words) costs \(Self.size(costliest.work)) of work a try (\(how)), \(allowed); "
                           + "give --max-kdf-cost \(Self.option(costliest.work)) to try it")
        }
        throw .refused("\(header.skesks.count) session key packets cost \(Self.size(total)) of key derivation a password in all, \(allowed); "
                       + "give --max-kdf-cost \(Self.option(total)) to try them")
    }

    /// About how many bytes of work a second is (see above): for the words only.
    static let workPerSecond = 1_300_000_000

    /// `bytes` in GiB (one decimal) or MiB.
    private static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 30 {
            let tenths = (bytes * 10 + (1 << 30) - 1) >> 30
            return tenths % 10 == 0 ? "\(tenths / 10) GiB" : "\(tenths / 10).\(tenths % 10) GiB"
        }
        return "\((bytes + (1 << 20) - 1) >> 20) MiB"
    }

    /// `bytes` rounded up, as an option's size (`510G`, `700M`).
    private static func option(_ bytes: Int) -> String {
        bytes >= 1 << 30 ? "\((bytes + (1 << 30) - 1) >> 30)G" : "\((bytes + (1 << 20) - 1) >> 20)M"
    }
}
