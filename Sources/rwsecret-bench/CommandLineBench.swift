import COpenSSL
import Foundation
import RWSecretKit

/// Whole-process figures: the built `rwsecret` binary run the way a user runs it.
enum CommandLineBench {
    struct Run {
        let seconds: Double
        let maxRSSKiB: Int
        /// User plus system CPU time of the process (both cores together).
        let cpuSeconds: Double
        /// The exit status, or 128 + the signal that ended it.
        let status: Int32
        /// Killed with SIGKILL at `run`'s `limit`.
        var hung = false
    }

    /// The watchdog's view of one child: ended (waited for, not yet reaped), killed by it.
    final class Watch: @unchecked Sendable {
        let lock = NSLock()
        var ended = false
        var killed = false
    }

    /// Runs `argv` (found on PATH when its first word has no slash) with `environment` added,
    /// stdin from `input` (or /dev/null), stdout to `output` (or /dev/null), stderr to /dev/null;
    /// killed with SIGKILL after `limit` seconds when one is given (then `hung`). The child is
    /// reaped only after the watchdog has been told it ended, so the watchdog never signals a
    /// reused pid.
    static func run(_ argv: [String], environment: [String: String] = [:], input: String? = nil, output: String? = nil,
                    limit: Double? = nil) -> Run {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawnp(&pid, argv[0], &actions, nil, cArgs, cEnv) == 0 else { return Run(seconds: .nan, maxRSSKiB: 0, cpuSeconds: .nan, status: -1) }
        let watch = Watch()
        if let limit {
            let child = pid
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
                watch.lock.lock()
                if !watch.ended { watch.killed = true; kill(child, SIGKILL) }
                watch.lock.unlock()
            }
        }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        watch.lock.lock()
        watch.ended = true
        let hung = watch.killed
        watch.lock.unlock()
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        func inSeconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return Run(seconds: seconds, maxRSSKiB: usage.ru_maxrss, cpuSeconds: inSeconds(usage.ru_utime) + inSeconds(usage.ru_stime),
                   status: (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), hung: hung)
    }

    /// Median of `count` runs, interleaved round-robin across `commands` so machine noise hits all alike.
    static func medians(_ commands: [() -> Run], count: Int) -> [Run] {
        var runs = Array(repeating: [Run](), count: commands.count)
        for _ in 0..<count {
            for (i, command) in commands.enumerated() { runs[i].append(command()) }
        }
        return runs.map { list in list.sorted { $0.seconds < $1.seconds }[list.count / 2] }
    }

    /// The `key derivations:` count of `rwsecret decrypt --no-store --verbose ARGUMENTS` (-1 if absent).
    static func keyCount(_ rwsecret: String, _ arguments: [String], in dir: String) -> Int {
        let log = dir + "/verbose.log"
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = [rwsecret, "decrypt", "--no-store", "--verbose"] + arguments
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, rwsecret, &actions, nil, cArgs, environ) == 0 else { return -1 }
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let prefix = "rwsecret: key derivations: "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? -1
    }

    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "rwsecret-bench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ path: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    /// Is PyPI's `rncryptor` importable? (Then its figures are printed beside ours.)
    static var pypiAvailable: Bool {
        run(PeerPython.command + ["-c", "import rncryptor"]).status == 0
    }

    /// Small-message latency and 1,000-message throughput.
    static func report(rwsecret: String) {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pypi = pypiAvailable

        // 1. One small message, whole process, right and wrong password (--no-store).
        let one = dir + "/one.txt"
        write(one, Base64.encode(RNCryptor.encrypt(Array("a small secret".utf8), password: SecretBytes(utf8: "right"))) + "\n")
        let pyScript = "import rncryptor,base64,sys\ntry:\n  print(rncryptor.decrypt(base64.b64decode(open(sys.argv[1]).read()), sys.argv[2]))\nexcept Exception:\n  sys.exit(1)\n"
        var commands: [() -> Run] = [
            { run([rwsecret, "decrypt", "--no-store", one], environment: ["RWSECRET_PASSWORD": "right"]) },
            { run([rwsecret, "decrypt", "--no-store", one], environment: ["RWSECRET_PASSWORD": "wrong"]) },
            { run([rwsecret, "--version"]) },
        ]
        if pypi {
            commands.append { run(PeerPython.command + ["-c", pyScript, one, "right"]) }
            commands.append { run(PeerPython.command + ["-c", pyScript, one, "wrong"]) }
        }
        let small = medians(commands, count: pypi ? 15 : 41)
        print("\n== one small message, whole process (median of \(pypi ? 15 : 41), round-robin)")
        print(String(format: "  rwsecret decrypt --no-store, right password   %8.2f ms", small[0].seconds * 1e3))
        print(String(format: "  rwsecret decrypt --no-store, wrong password   %8.2f ms", small[1].seconds * 1e3))
        print(String(format: "  rwsecret --version (process start)           %8.2f ms", small[2].seconds * 1e3))
        if pypi {
            print(String(format: "  PyPI rncryptor, right password               %8.2f ms  (%.1f× rwsecret)", small[3].seconds * 1e3, small[3].seconds / small[0].seconds))
            print(String(format: "  PyPI rncryptor, wrong password               %8.2f ms  (%.1f× rwsecret)", small[4].seconds * 1e3, small[4].seconds / small[1].seconds))
        }

        // 2. 1,000 messages over a 3-password chain.
        let passwords = dir + "/passwords"
        write(passwords, "alpha-1\nbravo-2\ncharlie-3\n")
        let chain = ["alpha-1", "bravo-2", "charlie-3"].map { SecretBytes(utf8: $0) }
        // Each message's password is drawn independently (SplitMix64, fixed seed). The chain
        // tries first the password that opened the latest finished message, and with several
        // messages in flight "latest" lags further behind: a periodic pattern of passwords
        // made that pay off more at --jobs 2 than at --jobs 1 (less work, a speed-up above
        // 2×). Independent draws give the head a 1-in-3 chance at any lag: both runs do the
        // same work, and the speed-up measures the cores alone.
        // One file per seed: the bench's wall times use the first; the key counts below use
        // all of them (any one file's draws fall ±1.5% either way, see docs/performance.md).
        func drawnMessages(seed: UInt64) -> String {
            var state = seed
            func draw() -> Int {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return Int((z ^ (z >> 31)) % 3)
            }
            var lines: [String] = []
            for i in 0..<1000 { lines.append(Base64.encode(RNCryptor.encrypt(Array("message \(i)".utf8), password: chain[draw()]))) }
            let file = dir + "/many-\(seed).txt"
            write(file, lines.joined(separator: "\n") + "\n")
            return file
        }
        let seeds: [UInt64] = [0x5EED, 0x5EED + 1, 0x5EED + 2, 0x5EED + 3, 0x5EED + 4]
        let drawFiles = seeds.map(drawnMessages(seed:))
        let many = drawFiles[0]
        let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let batch = medians([
            { run([rwsecret, "decrypt", "--no-store", "--password-file", passwords, "--jobs", "1", many]) },
            { run([rwsecret, "decrypt", "--no-store", "--password-file", passwords, many]) },
        ], count: 3)
        print("\n== 1,000 messages, 3-password chain, whole process (median of 3)")
        print(String(format: "  --jobs 1                                      %8.1f ms  (%.2f ms/message)  CPU %.0f ms", batch[0].seconds * 1e3, batch[0].seconds, batch[0].cpuSeconds * 1e3))
        print(String(format: "  --jobs %d (default)                           %8.1f ms  %.2f× the --jobs 1 wall time (target ≤ 0.55× on 2 cores)  CPU %.0f ms", cpus, batch[1].seconds * 1e3, batch[1].seconds / batch[0].seconds, batch[1].cpuSeconds * 1e3))

        // Every key counts: what --jobs 2 derives beyond --jobs 1 (the --verbose count), on
        // these random draws and on a 64-password chain with the right one last (target ≤ +2%).
        let long = dir + "/long.txt", longPasswords = dir + "/long-passwords"
        write(longPasswords, ((1...63).map { "wrong-password-\($0)" } + ["the-right-one"]).joined(separator: "\n") + "\n")
        write(long, (0..<20).map { _ in Base64.encode(RNCryptor.encrypt(Array("hello".utf8), password: SecretBytes(utf8: "the-right-one"))) }.joined(separator: "\n") + "\n")
        print("\n== key derivations, --jobs 1 against --jobs 2 (the --verbose count)")
        // Random draws: five files of 1,000 messages (seeds), each once at --jobs 1 and at
        // --jobs 2; the total over the five is the figure (target ≤ +2%), the files' own
        // differences show the spread of the draws.
        var serialTotal = 0, parallelTotal = 0
        var differences: [Double] = []
        for file in drawFiles {
            let serial = keyCount(rwsecret, ["--jobs", "1", "--password-file", passwords, file], in: dir)
            let parallel = keyCount(rwsecret, ["--jobs", "2", "--password-file", passwords, file], in: dir)
            serialTotal += serial
            parallelTotal += parallel
            differences.append(serial > 0 ? 100 * Double(parallel - serial) / Double(serial) : .nan)
        }
        print("  " + pad("5 × 1,000 random draws from 3 passwords", 44)
              + String(format: "--jobs 1: %5d   --jobs 2: %5d   %+.1f%% (per file %+.1f%% to %+.1f%%)", serialTotal, parallelTotal,
                       serialTotal > 0 ? 100 * Double(parallelTotal - serialTotal) / Double(serialTotal) : .nan,
                       differences.min() ?? .nan, differences.max() ?? .nan))
        // The long chain: five runs of --jobs 2 against the one --jobs 1 count (deterministic).
        let serial = keyCount(rwsecret, ["--jobs", "1", "--password-file", longPasswords, long], in: dir)
        let parallel = (0..<5).map { _ in keyCount(rwsecret, ["--jobs", "2", "--password-file", longPasswords, long], in: dir) }
        let most = parallel.max() ?? 0
        print("  " + pad("20 messages, 64 passwords, right one last", 44) + String(format: "--jobs 1: %5d   --jobs 2: %5d–%5d   %+.1f%% at most (5 runs)", serial, parallel.min() ?? 0, most,
                                                                                    serial > 0 ? 100 * Double(most - serial) / Double(serial) : .nan))
    }
}

