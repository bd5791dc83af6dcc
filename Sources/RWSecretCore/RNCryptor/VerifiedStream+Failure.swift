package import SystemPackage

extension VerifiedStream {
    /// Why the stream failed, in full: facts the tool words (package access; a library
    /// user gets the ``DecryptionFailure`` each maps to).
    package enum Failure: Error, Sendable {
        /// The chain could not be had (its store could not be opened): what the chain's provider threw.
        case chainUnavailable(any Error)
        /// The message is malformed (before any key was tried).
        case format(RNCryptorError)
        /// No RNCryptor header begins the input: the bytes read so far (the input goes on after
        /// them; up to a chunk) and the header's parse error. Whether it is base64 text or
        /// another kind's message is for the caller to ask the kind registry (the stream does not).
        case notAHeader([UInt8], RNCryptorError)
        /// No candidate opened the message, or the padding was bad.
        case notOpened(DecryptionFailure)
        /// A regular input file changed while it was read.
        case inputChanged
        /// Reading the input failed.
        case read(Errno)
        /// The private file or the destination could not be created. EOPNOTSUPP for
        /// a file destination: its folder's filesystem cannot make an unnamed file
        /// (`O_TMPFILE`), and a named one would hold plaintext that a SIGKILL leaves
        /// behind, so nothing was written.
        case create(Errno)
        /// Writing failed.
        case write(Errno)
        /// The private file in the temporary folder (`folder`: `$TMPDIR`, else /tmp),
        /// for a destination that is not a file, could not be made or written (a full
        /// temporary folder): not a fault of the destination.
        case temporaryFile(Errno, folder: String)
    }
}

extension DecryptionFailure {
    /// The failure a stream's `failure` is to a library user.
    package init(_ failure: VerifiedStream.Failure) {
        switch failure {
        case .chainUnavailable(let error as DecryptionFailure): self = error
        case .chainUnavailable(let error as StoreError): self = .store(error)
        case .chainUnavailable(let error): self = .store(.io("\(error)"))
        case .format(let error): self = .format(error)
        // A first byte that is no RNCryptor version: base64 text, another kind, other data.
        case .notAHeader(_, let error):
            if case .unknownVersion = error.reason { self = .notRNCryptor } else { self = .format(error) }
        case .notOpened(let failure): self = failure
        case .inputChanged: self = .inputChanged
        case .read(let errno): self.init(Reason.read(errno))
        case .create(let errno): self.init(Reason.create(errno))
        case .write(let errno): self.init(Reason.write(errno))
        case .temporaryFile(let errno, let folder): self.init(Reason.temporaryFile(errno, folder: folder))
        }
    }
}
