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
        let status: Int32
    }

    /// Runs `argv` with `environment` added, stdin from `input` (or /dev/null), stdout to `output` (or /dev/null).
    static func run(_ argv: [String], environment: [String: String] = [:], input: String? = nil, output: String? = nil) -> Run {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv) == 0 else { return Run(seconds: .nan, maxRSSKiB: 0, cpuSeconds: .nan, status: -1) }
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        func inSeconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let cpu = inSeconds(usage.ru_utime) + inSeconds(usage.ru_stime)
        return Run(seconds: seconds, maxRSSKiB: usage.ru_maxrss, cpuSeconds: cpu, status: (status >> 8) & 0xff)
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
        run(["/usr/bin/env", "python3", "-c", "import rncryptor"]).status == 0
    }

    /// Small-message latency, 1,000-message throughput, and the 256 MiB binary case.
    static func report(rwsecret: String, bigMiB: Int = 256) {
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
            commands.append { run(["/usr/bin/env", "python3", "-c", pyScript, one, "right"]) }
            commands.append { run(["/usr/bin/env", "python3", "-c", pyScript, one, "wrong"]) }
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
        let many = dir + "/many.txt", passwords = dir + "/passwords"
        write(passwords, "alpha-1\nbravo-2\ncharlie-3\n")
        let chain = ["alpha-1", "bravo-2", "charlie-3"].map { SecretBytes(utf8: $0) }
        // Each message's password is drawn independently (SplitMix64, fixed seed). The chain
        // tries first the password that opened the latest finished message, and with several
        // messages in flight "latest" lags further behind: a periodic pattern of passwords
        // made that pay off more at --jobs 2 than at --jobs 1 (less work, a speed-up above
        // 2×). Independent draws give the head a 1-in-3 chance at any lag: both runs do the
        // same work, and the speed-up measures the cores alone.
        var state: UInt64 = 0x5EED
        func draw() -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % 3)
        }
        var lines: [String] = []
        for i in 0..<1000 { lines.append(Base64.encode(RNCryptor.encrypt(Array("message \(i)".utf8), password: chain[draw()]))) }
        write(many, lines.joined(separator: "\n") + "\n")
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
        print("\n== key derivations, --jobs 1 against --jobs 2 (the --verbose count; 5 runs of --jobs 2: fewest–most)")
        for (name, file, list) in [("1,000 random draws from 3 passwords", many, passwords), ("20 messages, 64 passwords, right one last", long, longPasswords)] {
            let serial = keyCount(rwsecret, ["--jobs", "1", "--password-file", list, file], in: dir)
            let parallel = (0..<5).map { _ in keyCount(rwsecret, ["--jobs", "2", "--password-file", list, file], in: dir) }
            let most = parallel.max() ?? 0
            print("  " + pad(name, 44) + String(format: "--jobs 1: %5d   --jobs 2: %5d–%5d   %+.1f%% at most", serial, parallel.min() ?? 0, most,
                                                   serial > 0 ? 100 * Double(most - serial) / Double(serial) : .nan))
        }

        // 3. A large binary message, right password, to a file; against the in-process floor.
        let plain = dir + "/big.plain", message = dir + "/big.rncryptor", out = dir + "/big.out"
        do {
            let fd = open(plain, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            var block = Crypto.randomBytes(count: 1 << 20)
            for _ in 0..<bigMiB { block[0] &+= 1; _ = block.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) } }
            close(fd)
        }
        _ = run([rwsecret, "encrypt", "--binary", plain, "-o", message], environment: ["RWSECRET_PASSWORD": "big"])
        unlink(plain)
        // The verified stream in four shapes: one candidate or three (two wrong passwords
        // first: the spool path), a file or a pipe on stdin; all against the same floor.
        let wrong = dir + "/two-wrong"
        write(wrong, "wrong-one\nwrong-two\n")
        let shapes: [(name: String, argv: [String], input: String?, output: String?)] = [
            ("1 candidate, file -o OUT", [rwsecret, "decrypt", "--no-store", "--binary", message, "-o", out], nil, nil),
            ("3 candidates, file -o OUT", [rwsecret, "decrypt", "--no-store", "--binary", "--password-file", wrong, message, "-o", out], nil, nil),
            ("1 candidate, cat | stdin > file", ["/bin/sh", "-c", "cat '\(message)' | '\(rwsecret)' decrypt --no-store --binary > '\(out)'"], nil, nil),
            ("3 candidates, cat | stdin > file", ["/bin/sh", "-c", "cat '\(message)' | '\(rwsecret)' decrypt --no-store --binary --password-file '\(wrong)' > '\(out)'"], nil, nil),
        ]
        var floors: [Double] = []
        var ours: [[Run]] = Array(repeating: [], count: shapes.count)
        for _ in 0..<3 {
            floors.append(Floor.hmacAESWrite(message: message, output: out))
            unlink(out)
            for (index, shape) in shapes.enumerated() {
                ours[index].append(run(shape.argv, environment: ["RWSECRET_PASSWORD": "big"], input: shape.input, output: shape.output))
                unlink(out)
            }
        }
        let floor = floors.sorted()[1]
        let best = ours[0].sorted { $0.seconds < $1.seconds }[1]
        print("\n== \(bigMiB) MiB --binary message, right password (median of 3 each)")
        for (index, shape) in shapes.enumerated() {
            let median = ours[index].sorted { $0.seconds < $1.seconds }[1]
            print("  " + pad(shape.name, 34) + String(format: "%8.1f ms  %5.2f× floor  peak RSS %d MiB  CPU %.0f ms", median.seconds * 1e3, median.seconds / floor, median.maxRSSKiB / 1024, median.cpuSeconds * 1e3))
        }
        print(String(format: "  floor: HMAC-SHA256 + AES-256-CBC + write, in this process  %8.1f ms", floor * 1e3))
        if pypi {
            let script = "import rncryptor,sys\nd=open(sys.argv[1],'rb').read()\nc=rncryptor.RNCryptor()\nc.post_decrypt_data=lambda x: x\nopen(sys.argv[2],'wb').write(c.decrypt(d,'big'))\n"
            let py = run(["/usr/bin/env", "python3", "-c", script, message, out])
            unlink(out)
            print(String(format: "  PyPI rncryptor (same message)                 %8.1f ms   peak RSS %d MiB  (%.1f× rwsecret)", py.seconds * 1e3, py.maxRSSKiB / 1024, py.seconds / best.seconds))
        }
        unlink(message)
    }
}