/// A large `--binary` message, whole process, in every shape the issue names, against
/// floors measured in the same round-robin run.
///
/// The floor for k candidates is the crypto any implementation must do, one pass after
/// the other on one thread with nothing withheld: k HMAC-SHA256 passes and one
/// AES-256-CBC decipher over the message, the plaintext written to a file — in this
/// process through OpenSSL's EVP calls (the message in the page cache, or read from a
/// `cat` pipe for the pipe shapes: cat's CPU counts on both sides), and, as a check, with
/// OpenSSL's own tools (`openssl dgst -mac HMAC` k times, then `openssl enc -d`).
/// Ratios: wall time / the in-process floor's wall time, CPU time / its CPU time.
enum BinaryBench {
    struct Shape {
        let candidates: Int
        let pipe: Bool
        let toFile: Bool
        let jobsOne: Bool
        var name: String {
            "\(candidates) cand., \(pipe ? "cat | stdin" : "file      "), \(toFile ? "-o OUT" : "> OUT ")\(jobsOne ? ", --jobs 1" : "")"
        }
    }

    static let keyHex = String(repeating: "01", count: 32)
    static let ivHex = String(repeating: "02", count: 16)

    static func report(rwsecret: String, mib: Int) {
        let dir = CommandLineBench.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = dir + "/big.plain", message = dir + "/big.rncryptor", body = dir + "/big.body", out = dir + "/big.out"
        do {
            let fd = open(plain, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            var block = Crypto.randomBytes(count: 1 << 20)
            for _ in 0..<mib { block[0] &+= 1; _ = block.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) } }
            close(fd)
        }
        _ = CommandLineBench.run([rwsecret, "encrypt", "--binary", plain, "-o", message], environment: ["RWSECRET_PASSWORD": "big"])
        unlink(plain)
        // The ciphertext alone (v3: 34-byte header, 32-byte tag), for `openssl enc`.
        _ = CommandLineBench.run(["/bin/sh", "-c", "tail -c +35 '\(message)' | head -c -32 > '\(body)'"])
        let wrong = dir + "/two-wrong"
        CommandLineBench.write(wrong, "wrong-one\ntwo-wrong\n")
        // Written back now, not by the kernel's flusher 30 s later in the middle of the samples.
        sync()

