internal import Synchronization

/// Test-only: on which threads the key derivations of a watched password ran, so that a test can
/// show an `async` form running its derivation on the scheduler's pool (`BlockingWork`), not on
/// the awaiting task's thread. The derivations themselves (RNCryptor's PBKDF2, scrypt, OpenPGP's
/// S2K) say each password they derive from; while nothing is watched that costs one relaxed
/// atomic load. A password is matched by its bytes, compared here and never kept beyond
/// `seen(_:)`, logged or counted; tests watch a random password of their own, so the parallel
/// suite's other derivations never match. `package`: the product never watches.
package enum DerivationWitness {
    private static let watching = Atomic<Int>(0)
    private static let watched = Mutex<[(password: SecretBytes, onPool: [Bool])]>([])

    /// Starts recording the derivations from `password`'s bytes.
    package static func watch(_ password: SecretBytes) {
        watched.withLock { $0.append((password, [])) }
        watching.add(1, ordering: .relaxed)
    }

    /// Stops watching `password`: for each derivation from it since `watch`, in order, whether
    /// it ran on a thread of `Scheduler.shared`'s pool.
    package static func seen(_ password: SecretBytes) -> [Bool] {
        let found = watched.withLock { entries -> [Bool] in
            guard let index = entries.firstIndex(where: { $0.password === password }) else { return [] }
            return entries.remove(at: index).onPool
        }
        watching.subtract(1, ordering: .relaxed)
        return found
    }

    /// A derivation from `password` runs on this thread now.
    package static func deriving(from password: some ContiguousByteStorage) {
        guard watching.load(ordering: .relaxed) > 0 else { return }
        let onPool = Scheduler.shared.isPoolThread
        password.withUnsafeBytes { raw in
            watched.withLock { entries in
                for index in entries.indices where entries[index].password.withUnsafeBytes({ $0.elementsEqual(raw) }) {
                    entries[index].onPool.append(onPool)
                }
            }
        }
    }
}
