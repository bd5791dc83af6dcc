import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The keyring warm-up thread against the main thread's first libsecret call (issue 21
/// item 10): GLib's type system deadlocked when the warm-up was still registering
/// GDBusConnection (`g_bus_get_sync`) while the main thread initialised SecretService's
/// class (`secret_service_get_sync`), 1 run in 300 with a busy core.
///
/// The shim holds the warm-up thread inside that registration, so without a fix every run
/// hangs; a run is killed after `limit` seconds, a bound on a hang, never on speed. 200 runs
/// here, 2,000 under `make test-long` (RWSECRET_LONG_TESTS=1).
@Suite(.enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
struct KeyringWarmUpRaceTests {
    /// LD_PRELOAD shim: on any thread but the main one, sleeps RWS_WARM_UP_DELAY_US (default
    /// 20,000) microseconds before GLib's first `g_type_add_interface_static` for
    /// GDBusConnection, which runs inside that type's one-time registration, and appends a
    /// line to RWS_WARM_UP_LOG each time, so the test knows the window was held open.
    static let slowWarmUp = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>
        #include <sys/syscall.h>
        typedef size_t GType;
        void g_type_add_interface_static(GType instance_type, GType interface_type, const void *info) {
            static void (*real)(GType, GType, const void *);
            static const char *(*type_name)(GType);
            static int held;
            if (!real) *(void **)&real = dlsym(RTLD_NEXT, "g_type_add_interface_static");
            if (!type_name) *(void **)&type_name = dlsym(RTLD_NEXT, "g_type_name");
            if (!held && getpid() != (pid_t)syscall(SYS_gettid) && strcmp(type_name(instance_type), "GDBusConnection") == 0) {
                held = 1;
                const char *log = getenv("RWS_WARM_UP_LOG"), *delay = getenv("RWS_WARM_UP_DELAY_US");
                if (log) {
                    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
                    if (fd >= 0) { (void)write(fd, "held\\n", 5); close(fd); }
                }
                usleep(delay ? (useconds_t)atoi(delay) : 20000);
            }
            real(instance_type, interface_type, info);
        }
        """

    static let runs = ProcessInfo.processInfo.environment["RWSECRET_LONG_TESTS"] == "1" ? 2_000 : 200
    /// Seconds after which one run counts as hung (a run takes well under one).
    static let limit = 30

    @Test func keyringDecryptsNeverHangWithTheWarmUpHeldInsideGLib() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        let dir = TemporaryFolder()
        let shim = try Shim.build(Self.slowWarmUp, named: "slow-warm-up", in: dir.url)
        #expect(try RWSecretProcess.run(["password", "add", "--store", "keyring", "work"], stdin: Data("keyring secret".utf8),
                                        environment: keyring.environment).status == 0)
        let message = dir.file("m.txt", Messages.password("from the keyring", "keyring secret") + "\n")
        let log = dir.path + "/held"

        // One core kept busy for the whole loop, as in the benchmark that found the hang.
        let busy = Process()
        busy.executableURL = URL(fileURLWithPath: "/bin/sh")
        busy.arguments = ["-c", "while :; do :; done"]
        try busy.runCheckingDescriptors()
        defer { kill(busy.processIdentifier, SIGKILL); busy.waitUntilExit() }

        // `--jobs 2`: the warm-up starts whatever this machine's CPU count.
        let script = """
            for i in $(seq 1 \(Self.runs)); do
              timeout -s KILL \(Self.limit) env LD_PRELOAD="$SHIM" "$RWSECRET" decrypt --jobs 2 --store keyring "$MESSAGE" > "$DIR/out" 2> "$DIR/err"
              status=$?
              if [ $status -eq 137 ]; then echo "run $i hung (killed after \(Self.limit) s)"; exit 1; fi
              if [ $status -ne 0 ] || [ "$(cat "$DIR/out")" != "from the keyring" ]; then
                echo "run $i: exit $status: $(cat "$DIR/err")"; exit 1
              fi
            done
            echo "runs: \(Self.runs)"
            """
        var environment = keyring.environment
        environment["SHIM"] = shim
        environment["RWSECRET"] = RWSecretProcess.executable.path
        environment["MESSAGE"] = message
        environment["DIR"] = dir.path
        environment["RWS_WARM_UP_LOG"] = log
        let loop = try RWSecretProcess.run(["-c", script], environment: environment, mergingStandardError: true,
                                           executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(loop.status == 0, "\(loop.out)")
        #expect(loop.out.hasSuffix("runs: \(Self.runs)\n"), "\(loop.out)")
        // Every run held its warm-up inside the registration: the race was there to lose.
        let held = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").count ?? 0
        #expect(held == Self.runs, "the shim held the warm-up in \(held) of \(Self.runs) runs")
    }
}