/// The in-process floor for a large message: HMAC-SHA256 over it, AES-256-CBC over it,
/// and writing the same number of bytes to a file, one after the other, through OpenSSL.
enum Floor {
    static func hmacAESWrite(message path: String, output: String) -> Double {
        let input = open(path, O_RDONLY)
        let out = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(input); close(out) }
        let key = [UInt8](repeating: 1, count: 32), iv = [UInt8](repeating: 2, count: 16)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var plain = [UInt8](repeating: 0, count: (1 << 20) + 32)
        let start = DispatchTime.now().uptimeNanoseconds
        let mac = EVP_MAC_fetch(nil, "HMAC", nil)
        let macCtx = EVP_MAC_CTX_new(mac)
        let digest = strdup("SHA256")
        let parameter = strdup("digest")!
        defer { free(parameter) }
        var params = [OSSL_PARAM_construct_utf8_string(parameter, digest, 0), OSSL_PARAM_construct_end()]
        EVP_MAC_init(macCtx, key, key.count, &params)
        let cipher = EVP_CIPHER_CTX_new()
        EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), nil, key, iv)
        EVP_CIPHER_CTX_set_padding(cipher, 0)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
            if n <= 0 { break }
            let whole = n - n % 16
            _ = buffer.withUnsafeBytes { EVP_MAC_update(macCtx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), n) }
            var written: Int32 = 0
            plain.withUnsafeMutableBytes { p in
                buffer.withUnsafeBytes { b in
                    _ = EVP_DecryptUpdate(cipher, p.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, b.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(whole))
                }
            }
            _ = plain.withUnsafeBytes { Glibc.write(out, $0.baseAddress!, Int(written)) }
        }
        var tag = [UInt8](repeating: 0, count: 32)
        var tagLength = 0
        EVP_MAC_final(macCtx, &tag, &tagLength, 32)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        EVP_MAC_CTX_free(macCtx); EVP_MAC_free(mac); EVP_CIPHER_CTX_free(cipher); free(digest)
        return seconds
    }
}
