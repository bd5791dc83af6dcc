// Shared by RWSecretKitTests, rwsecretTests and rwsecret-bench (Tests/rwsecretTests/Support/PrivateKeyring.swift and Sources/rwsecret-bench/PrivateKeyring.swift are symlinks).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real, unlocked gnome-keyring on a private D-Bus session bus, in a temporary HOME.
///
/// What it does (see ../shared/notes/keyring-headless.md for why):
/// - a private `dbus-daemon --nofork --print-address` whose config has no
///   `<servicedir>`, so nothing can ever be activated (not a second keyring
///   daemon with the real HOME);
/// - `gnome-keyring-daemon --foreground --unlock --components=secrets` with the
///   password on stdin, HOME and XDG_* inside the temporary folder;
/// - waits (`gdbus wait`, blocking) until the daemon owns org.freedesktop.secrets,
///   then checks that the `default` collection is unlocked.
/// Both daemons run under `setpriv --pdeathsig TERM`, started from a thread
/// that lives as long as the process (the death signal follows the thread that
/// forked), and are killed by PID in `stop()` or at exit.
final class PrivateKeyring: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case setup(String)
        var description: String {
            switch self {
            case .notInstalled: "gnome-keyring-daemon is not installed (Debian package gnome-keyring)"
            case .setup(let what): "private keyring: \(what)"
            }
        }
    }

    /// The temporary folder holding HOME, XDG_* and the bus socket.
    let root: String
    /// The private bus's address.
    let busAddress: String
    /// The environment for a process that should use this keyring (no DISPLAY).
    let environment: [String: String]
    /// The login collection's object path.
    let collectionPath: String
    private var pids: [pid_t]

    /// Whether `gnome-keyring-daemon` is on PATH (tests skip only when it is not).
    static var isInstalled: Bool { executable("gnome-keyring-daemon") != nil }

    /// The message a skipped test prints.
    static let skipMessage = "gnome-keyring-daemon is not installed: install the Debian package gnome-keyring (make deps) to run the keyring tests"

    // MARK: - The process-wide keyring

    nonisolated(unsafe) private static var processKeyring: Result<PrivateKeyring, Failure>?
    private static let processLock = NSLock()

    /// The keyring this test process talks to in-process: started once, before any
    /// libsecret call, with DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR set for the
    /// whole process (GDBus keeps the first session bus it connects to). Stopped at exit.
    static func forThisProcess() throws -> PrivateKeyring {
        processLock.lock()
        defer { processLock.unlock() }
        if let processKeyring { return try processKeyring.get() }
        let result: Result<PrivateKeyring, Failure>
        do {
            let keyring = try start()
            publishEnvironment(
                setting: ["DBUS_SESSION_BUS_ADDRESS": keyring.busAddress, "XDG_RUNTIME_DIR": keyring.root + "/run"],
                removing: ["DISPLAY"])
            atexit { PrivateKeyring.stopProcessKeyring() }
            result = .success(keyring)
        } catch let failure as Failure {
            result = .failure(failure)
        } catch {
            result = .failure(.setup("\(error)"))
        }
        processKeyring = result
        return try result.get()
    }

    /// Changes this process's environment while other tests' threads read it (spawning
    /// children, `getenv`): builds a new `environ` array and publishes it with one pointer
    /// store, leaving the old array, and every string, where readers may still hold them.
    /// glibc 2.36's `setenv` of a new name `realloc`s the array instead, freeing the one a
    /// concurrent reader walks (which can crash the whole test run).
    static func publishEnvironment(setting values: [String: String], removing names: Set<String> = []) {
        // `environ` itself, through its address: Swift sees the C global as read-only.
        typealias Environment = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "environ") else {
            preconditionFailure("cannot find environ")
        }
        let variable = symbol.assumingMemoryBound(to: Environment?.self)
        var entries: [UnsafeMutablePointer<CChar>?] = []
        if let current = variable.pointee {
            var index = 0
            while let entry = current[index] {
                let text = String(cString: entry)
                let name = String(text.prefix { $0 != "=" })
                if values[name] == nil && !names.contains(name) { entries.append(entry) }
                index += 1
            }
        }
        for (name, value) in values.sorted(by: { $0.key < $1.key }) { entries.append(strdup("\(name)=\(value)")) }
        entries.append(nil)
        let array = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: entries.count)
        array.initialize(from: entries, count: entries.count)
        variable.pointee = array  // never freed: a reader may hold the old array, and later ones this one
    }

    private static func stopProcessKeyring() {
        if case .success(let keyring) = processKeyring { keyring.stop() }
    }

    // MARK: - Starting and stopping

    private init(root: String, busAddress: String, environment: [String: String], collectionPath: String, pids: [pid_t]) {
        self.root = root
        self.busAddress = busAddress
        self.environment = environment
        self.collectionPath = collectionPath
        self.pids = pids
    }

    /// Starts a new private bus and keyring; `stop()` it when done.
    /// - Parameter unlock: false leaves the daemon without an unlocked login collection.
    static func start(password: String = "test-keyring-password") throws -> PrivateKeyring {
        guard let keyringDaemon = executable("gnome-keyring-daemon") else { throw Failure.notInstalled }
        guard let busDaemon = executable("dbus-daemon") else { throw Failure.setup("dbus-daemon is not installed") }
        guard let setpriv = executable("setpriv") else { throw Failure.setup("setpriv is not installed") }

        var template = Array("/tmp/rwsecret-keyring-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw Failure.setup("cannot create a temporary folder")
        }
        let root = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for folder in ["home", "data", "config", "cache", "run"] {
            mkdir(root + "/" + folder, 0o700)
        }
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(root)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: root + "/bus.conf", atomically: true, encoding: .utf8)

        var pids: [pid_t] = []
        func fail(_ what: String) -> Failure {
            for pid in pids { kill(pid, SIGTERM) }
            try? FileManager.default.removeItem(atPath: root)
            return .setup(what)
        }

        // 1. The bus: its first stdout line is the address.
        let bus = try Spawner.shared.spawn(
            [setpriv, "--pdeathsig", "TERM", "--", busDaemon, "--nofork", "--print-address", "--config-file=\(root)/bus.conf"],
            environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
            stdin: nil, captureStdout: true)
        pids.append(bus.pid)
        guard let address = bus.readLine(), !address.isEmpty else { throw fail("dbus-daemon printed no address") }

        let environment: [String: String] = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": root + "/home",
            "XDG_DATA_HOME": root + "/data",
            "XDG_CONFIG_HOME": root + "/config",
            "XDG_CACHE_HOME": root + "/cache",
            "XDG_RUNTIME_DIR": root + "/run",
            "DBUS_SESSION_BUS_ADDRESS": address,
            "LANG": "C.UTF-8",
        ].merging(SanitizerOptions.environment) { $1 }

        // 2. The keyring daemon, password on stdin.
        let daemon = try Spawner.shared.spawn(
            [setpriv, "--pdeathsig", "TERM", "--", keyringDaemon, "--foreground", "--unlock", "--components=secrets"],
            environment: environment, stdin: Array(password.utf8), captureStdout: false)
        pids.append(daemon.pid)

        // 3. Wait until it owns org.freedesktop.secrets (never activated: the bus has no servicedir).
        guard let gdbusTool = executable("gdbus"),
              run([gdbusTool, "wait", "--session", "--timeout", "10", "org.freedesktop.secrets"], environment: environment) != nil else {
            throw fail("gnome-keyring-daemon never owned org.freedesktop.secrets")
        }

        // 4. The default collection must exist and be unlocked.
        guard let alias = gdbus(environment, ["-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
                                              "-m", "org.freedesktop.Secret.Service.ReadAlias", "default"]),
              let quote = alias.firstIndex(of: "'"),
              let end = alias[alias.index(after: quote)...].firstIndex(of: "'") else {
            throw fail("the keyring has no default collection")
        }
        let collection = String(alias[alias.index(after: quote)..<end])
        guard collection != "/" else { throw fail("the keyring has no default collection") }
        let keyring = PrivateKeyring(root: root, busAddress: address, environment: environment,
                                     collectionPath: collection, pids: pids)
        guard keyring.isLocked == false else {
            keyring.stop()
            throw Failure.setup("the login collection is still locked after --unlock")
        }
        return keyring
    }

    /// Kills both daemons and removes the temporary folder.
    func stop() {
        for pid in pids.reversed() { Self.terminate(pid) }
        pids = []
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Stops only the keyring daemon, leaving a bus on which nobody owns org.freedesktop.secrets.
    func stopKeyringDaemon() throws {
        guard pids.count == 2 else { throw Failure.setup("the keyring daemon is not running") }
        let daemon = pids.removeLast()
        Self.terminate(daemon)
        // The daemon is reaped, so its bus connection is closed; the bus handles that hang-up
        // before it has authenticated the new connection this question comes on.
        guard Self.gdbus(environment, ["-d", "org.freedesktop.DBus", "-o", "/org/freedesktop/DBus",
                                       "-m", "org.freedesktop.DBus.NameHasOwner", "org.freedesktop.secrets"])?.contains("false") == true else {
            throw Failure.setup("org.freedesktop.secrets is still owned after its daemon exited")
        }
    }

    /// SIGTERM, then SIGKILL if it is still there after 2 s; reaps the child (blocking waits only).
    private static func terminate(_ pid: pid_t) {
        let reaped = DispatchSemaphore(value: 0)
        Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped.signal()
        }.start()
        kill(pid, SIGTERM)
        if reaped.wait(timeout: .now() + 2) == .timedOut {
            kill(pid, SIGKILL)
            reaped.wait()
        }
    }

    /// The login collection's `Locked` property (nil when it cannot be read).
    var isLocked: Bool? {
        guard let answer = Self.gdbus(environment, ["-d", "org.freedesktop.secrets", "-o", collectionPath,
                                                    "-m", "org.freedesktop.DBus.Properties.Get",
                                                    "org.freedesktop.Secret.Collection", "Locked"]) else { return nil }
        if answer.contains("true") { return true }
        if answer.contains("false") { return false }
        return nil
    }

    /// Locks the login collection (gnome-keyring does it without a prompt).
    func lock() throws {
        guard Self.gdbus(environment, ["-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
                                       "-m", "org.freedesktop.Secret.Service.Lock", "['\(collectionPath)']"]) != nil,
              isLocked == true else {
            throw Failure.setup("cannot lock \(collectionPath)")
        }
    }

    /// Runs `secret-tool ARGS` against this keyring; returns its stdout, or nil on failure.
    func secretTool(_ arguments: [String]) -> String? {
        guard let tool = Self.executable("secret-tool") else { return nil }
        return Self.run([tool] + arguments, environment: environment)
    }

    /// The methods called on the Secret Service's objects (paths under
    /// `/org/freedesktop/secrets`, properties included) while `body` runs, in order, as
    /// `MEMBER PATH` the way `dbus-monitor` saw them on this bus.
    func secretServiceCalls(during body: () throws -> Void) throws -> [String] {
        try methodCallLines(during: body).compactMap { line in
            // method call time=… sender=… -> destination=… serial=… path=P; interface=I; member=M
            let fields = line.split(separator: " ")
            guard let path = fields.first(where: { $0.hasPrefix("path=/org/freedesktop/secrets") }),
                  let member = fields.last(where: { $0.hasPrefix("member=") }) else { return nil }
            return "\(member.dropFirst("member=".count)) \(path.dropFirst("path=".count).dropLast())"
        }
    }

    /// Every method call the one client process that `body` runs sends on this bus, to the
    /// bus itself or to the Secret Service, in order, as `MEMBER PATH` (`Hello /org/freedesktop/DBus`,
    /// `SearchItems /org/freedesktop/secrets`…). The client is the first connection that says
    /// `Hello` once the monitor watches.
    func methodCallsOfOneClient(during body: () throws -> Void) throws -> [String] {
        var client: Substring?
        return try methodCallLines(during: body).compactMap { line in
            // method call time=… sender=:1.8 -> destination=… serial=… path=P; interface=I; member=M
            let fields = line.split(separator: " ")
            guard let sender = fields.first(where: { $0.hasPrefix("sender=") }),
                  let path = fields.first(where: { $0.hasPrefix("path=") }),
                  let member = fields.last(where: { $0.hasPrefix("member=") }) else { return nil }
            if client == nil, member == "member=Hello" { client = sender }
            guard sender == client else { return nil }
            return "\(member.dropFirst("member=".count)) \(path.dropFirst("path=".count).dropLast())"
        }
    }

    /// The `method call` lines `dbus-monitor` printed on this bus while `body` ran (its config
    /// lets a monitor see everything). In step with the bus, not with time: the monitor is
    /// watching once it prints that it lost its name, and has printed all of `body`'s calls
    /// once it prints a marker call sent after `body` (the marker's own line is among them).
    private func methodCallLines(during body: () throws -> Void) throws -> [String] {
        guard let monitorTool = Self.executable("dbus-monitor") else { throw Failure.setup("dbus-monitor is not installed") }
        let monitor = try Spawner.shared.spawn([monitorTool, "--address", busAddress, "type='method_call'"],
                                               environment: environment, stdin: nil, captureStdout: true)
        // A monitor that never shows what is awaited is killed after a minute (its output then
        // ends and this throws): a bound against hanging the test run, not a measurement.
        let watch = Watchdog(pid: monitor.pid)
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { watch.killUnlessOver() }
        defer {
            watch.over()
            Self.terminate(monitor.pid)
            if let fd = monitor.stdout { close(fd) }
        }
        while let line = monitor.readLine(), !line.contains("member=NameLost") {}
        try body()
        let marker = "org.rwsecret.test.marker\(UInt32.random(in: 0...UInt32.max))"
        _ = Self.gdbus(environment, ["-d", "org.freedesktop.DBus", "-o", "/org/freedesktop/DBus",
                                     "-m", "org.freedesktop.DBus.NameHasOwner", marker])
        var lines: [String] = []
        while let line = monitor.readLine() {
            if line.contains("string \"\(marker)\"") { return lines }
            if line.hasPrefix("method call") { lines.append(line) }
        }
        throw Failure.setup("dbus-monitor ended before the marker call")
    }

    // MARK: - Helpers

    private static func gdbus(_ environment: [String: String], _ arguments: [String]) -> String? {
        guard let gdbus = executable("gdbus") else { return nil }
        return run([gdbus, "call", "--session", "--timeout", "5"] + arguments, environment: environment)
    }

    /// Runs a short command; its stdout when it exits 0, else nil.
    static func run(_ arguments: [String], environment: [String: String], stdin: [UInt8] = []) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = input
        ChildInput.catchBrokenPipes()
        do { try process.runCheckingDescriptors() } catch { return nil }
        input.fileHandleForWriting.writeToChild(Data(stdin))
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") + ["/usr/bin", "/bin", "/usr/sbin"] {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// Kills a child unless told first that it is over (then the pid may already be reaped and reused).
private final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var isOver = false
    private let pid: pid_t
    init(pid: pid_t) { self.pid = pid }
    func over() { lock.withLock { isOver = true } }
    func killUnlessOver() { lock.withLock { if !isOver { kill(pid, SIGKILL) } } }
}

