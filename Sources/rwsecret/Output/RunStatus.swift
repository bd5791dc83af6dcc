/// The exit status of a run that got past its checks: the first of 66, 73, 74, 1 that happened.
///
/// "First" is taken in that order of precedence (a missing input outranks an
/// output failure, which outranks an I/O error, which outranks a message that
/// did not decrypt), so the status says the most serious thing that went wrong.
struct RunStatus {
    private(set) var happened: Set<Int32> = []

    mutating func record(_ status: ExitStatus) { happened.insert(status.rawValue) }

    var exitStatus: ExitStatus {
        for status in [ExitStatus.noInput, .cannotCreate, .ioError, .failure] where happened.contains(status.rawValue) {
            return status
        }
        return .success
    }
}
