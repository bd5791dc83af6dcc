import RWSecretKit
import SystemPackage

extension LineReader {
    /// The lines of `input` (a file, or stdin with bytes handed back), the progress line told
    /// of each and of every wait for the input.
    init(_ input: InputFile, maximumLength: Int = defaultMaximumLength) {
        self.init(maximumLength: maximumLength, waiting: ProgressLine.reading, lineRead: ProgressLine.lineRead) { buffer throws(Errno) in
            try input.read(into: buffer.baseAddress!, count: buffer.count)
        }
    }
}

extension MessageRows {
    /// The rows of `input` as `decrypt` reads them (`--id-column`; not joined under `--in-band`).
    init(_ input: InputFile, idColumn: Bool, joinsWrapped: Bool = true) throws(Errno) {
        try self.init(LineReader(input), idColumn: idColumn, joinsWrapped: joinsWrapped)
    }
}
