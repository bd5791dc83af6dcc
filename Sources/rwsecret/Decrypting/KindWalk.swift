import RWSecretKit

/// Whole files of another kind on the pipeline's threads (issue 36): each walks the chain in
/// the run's order (the library's `Decryption.placement` and `Decryption.open`), N at a time at --jobs N.
///
/// The first whole file of a run is opened alone on the reading thread, everything before
/// it written first: it opens the store when it needs it (a store that cannot be opened
/// stops the run, 69, as at --jobs 1) and finds the first winner, which every later file
/// then tries first instead of each walking the chain from its start. A file whose one
/// costly try (scrypt, Argon2) needs more than its share of the memory budget
/// (`--memory` over --jobs) is opened alone too, with the whole budget; the others use their
/// share each, so the files in flight stay within the budget together.
extension KindDecryption {
    /// The work of the whole file `message` (the regular file `input`) at --jobs 2 and more.
    func wholeFile(_ message: Decryption.WholeMessage, input: InputFile, index: Int) throws -> KindWork {
        let place = RecordWriter.Place(input: index, source: input.name, line: 1, id: nil, kind: message.kind, wholeFile: true)
        let placement: Decryption.Placement
        do { placement = try session.decryption.placement(of: message, identities: identities, memory: memory) } catch let error as StoreError {
            throw CommandFailure(error)
        }
        if placement.alone {
            return .alone { [self] in
                let made = try record(message, place: place)
                if let winner = made.winner { session.decryption.openedAlone(by: .password(winner)) }
                return [made]
            }
        }
        let bytes = Int((try? input.status().st_size) ?? 0)
        let make: @Sendable (Int, Int) -> KindRecord = { [self] threads, position in
            do {
                return try record(message, place: place, position: position, threads: threads, memory: placement.memory)
            } catch {
                // A store that fails on a pipeline thread fails this record (as for `!vault` values).
                let reason = (error as? CommandFailure)?.message ?? "\(error)"
                return KindRecord(place: place, result: .failure(.otherKind(reason)), winner: nil)
            }
        }
        return .items([(bytes, make, true)])
    }
}