        var shapes: [Shape] = []
        for candidates in [1, 3] {
            for pipe in [false, true] {
                for toFile in [true, false] { shapes.append(Shape(candidates: candidates, pipe: pipe, toFile: toFile, jobsOne: false)) }
            }
        }
        for candidates in [1, 3] {
            shapes.append(Shape(candidates: candidates, pipe: false, toFile: true, jobsOne: true))
            shapes.append(Shape(candidates: candidates, pipe: true, toFile: false, jobsOne: true))
        }
        // $RWSECRET_BENCH_BASELINE: another rwsecret binary (an earlier build), run in the same
        // round-robin on the same shapes, for before/after figures.
        let baseline = getenv("RWSECRET_BENCH_BASELINE").map { String(cString: $0) }
        let binaries = [rwsecret] + (baseline.map { [$0] } ?? [])
        func command(_ shape: Shape, _ rwsecret: String) -> () -> CommandLineBench.Run {
            var options = ["decrypt", "--no-store", "--binary"]
            if shape.jobsOne { options += ["--jobs", "1"] }
            if shape.candidates == 3 { options += ["--password-file", wrong] }
            if shape.pipe {
                let quoted = ([rwsecret] + options).map { "'\($0)'" }.joined(separator: " ")
                let script = "cat '\(message)' | \(quoted) " + (shape.toFile ? "-o '\(out)'" : "> '\(out)'")
                return { CommandLineBench.run(["/bin/sh", "-c", script], environment: ["RWSECRET_PASSWORD": "big"]) }
            }
            let argv = [rwsecret] + options + [message] + (shape.toFile ? ["-o", out] : [])
            return { CommandLineBench.run(argv, environment: ["RWSECRET_PASSWORD": "big"], output: shape.toFile ? nil : out) }
        }
        // The floors: in this process (file, pipe) and OpenSSL's tools (file), for 1 and 3 HMACs.
        var floors: [(name: String, run: () -> CommandLineBench.Run)] = []
        for hmacs in [1, 3] {
            floors.append(("floor \(hmacs)", { Floor.run(message: message, output: out, hmacs: hmacs, pipe: false) }))
            floors.append(("floor \(hmacs) pipe", { Floor.run(message: message, output: out, hmacs: hmacs, pipe: true) }))
            let dgst = Array(repeating: "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(keyHex) '\(message)' > /dev/null", count: hmacs)
            let script = (dgst + ["openssl enc -d -aes-256-cbc -nopad -K \(keyHex) -iv \(ivHex) -in '\(body)' -out '\(out)'"]).joined(separator: " && ")
            floors.append(("openssl \(hmacs)", { CommandLineBench.run(["/bin/sh", "-c", script]) }))
        }
        let all: [() -> CommandLineBench.Run] = floors.map(\.run) + binaries.flatMap { binary in shapes.map { command($0, binary) } }
        let reps = getenv("RWSECRET_BENCH_BIG_REPS").flatMap { Int(String(cString: $0)) } ?? 3
        var runs = Array(repeating: [CommandLineBench.Run](), count: all.count)
        for _ in 0..<reps {
            for (index, measure) in all.enumerated() {
                runs[index].append(measure())
                unlink(out)
            }
        }
        func median(_ index: Int, _ value: (CommandLineBench.Run) -> Double) -> Double {
            let values = runs[index].map(value).sorted()
            return values.count % 2 == 1 ? values[values.count / 2] : (values[values.count / 2 - 1] + values[values.count / 2]) / 2
        }
        func wall(_ i: Int) -> Double { median(i) { $0.seconds } }
        func cpu(_ i: Int) -> Double { median(i) { $0.cpuSeconds } }
        func floorIndex(_ name: String) -> Int { floors.firstIndex { $0.name == name }! }
        let failed = runs.enumerated().filter { $0.element.contains { $0.status != 0 } }.map { $0.offset }

