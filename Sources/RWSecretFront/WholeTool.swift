import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The whole tool, `rwsecret-commands`: every command, parsed by ArgumentParser. The front
/// (`rwsecret`) replaces itself with it (`execv`, same process, arguments, descriptors and
/// environment) for anything it does not run itself.
enum WholeTool {
    /// Its file name.
    static let name = "rwsecret-commands"

    /// Where it is, beside this program or installed: `DIR/rwsecret-commands` (a build
    /// directory, or both copied side by side), else `DIR/../libexec/rwsecret/rwsecret-commands`
    /// (`make install`), DIR being this program's own directory (`/proc/self/exe`, links resolved).
    static func candidates() -> [String] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return [] }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return [] }
        let directory = String(path[..<slash])
        let parent = directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? ""
        return [directory + "/" + name, parent + "/libexec/rwsecret/" + name]
    }

    /// Runs the whole tool with this process's arguments; ends the process (69, with a line)
    /// when it cannot be run.
    static func run() -> Never {
        var tried: [String] = []
        for path in candidates() {
            tried.append(path)
            guard access(path, X_OK) == 0 else { continue }
            // The whole tool holds (and remembers) a closed stdin, stdout or stderr itself.
            StandardStreams.closeHeld()
            execv(path, CommandLine.unsafeArgv)
            let error = Errno(rawValue: errno)
            Output.standardError.line("rwsecret: cannot run \(Output.escaped(path)): \(error)")
            ProcessHardening.exit(ExitStatus.unavailable.rawValue)
        }
        Output.standardError.line("rwsecret: this command needs \(name), which is not installed beside rwsecret (looked for \(tried.map(Output.escaped).joined(separator: " and "))): reinstall with `make install`")
        ProcessHardening.exit(ExitStatus.unavailable.rawValue)
    }
}