/// Starts daemons from one thread that lives as long as the process, because
/// `setpriv --pdeathsig` signals the child when the *thread* that forked it ends.
private final class Spawner: @unchecked Sendable {
    static let shared = Spawner()

    struct Child {
        let pid: pid_t
        let stdout: Int32?
        /// Reads one line from the child's stdout (blocking); nil at its end.
        func readLine() -> String? {
            guard let fd = stdout else { return nil }
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            var ended = true
            while read(fd, &byte, 1) == 1 {
                ended = false
                if byte == 0x0A { break }
                bytes.append(byte)
            }
            return ended ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }

    private let condition = NSCondition()
    private var job: (() -> Void)?
    private var thread: Thread?

    private init() {
        let thread = Thread { [unowned self] in self.serve() }
        thread.name = "PrivateKeyring.spawner"
        thread.start()
        self.thread = thread
    }

    private func serve() {
        while true {
            condition.lock()
            while job == nil { condition.wait() }
            let work = job!
            job = nil
            condition.unlock()
            work()
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }

    private func onSpawnerThread<T>(_ body: @escaping () -> T) -> T {
        var result: T?
        condition.lock()
        while job != nil { condition.wait() }
        job = { result = body() }
        condition.broadcast()
        while result == nil { condition.wait() }
        condition.unlock()
        return result!
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module does not declare.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// posix_spawn from the spawner thread; stdin bytes are written and closed, stdout piped if asked.
    func spawn(_ arguments: [String], environment: [String: String], stdin: [UInt8]?, captureStdout: Bool) throws -> Child {
        let outcome: Result<Child, PrivateKeyring.Failure> = onSpawnerThread {
            var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
            func cloexecPipe(_ fds: inout [Int32]) {
                _ = pipe(&fds)
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            }
            cloexecPipe(&inPipe)
            if captureStdout { cloexecPipe(&outPipe) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
            if captureStdout {
                posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            } else {
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            }
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            // Nothing else of this process: a daemon that inherited another test's stdin pipe
            // kept it open, and that test's child waited for EOF for ever.
            if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
            let argv = arguments.map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
            // The child must not inherit this thread's blocked or ignored signals,
            // or SIGTERM (ours and setpriv's death signal) would never reach it.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var empty = sigset_t(), defaults = sigset_t()
            sigemptyset(&empty)
            sigemptyset(&defaults)
            for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigmask(&attributes, &empty)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var pid: pid_t = 0
            let rc = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
            close(inPipe[0])
            if captureStdout { close(outPipe[1]) }
            guard rc == 0 else {
                close(inPipe[1])
                if captureStdout { close(outPipe[0]) }
                return .failure(.setup("cannot start \(arguments[0]): \(String(cString: strerror(rc)))"))
            }
            if let stdin {
                ChildInput.write(stdin, to: inPipe[1])
                close(inPipe[1])
            }
            // With stdin nil the write end stays open: the child's stdin never ends.
            return .success(Child(pid: pid, stdout: captureStdout ? outPipe[0] : nil))
        }
        return try outcome.get()
    }
}
