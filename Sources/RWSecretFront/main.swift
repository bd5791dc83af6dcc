// `rwsecret`, the program people run: `decrypt` as most runs spell it, in a program without
// ArgumentParser; anything else runs the whole tool (`WholeTool`) in this same process.
//
// Why two programs (issue 36, row (a)): ArgumentParser and the FoundationEssentials it links were
// 14 MB of the binary, 1,744 of its 4,240 protocol conformance records and pages the loader
// relocates in every run, though `decrypt` parsed by hand uses none of it (docs/performance.md).
// The files this program shares with the whole tool are links into Sources/rwsecret (Shared/):
// one source, compiled into both; FrontTests checks that every one of them still is.
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

ProcessHardening.apply()
// RWSecretKit is this process's only user of OpenSSL: no legacy name table (0.4 ms of every run).
OpenSSLStart.withoutLegacyNames()
let arguments = Array(CommandLine.arguments.dropFirst())
// What is not `decrypt` parsed by hand, or is bad usage found once parsed, is the whole tool's
// to read and word (help, completions, ArgumentParser's usage lines). Nothing has been consumed
// yet (usage() at most looks at the first kilobyte of a regular FILE given with -o), and nothing
// taken from the environment.
guard let run = DecryptArguments.parse(arguments), let usage = try? run.usage() else { WholeTool.run() }
ToolStart.applyHooks()
SecretEnvironment.take()
ToolStart.warmUp(for: arguments)
do {
    try run.run(usage)
    ToolExit.succeeded()
} catch let failure as CommandFailure {
    ToolExit.failed(failure)
} catch let failure as UsageError {
    // Not thrown once usage() has passed; worded without the usage lines if it ever is.
    ToolExit.failed(CommandFailure(.usage, failure.message))
} catch {
    // What the whole tool ends with for an error that is neither: ArgumentParser's exit code 1,
    // which it reports as bad usage (64), with no line.
    ToolExit.failed(CommandFailure(.usage, ""))
}