        print("\n== \(mib) MiB --binary message, right password last (median of \(reps), round-robin with the floors)")
        print("   floor k = k HMAC-SHA256 + AES-256-CBC + write, one thread, EVP in this process (file in page cache, or a cat pipe)")
        print("   " + pad("", 44) + "   wall   ×floor     CPU  ×floor CPU   peak RSS")
        for (number, binary) in binaries.enumerated() {
            if binaries.count > 1 { print("  \(number == 0 ? "this build" : "baseline"): \(binary)") }
            for (offset, shape) in shapes.enumerated() {
                let index = floors.count + number * shapes.count + offset
                let floor = floorIndex("floor \(shape.candidates)" + (shape.pipe ? " pipe" : ""))
                let rss = runs[index].map(\.maxRSSKiB).sorted()[runs[index].count / 2]
                print("  " + pad(shape.name, 45) + String(format: "%6.0f ms  %5.2f×  %6.0f ms  %5.2f×     %4d MiB",
                                                          wall(index) * 1e3, wall(index) / wall(floor), cpu(index) * 1e3, cpu(index) / cpu(floor), rss / 1024))
            }
        }
        for (index, floor) in floors.enumerated() {
            let label: String
            if floor.name.hasPrefix("openssl") {
                label = "OpenSSL tools: dgst -mac HMAC ×\(floor.name.suffix(1)), enc -d (file)"
            } else {
                label = "floor: \(floor.name.dropFirst(6).prefix(1)) HMAC + AES + write, in-process (\(floor.name.hasSuffix("pipe") ? "cat pipe" : "file"))"
            }
            print("  " + pad(label, 54) + String(format: "%6.0f ms  CPU %6.0f ms", wall(index) * 1e3, cpu(index) * 1e3))
        }
        if !failed.isEmpty { print("  WARNING: some runs failed (exit status not 0): measurements \(failed)") }
        // PyPI rncryptor holds the whole message several times over: once, and only up to 256 MiB.
        if mib <= 256, CommandLineBench.pypiAvailable {
            let script = "import rncryptor,sys\nd=open(sys.argv[1],'rb').read()\nc=rncryptor.RNCryptor()\nc.post_decrypt_data=lambda x: x\nopen(sys.argv[2],'wb').write(c.decrypt(d,'big'))\n"
            let py = CommandLineBench.run(PeerPython.command + ["-c", script, message, out])
            unlink(out)
            print("  " + pad("PyPI rncryptor, same message, file to file (one run)", 54)
                  + String(format: "%6.0f ms  CPU %6.0f ms  peak RSS %d MiB", py.seconds * 1e3, py.cpuSeconds * 1e3, py.maxRSSKiB / 1024))
        }
        unlink(message)
        unlink(body)
    }
}

