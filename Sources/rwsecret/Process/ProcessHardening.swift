import CLinuxSyscalls
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// What the process does before it reads any secret, and how it ends.
enum ProcessHardening {
    /// Holds closed standard descriptors (`StandardStreams`), makes the process
    /// non-dumpable and sets `RLIMIT_CORE` to 0, before any secret is read.
    ///
    /// Non-dumpable: no core file is written whatever the system's core pattern says,
    /// `/proc/PID/mem`, `/proc/PID/environ` and `/proc/PID/fd` belong to root, and other
    /// processes of the same user cannot ptrace it. `RLIMIT_CORE` 0 covers the core
    /// handlers that ignore the dumpable flag, and children such as a pager.
    ///
    /// Crash signals get their default action back: a build that carries the Swift runtime's
    /// backtracer (any build without `--static-swift-stdlib`: `swift build`, `swift run`,
    /// `swift test`) installs handlers for them before `main` that print the registers and
    /// the memory they point at to stderr (a secret can be there) and keep a crashed process
    /// alive while they do. A crash is then a plain signal death, nothing printed.
    static func apply() {
        // Unblocked too: a mask inherited from the parent (a test runner's) kept SIGABRT pending for ever.
        var crashes = sigset_t()
        sigemptyset(&crashes)
        for signal in [SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP, SIGQUIT, SIGSYS] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = SIG_DFL
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
            sigaddset(&crashes, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &crashes, nil)
        // Before any file is opened: no file may take the number of a closed stdin, stdout or stderr.
        StandardStreams.holdClosed()
        _ = rws_set_dumpable(0)
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        // A reader that goes away is reported by write's EPIPE, never by a signal.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Ends the process with `status` after flushing stdio, without running
    /// `atexit` handlers or static destructors.
    ///
    /// Nothing needs them, and they would race any background work still
    /// running (OpenSSL's one-time set-up thread, a pipeline worker after an
    /// early EPIPE): `exit()` tearing down state under a thread still using it
    /// crashed about 1 run in 100–5,000. `_exit` ends every thread at once.
    ///
    /// When the reader closed stdout before everything was written (`rwsecret decrypt m |
    /// head -1`), the process ends as `git log | head` and `cat` do: killed by SIGPIPE
    /// (status 141 in a shell), quietly, so that `set -o pipefail` sees that output was lost.
    static func exit(_ status: Int32) -> Never {
        Output.standardOutput.flush()
        fflush(nil)
        SecretEnvironment.wipe()
        if Output.standardOutput.brokenPipe || Output.stdoutReaderGone {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        _exit(status)
    }
}
