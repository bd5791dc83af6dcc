/// One run of decryption over many messages, as `rwsecret decrypt` makes it: the messages of
/// a run (the rows of `MessageRows`, in any order, on any thread) share one client's chain and
/// each winner, and a reporter of yours is asked at most once for one more password.
///
/// For each message: `attempt(_:)` decides what opening it takes, before any key is derived
/// (a legacy version refused, with the store left closed; the chain's head, opening the store
/// the first time a password-based message needs it; nothing to try); then
/// `Attempt.open(threads:position:naming:)` opens it (on any thread: the threads it may
/// use, and its place in the run, as `OrderedPipeline` gives them). Messages in flight at
/// once divide the chain between them and share each winner (the stretch ordering that makes
/// `--jobs N` derive about the keys of `--jobs 1`); once a message's result is used, tell the
/// run what opened it (``finished(openedBy:)``): it goes first for the messages after it.
///
/// When no password of the chain opens a password-based message, the ``DecryptionReporter``
/// (the tool's terminal) is asked once for the run; the password it gives is tried on that
/// message and, from then on, first on every message (`PasswordClient` keeps it, unstored).
/// Blocks while it derives keys; the async forms of `PasswordClient` and `MessageOpener` run
/// single messages off the caller's thread.
public final class Decryption: Sendable {
    /// How a run works.
    public struct Options: Sendable {
        /// Messages opened at once (`--jobs`), at least 1.
        public var jobs: Int
        /// The bytes of key-derivation work an OpenPGP message may ask of each password (its
        /// S2K: Argon2's passes × memory, an iterated count's bytes hashed; `--max-kdf-cost`): a
        /// message that asks more is refused before any password is tried.
        public var kdfWork: Int

        /// The most work a message may ask of each password unless told otherwise: 12 GiB,
        /// about 10 s of derivation on one core.
        public static let defaultKDFWork = TryBudget.defaultKDFWork

        /// Options with `jobs` messages at once (at least 1) and `kdfWork` bytes of key-derivation work.
        public init(jobs: Int = 1, kdfWork: Int = defaultKDFWork) {
            self.jobs = max(1, jobs)
            self.kdfWork = max(0, kdfWork)
        }
    }

    /// The client whose chain opens the run's messages.
    public let client: PasswordClient
    /// How the run works.
    public let options: Options
    /// Messages in flight divide the chain between them and share each winner (also the walks
    /// of whole files of other kinds).
    package let gate = SearchGate()
    /// The run's whole files of other kinds: whether one went first, and those walking the chain.
    package let wholeFiles = WholeFiles()
    private let reporter: (any DecryptionReporter)?
    /// The reporter's answer, once asked.
    private let asked = LockedState<ChainPassword??>(nil)

    /// A run over `client`'s chain; `reporter` is asked for one more password when none opens a message.
    public init(client: PasswordClient, options: Options = Options(), reporter: (any DecryptionReporter)? = nil) {
        self.client = client
        self.options = options
        self.reporter = reporter
    }

    /// Why the client refuses `message` with no key derived and the store left closed: a
    /// legacy version (0 or 1) that its `LegacyFormats` does not allow; nil when it does not.
    public func refusal(of message: MessageRows.Message) -> DecryptionFailure? {
        client.refusal(of: message.parsed.header)
    }

    /// What opening `message` takes, decided before any key is derived: a legacy version
    /// refused (the store left closed, ``Attempt/failure``), or the chain that may open it (the
    /// store opened the first time a password-based message needs it), or nothing to try
    /// (``Attempt/chainIsEmpty``). Throws what the client's store opener threw (a `StoreError`).
    public func attempt(_ message: MessageRows.Message) throws -> Attempt {
        if let refusal = refusal(of: message) {
            return Attempt(message: message, head: nil, failure: refusal, chainIsEmpty: false, run: self)
        }
        guard let head = try client.chainHead(for: message.parsed.header) else {
            return Attempt(message: message, head: nil, failure: .endOfChain(for: message.parsed.header), chainIsEmpty: true, run: self)
        }
        return Attempt(message: message, head: head, failure: nil, chainIsEmpty: false, run: self)
    }

    /// Tells the run what opened the message whose result was just used: a password goes
    /// first for the messages after it.
    public func finished(openedBy opener: Opener) {
        client.messageFinished(openedBy: opener)
    }

    /// The opening of one message, decided: `open(threads:position:naming:)` runs it.
    public struct Attempt: Sendable {
        /// The message.
        public let message: MessageRows.Message
        fileprivate let head: (any DecryptionHandler)?
        /// Why it fails with no key derived: a legacy version refused, or nothing to try.
        public let failure: DecryptionFailure?
        /// The chain holds nothing that may open it (no password for a password-based message,
        /// no key for a key-based one): ``failure`` says so, and a run may stop here.
        public let chainIsEmpty: Bool
        fileprivate let run: Decryption

        /// Opens the message on up to `threads` threads: the chain's passwords in the run's order
        /// (the last winner first; `position` is its place in the run, which the messages in
        /// flight share the chain by), then, when none opened a password-based message, the
        /// reporter's password (`what` names the message to it). ``failure`` when it was decided.
        public func open(threads: Int = 1, position: Int = 0, naming what: @autoclosure () -> String) -> Result<Decrypted, DecryptionFailure> {
            if let failure { return .failure(failure) }
            guard let head else { return .failure(.endOfChain(for: message.parsed.header)) }
            // Taken apart, not copied whole: a copy of the Result asked the runtime for its
            // metadata, which checks `DecryptionFailure: Error` by scanning every conformance
            // record of the program (issue 36).
            switch head.handle(message.parsed, parallelism: max(1, threads), gate: run.gate, position: position) {
            case .success(let decrypted):
                return .success(decrypted)
            case .failure(let failure):
                guard failure.code == .noPasswordOpened, let asked = run.askedHandler(after: what(), chain: head) else { return .failure(failure) }
                if case .success(let decrypted) = asked.handle(message.parsed, parallelism: max(1, threads)) { return .success(decrypted) }
                return .failure(failure)
            }
        }
    }

    /// The reporter's password for this run: asked the first time (naming `what`, the message
    /// that did not open), the same answer after; nil when there is no reporter or it gave none.
    /// Other messages that fail meanwhile wait for the answer. The client keeps it, first.
    package func askedPassword(after what: String) -> ChainPassword? {
        guard let reporter else { return nil }
        return asked.withLock { answer in
            if let given = answer { return given }
            answer = .some(nil)
            guard let password = reporter.password(afterNoneOpened: what) else { return nil }
            client.add(password)
            answer = .some(password)
            return password
        }
    }

    /// The reporter's password alone as a chain, for a message that `chain` did not open (asked
    /// now if it was not yet); nil when there is none to try, or `chain` tried it already.
    package func askedHandler(after what: String, chain: (any DecryptionHandler)?) -> (any DecryptionHandler)? {
        guard let password = askedPassword(after: what) else { return nil }
        if chain?.chainPasswords().contains(where: { $0.name == password.name }) == true { return nil }
        return PasswordHandler(password: password, next: nil, iterations: client.iterations)
    }
}

/// What a run of decryption (`Decryption`) asks of its caller: the tool's terminal.
public protocol DecryptionReporter: AnyObject, Sendable {
    /// Asked at most once a run, the first time no password of the chain opens a
    /// password-based message (`what` names it, `FILE:LINE` in the tool): a password to try on
    /// it, and first on every message after; nil for none. Called with the run's lock held:
    /// other messages that fail meanwhile wait for the answer.
    func password(afterNoneOpened what: String) -> ChainPassword?
}