/// The in-process floor for a large message: `hmacs` HMAC-SHA256 passes and AES-256-CBC
/// over it, and writing the plaintext to a file, through OpenSSL, on one thread.
enum Floor {
    static func run(message path: String, output: String, hmacs: Int, pipe: Bool) -> CommandLineBench.Run {
        var usageBefore = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usageBefore)
        let start = DispatchTime.now().uptimeNanoseconds
        var input: Int32
        var cat: pid_t = 0
        if pipe {
            var ends: [Int32] = [0, 0]
            _ = Glibc.pipe(&ends)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
            posix_spawn_file_actions_addclose(&actions, ends[0])
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/cat"), strdup(path), nil]
            posix_spawn(&cat, "/bin/cat", &actions, nil, argv, environ)
            argv.forEach { free($0) }
            posix_spawn_file_actions_destroy(&actions)
            close(ends[1])
            input = ends[0]
        } else {
            input = open(path, O_RDONLY)
        }
        let out = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let key = [UInt8](repeating: 1, count: 32), iv = [UInt8](repeating: 2, count: 16)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var plain = [UInt8](repeating: 0, count: (1 << 20) + 32)
        let mac = EVP_MAC_fetch(nil, "HMAC", nil)
        let digest = strdup("SHA256")
        let parameter = strdup("digest")!
        var params = [OSSL_PARAM_construct_utf8_string(parameter, digest, 0), OSSL_PARAM_construct_end()]
        let contexts = (0..<hmacs).map { _ in EVP_MAC_CTX_new(mac) }
        for context in contexts { EVP_MAC_init(context, key, key.count, &params) }
        let cipher = EVP_CIPHER_CTX_new()
        EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), nil, key, iv)
        EVP_CIPHER_CTX_set_padding(cipher, 0)
        var carry = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress! + carry, $0.count - carry) }
            if n <= 0 { break }
            let have = carry + n
            let whole = have - have % 16
            buffer.withUnsafeBytes { b in
                for context in contexts { _ = EVP_MAC_update(context, b.baseAddress!.assumingMemoryBound(to: UInt8.self) + carry, n) }
            }
            var written: Int32 = 0
            plain.withUnsafeMutableBytes { p in
                buffer.withUnsafeBytes { b in
                    _ = EVP_DecryptUpdate(cipher, p.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, b.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(whole))
                }
            }
            _ = plain.withUnsafeBytes { Glibc.write(out, $0.baseAddress!, Int(written)) }
            // A pipe returns any amount: keep the partial block for the next round.
            carry = have - whole
            if carry > 0 { buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + whole, byteCount: carry) } }
        }
        var tag = [UInt8](repeating: 0, count: 32)
        var tagLength = 0
        for context in contexts { EVP_MAC_final(context, &tag, &tagLength, 32) }
        close(input)
        close(out)
        var catCPU = 0.0
        if pipe {
            var status: Int32 = 0
            var usage = rusage()
            _ = wait4(cat, &status, 0, &usage)
            catCPU = seconds(usage.ru_utime) + seconds(usage.ru_stime)
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var usageAfter = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usageAfter)
        for context in contexts { EVP_MAC_CTX_free(context) }
        EVP_MAC_free(mac); EVP_CIPHER_CTX_free(cipher); free(digest); free(parameter)
        let cpu = seconds(usageAfter.ru_utime) + seconds(usageAfter.ru_stime) - seconds(usageBefore.ru_utime) - seconds(usageBefore.ru_stime) + catCPU
        return CommandLineBench.Run(seconds: elapsed, maxRSSKiB: 0, cpuSeconds: cpu, status: 0)
    }

    private static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
}
