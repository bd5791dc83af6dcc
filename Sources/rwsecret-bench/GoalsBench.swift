import Foundation
@_spi(Testing) import RWSecretKit

/// Issue 36's standing ratios, each against its baseline run in the same turns (the two
/// commands alternate, the one that goes first alternating too; medians), printed as one
/// table at the end (`make bench`, `make bench-goals`):
/// - (a) one small message, whole process, against a bare `openssl version`, beside the floors
///   of any program here: a Swift "hello" built as the release is, the same with libcrypto
///   linked and initialised, and a C program doing only that (built by `make bench-floors`);
/// - (b) one small message whose password is in a real gnome-keyring (private D-Bus, the
///   tests' `PrivateKeyring`) against `secret-tool lookup` of the same item, beside the floor
///   of any reader (the lookup plus (a)'s Swift + libcrypto floor and the KDF), and how many
///   of either hung (each run is killed after `RWSECRET_BENCH_HANG_S` seconds);
/// - (c) per wrong password: the time a 64-password chain (right one last) adds over a chain of
///   one, whole process, against Python's `hashlib.pbkdf2_hmac` (OpenSSL's PKCS5_PBKDF2_HMAC)
///   doing the same 63 keys in a process against one doing none;
/// - (d) a 256 MiB `--binary` message with 3 candidates (the right one last), `-o OUT`, against
///   `openssl dgst -mac HMAC` then `openssl enc -d` (two passes), and rwsecret's peak RSS;
/// - (e) 1 GiB age and `gpg -c` files to stdout (`> OUT`) against `age -d` and `gpg -d` to
///   stdout: scripts/bench-age.sh and scripts/bench-openpgp.sh with STDOUT=1, their ratios read back.
/// Sizes and counts come from the environment (`RWSECRET_BENCH_*`, listed by `settings`).
enum GoalsBench {
    /// One line of the table.
    struct Row {
        let what: String
        let ratio: Double
        let goal: String
        let met: Bool?
        let detail: String
        let load: String
        let command: String
    }

    /// A run under a time limit (`CommandLineBench.run`'s `limit`).
    typealias Timed = CommandLineBench.Run

    static func integer(_ name: String, _ fallback: Int) -> Int {
        getenv(name).flatMap { Int(String(cString: $0)) }.map { max($0, 1) } ?? fallback
    }

    static func load() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// `turns` turns of every command; the order rotates each turn (a, b, c / b, c, a / …), so
    /// none always runs first after the previous one's exit.
    static func inTurns(_ commands: [() -> Timed], count: Int) -> [[Timed]] {
        var runs = Array(repeating: [Timed](), count: commands.count)
        for turn in 0..<count {
            for step in 0..<commands.count {
                let index = (turn + step) % commands.count
                runs[index].append(commands[index]())
            }
        }
        return runs
    }

    static func median(_ runs: [Timed], _ value: (Timed) -> Double = \.seconds) -> Double {
        let values = runs.filter { !$0.hung && $0.status == 0 }.map(value).sorted()
        guard !values.isEmpty else { return .nan }
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1e3) }

    static func failures(_ runs: [Timed]) -> Int { runs.filter { $0.status != 0 || $0.hung }.count }

    static func settings() -> String {
        "RWSECRET_BENCH_LATENCY_TURNS=\(integer("RWSECRET_BENCH_LATENCY_TURNS", 41)) RWSECRET_BENCH_KEYRING_RUNS=\(integer("RWSECRET_BENCH_KEYRING_RUNS", 200)) "
            + "RWSECRET_BENCH_KDF_TURNS=\(integer("RWSECRET_BENCH_KDF_TURNS", 7)) RWSECRET_BENCH_BINARY_MIB=\(integer("RWSECRET_BENCH_BINARY_MIB", 256)) "
            + "RWSECRET_BENCH_BINARY_TURNS=\(integer("RWSECRET_BENCH_BINARY_TURNS", 5)) RWSECRET_BENCH_STREAM_MIB=\(integer("RWSECRET_BENCH_STREAM_MIB", 1024)) "
            + "RWSECRET_BENCH_STREAM_ROUNDS=\(integer("RWSECRET_BENCH_STREAM_ROUNDS", 3)) RWSECRET_BENCH_HANG_S=\(integer("RWSECRET_BENCH_HANG_S", 10)) "
            + "RWSECRET_BENCH_ROWS=\"\(getenv("RWSECRET_BENCH_ROWS").map { String(cString: $0) } ?? "a b c d e")\""
    }

    static func report(rwsecret: String) {
        let dir = CommandLineBench.temporaryDirectory() + "/goals"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        print("\n== issue 36's standing ratios, each against its baseline in the same turns (\(settings()))")
        // Each part's lines as soon as it ends, also into a pipe (`make bench | tee LOG`).
        fflush(nil)
        // $RWSECRET_BENCH_ROWS: which rows to measure ("a b c d e", the default: all).
        let wanted = Set((getenv("RWSECRET_BENCH_ROWS").map { String(cString: $0) } ?? "a b c d e").split(separator: " ").map(String.init))
        var rows: [Row] = []
        if wanted.contains("a") { rows += latency(rwsecret, dir); fflush(nil) }
        if wanted.contains("b") { rows += keyring(rwsecret); fflush(nil) }
        if wanted.contains("c") { rows += wrongPassword(rwsecret, dir); fflush(nil) }
        if wanted.contains("d") { rows += binary(rwsecret, dir); fflush(nil) }
        if wanted.contains("e") { rows += streams(rwsecret) }
        print("\n== issue 36: the table (ratio = rwsecret's median ÷ the baseline's median in the same turns, unless said)")
        print("| what | ratio | goal | met | beside it (medians) | load average | command |")
        print("|---|---|---|---|---|---|---|")
        for row in rows {
            let ratio = row.ratio.isNaN ? "—" : String(format: "%.2f×", row.ratio)
            let met = row.met.map { $0 ? "yes" : "**no**" } ?? "not measured"
            print("| \(row.what) | \(ratio) | \(row.goal) | \(met) | \(row.detail) | \(row.load) | `\(row.command)` |")
        }
    }

    // MARK: - (a) latency

    /// The floors `make bench-floors` builds into .build/bench-floors ($RWSECRET_BENCH_FLOORS).
    static var floorsFolder: String {
        getenv("RWSECRET_BENCH_FLOORS").map { String(cString: $0) } ?? FileManager.default.currentDirectoryPath + "/.build/bench-floors"
    }

    static func latency(_ rwsecret: String, _ dir: String) -> [Row] {
        let turns = integer("RWSECRET_BENCH_LATENCY_TURNS", 41)
        let pw = dir + "/pw", msg = dir + "/msg"
        CommandLineBench.write(pw, "right\n")
        CommandLineBench.write(msg, Base64.encode(RNCryptor.encrypt(Array("a small secret".utf8), password: SecretBytes(utf8: "right"))) + "\n")
        let decrypt = [rwsecret, "decrypt", "--no-store", "--password-file", pw, msg]
        guard CommandLineBench.run(decrypt, limit: 10).status == 0 else {
            return [Row(what: "(a) one small message vs `openssl version`", ratio: .nan, goal: "≤ 1.6×", met: nil, detail: "rwsecret failed", load: load(), command: "")]
        }
        var names = ["rwsecret", "openssl version"]
        var commands: [() -> Timed] = [{ CommandLineBench.run(decrypt, limit: 10) }, { CommandLineBench.run(["openssl", "version"], limit: 10) }]
        // C + libcrypto's first HMAC and AES: OpenSSL 3 loads its provider and fills its name map at
        // the first use of an algorithm, which `openssl version` never makes (scripts/bench-floors/hello-evp.c).
        for (name, file) in [("Swift hello", "swift-hello"), ("Swift + libcrypto init", "swift-crypto"), ("C + libcrypto init", "c-crypto"),
                             ("C + first HMAC and AES", "c-evp")] {
            let path = floorsFolder + "/" + file
            if access(path, X_OK) == 0 { names.append(name); commands.append { CommandLineBench.run([path], limit: 10) } }
        }
        // The KDF of a right password (the HMAC key and the encryption key: what any RNCryptor
        // reader must derive), in this process with rwsecret's kernel, timed in the same turns.
        let salts = (benchSalts[0], benchSalts[1])
        names.append("KDF, two keys, in-process")
        commands.append {
            let start = now()
            _ = KeyDerivation.keys([(benchPassword, salts.0), (benchPassword, salts.1)], using: .sha)
            let seconds = now() - start
            return Timed(seconds: seconds, maxRSSKiB: 0, cpuSeconds: seconds, status: 0)
        }
        let before = load()
        let runs = inTurns(commands, count: turns)
        let medians = runs.map { median($0) }
        let cpus = runs.map { median($0, \.cpuSeconds) }
        print("\n(a) one small message, whole process, \(turns) turns (load \(before) → \(load()))")
        for (index, name) in names.enumerated() {
            print("  " + pad(name, 28) + String(format: "%8.2f ms  %5.2f× openssl version  CPU %.2f ms  %5.2f× its CPU", medians[index] * 1e3, medians[index] / medians[1], cpus[index] * 1e3, cpus[index] / cpus[1]))
        }
        let ratio = medians[0] / medians[1]
        let kdf = medians[names.count - 1]
        var floors = names.indices.dropFirst(2).dropLast().map { "\(names[$0]) \(String(format: "%.2f×", medians[$0] / medians[1]))" }
        floors.append("KDF \(ms(kdf))")
        if let swiftCrypto = names.firstIndex(of: "Swift + libcrypto init") {
            // rwsecret's floor: one small message makes no provider fetch (AES, SHA-256 and SHA-1
            // from OpenSSL's built-in method tables; scripts/check-startup.sh counts the calls).
            let floor = medians[swiftCrypto] + kdf
            floors.append(String(format: "floor = Swift + libcrypto + KDF %.2f×, rwsecret %.2f× it", floor / medians[1], medians[0] / floor))
            if let cCrypto = names.firstIndex(of: "C + libcrypto init"), let cEVP = names.firstIndex(of: "C + first HMAC and AES") {
                // What a reader that fetches its HMAC and AES from the provider pays beyond that.
                let firstUse = medians[cEVP] - medians[cCrypto]
                floors.append(String(format: "a reader with OpenSSL 3's first fetch (%.2f ms more) %.2f×", firstUse * 1e3, (floor + firstUse) / medians[1]))
            }
        }
        return [Row(what: "(a) one small message, whole process, vs a bare `openssl version`", ratio: ratio, goal: "≤ 1.6×", met: ratio <= 1.6,
                    detail: "rwsecret \(ms(medians[0])), openssl \(ms(medians[1])); CPU \(String(format: "%.2f×", cpus[0] / cpus[1]))"
                        + (names.count == 3 ? "; floors not built (make bench-floors)" : "; " + floors.joined(separator: ", ")),
                    load: before, command: "rwsecret decrypt --no-store --password-file PW MSG")]
    }

    // MARK: - (b) keyring

    static func keyring(_ rwsecret: String) -> [Row] {
        let count = integer("RWSECRET_BENCH_KEYRING_RUNS", 200)
        let limit = Double(integer("RWSECRET_BENCH_HANG_S", 10))
        let what = "(b) keyring decrypt vs `secret-tool lookup` of the same item"
        let keyring: PrivateKeyring
        do {
            keyring = try PrivateKeyring.start(password: "bench-keyring-password")
        } catch {
            print("\n(b) keyring: SKIPPED (\(error))")
            return [Row(what: what, ratio: .nan, goal: "≤ 1.3×, 0 hangs in 200", met: nil, detail: "SKIPPED: \(error)", load: load(), command: "")]
        }
        defer { keyring.stop() }
        let dir = keyring.root, env = keyring.environment
        let one = dir + "/one.txt"
        CommandLineBench.write(one, Base64.encode(RNCryptor.encrypt(Array("a small secret".utf8), password: SecretBytes(utf8: "right"))) + "\n")
        CommandLineBench.write(dir + "/add.txt", "right\n")
        guard let secretTool = PrivateKeyring.executable("secret-tool") else {
            return [Row(what: what, ratio: .nan, goal: "≤ 1.3×", met: nil, detail: "SKIPPED: secret-tool (libsecret-tools) not installed", load: load(), command: "")]
        }
        let lookup = [secretTool, "lookup", "label", "bench"]
        guard CommandLineBench.run([rwsecret, "password", "add", "bench"], environment: env, input: dir + "/add.txt", limit: limit).status == 0,
              CommandLineBench.run([rwsecret, "decrypt", one], environment: env, output: dir + "/out", limit: limit).status == 0,
              (try? String(contentsOfFile: dir + "/out", encoding: .utf8)) == "a small secret\n",
              CommandLineBench.run(lookup, environment: env, output: dir + "/lookup.out", limit: limit).status == 0,
              (try? String(contentsOfFile: dir + "/lookup.out", encoding: .utf8)) == "right" else {
            return [Row(what: what, ratio: .nan, goal: "≤ 1.3×", met: nil, detail: "SKIPPED: the password could not be stored or read back", load: load(), command: "")]
        }
        let before = load()
        CommandLineBench.write(dir + "/pw", "right\n")
        var commands: [() -> Timed] = [
            { CommandLineBench.run([rwsecret, "decrypt", one], environment: env, limit: limit) },
            { CommandLineBench.run(lookup, environment: env, limit: limit) },
            { CommandLineBench.run([rwsecret, "decrypt", "--no-store", "--password-file", dir + "/pw", one], environment: env, limit: limit) },
        ]
        // The floor of any reader of this message whose password is in the keyring: the lookup
        // itself (libsecret, D-Bus, the daemon) plus the small-message floor of row (a): a Swift
        // program with libcrypto linked and initialised (make bench-floors) and the KDF of the
        // right password, in the same turns. Not rwsecret's own --no-store run: that would count
        // rwsecret's start-up above the floor as part of the floor.
        let swiftCrypto = floorsFolder + "/swift-crypto"
        let hasFloor = access(swiftCrypto, X_OK) == 0
        if hasFloor {
            commands.append { CommandLineBench.run([swiftCrypto], limit: limit) }
            let salts = (benchSalts[0], benchSalts[1])
            commands.append {
                let start = now()
                _ = KeyDerivation.keys([(benchPassword, salts.0), (benchPassword, salts.1)], using: .sha)
                let seconds = now() - start
                return Timed(seconds: seconds, maxRSSKiB: 0, cpuSeconds: seconds, status: 0)
            }
        }
        let runs = inTurns(commands, count: count)
        let ours = median(runs[0]), theirs = median(runs[1]), alone = median(runs[2])
        let hangs = runs[0].filter(\.hung).count, toolHangs = runs[1].filter(\.hung).count
        let failed = failures(runs[0]) - hangs
        print("\n(b) keyring, \(count) turns, each run killed after \(Int(limit)) s (load \(before) → \(load()))")
        print("  " + pad("rwsecret decrypt (keyring)", 28) + String(format: "%8.2f ms  CPU %.2f ms  hangs %d, other failures %d", ours * 1e3, median(runs[0], \.cpuSeconds) * 1e3, hangs, failed))
        print("  " + pad("secret-tool lookup", 28) + String(format: "%8.2f ms  CPU %.2f ms  hangs %d", theirs * 1e3, median(runs[1], \.cpuSeconds) * 1e3, toolHangs))
        print("  " + pad("rwsecret --no-store", 28) + String(format: "%8.2f ms  CPU %.2f ms   (the keyring's share: %.2f ms)", alone * 1e3, median(runs[2], \.cpuSeconds) * 1e3, (ours - alone) * 1e3))
        let ratio = ours / theirs
        let cpuRatio = median(runs[0], \.cpuSeconds) / median(runs[1], \.cpuSeconds)
        var floor = "floor not measured (make bench-floors)"
        if hasFloor {
            let crypto = median(runs[3]), kdf = median(runs[4])
            let floorSeconds = theirs + crypto + kdf
            print("  " + pad("Swift + libcrypto init", 28) + String(format: "%8.2f ms  CPU %.2f ms", crypto * 1e3, median(runs[3], \.cpuSeconds) * 1e3))
            print("  " + pad("KDF, two keys, in-process", 28) + String(format: "%8.2f ms", kdf * 1e3))
            print("  " + pad("floor", 28) + String(format: "%8.2f ms = lookup + Swift/libcrypto + KDF: %.2f× the lookup; rwsecret %.2f× the floor", floorSeconds * 1e3, floorSeconds / theirs, ours / floorSeconds))
            floor = "floor = lookup + Swift + libcrypto init (\(ms(crypto))) + KDF (\(ms(kdf))) = \(ms(floorSeconds)), \(String(format: "%.2f×", floorSeconds / theirs)); rwsecret \(String(format: "%.2f×", ours / floorSeconds)) the floor"
        }
        return [
            Row(what: what, ratio: ratio, goal: "≤ 1.3×", met: ratio <= 1.3,
                detail: "rwsecret \(ms(ours)), secret-tool \(ms(theirs)), CPU \(String(format: "%.2f×", cpuRatio)); \(floor); rwsecret --no-store \(ms(alone)) (the keyring's share \(ms(ours - alone)))", load: before, command: "rwsecret decrypt MSG (password in the keyring)"),
            Row(what: "(b) keyring decrypts that hung (killed after \(Int(limit)) s) / failed", ratio: .nan, goal: "0 in 200", met: count >= 200 ? hangs == 0 && failed == 0 : nil,
                detail: "\(hangs) hung, \(failed) failed in \(count) runs (secret-tool: \(toolHangs) hung)", load: before, command: "the same, \(count) times"),
        ]
    }

    // MARK: - (c) per wrong password

    static func wrongPassword(_ rwsecret: String, _ dir: String) -> [Row] {
        let turns = integer("RWSECRET_BENCH_KDF_TURNS", 7)
        let wrong = 63
        let msg = dir + "/chain-msg", one = dir + "/one-pw", chain = dir + "/chain-pw"
        CommandLineBench.write(msg, Base64.encode(RNCryptor.encrypt(Array("hello".utf8), password: SecretBytes(utf8: "the-right-one"))) + "\n")
        CommandLineBench.write(one, "the-right-one\n")
        CommandLineBench.write(chain, ((1...wrong).map { "wrong-password-\($0)" } + ["the-right-one"]).joined(separator: "\n") + "\n")
        // Python's hashlib.pbkdf2_hmac is OpenSSL's PKCS5_PBKDF2_HMAC: the same 10,000-iteration,
        // 32-byte key per wrong password, N times in one process, against a process doing none.
        let python = getenv("RWSECRET_BENCH_PYTHON").map { String(cString: $0) } ?? (access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3")
        let script = "import hashlib,sys\nn=int(sys.argv[1])\nfor i in range(n): hashlib.pbkdf2_hmac('sha1', b'wrong-password-%d' % i, b'12345678', 10000, 32)\n"
        let commands: [() -> Timed] = [
            { CommandLineBench.run([rwsecret, "decrypt", "--no-store", "--jobs", "1", "--password-file", chain, msg], limit: 60) },
            { CommandLineBench.run([rwsecret, "decrypt", "--no-store", "--jobs", "1", "--password-file", one, msg], limit: 60) },
            { CommandLineBench.run([rwsecret, "decrypt", "--no-store", "--password-file", chain, msg], limit: 60) },
            { CommandLineBench.run([rwsecret, "decrypt", "--no-store", "--password-file", one, msg], limit: 60) },
            { CommandLineBench.run([python, "-c", script, "\(wrong)"], limit: 60) },
            { CommandLineBench.run([python, "-c", script, "0"], limit: 60) },
            {
                // The kernel alone: 8 keys of one password each, one at a time, in this process.
                let start = now()
                for index in 0..<8 { _ = KeyDerivation.keys([(benchPassword, benchSalts[index % 3])], using: .sha) }
                let seconds = (now() - start) / 8
                return Timed(seconds: seconds, maxRSSKiB: 0, cpuSeconds: seconds, status: 0)
            },
        ]
        let what = "(c) per wrong password vs Python's `hashlib.pbkdf2_hmac` (OpenSSL)"
        guard commands.allSatisfy({ $0().status == 0 }) else {
            return [Row(what: what, ratio: .nan, goal: "≥ 6× faster", met: nil, detail: "a command failed (python3?)", load: load(), command: "")]
        }
        let before = load()
        let runs = inTurns(commands, count: turns)
        let m = runs.map { median($0) }
        let cpu = runs.map { median($0, \.cpuSeconds) }
        let oursOne = (m[0] - m[1]) / Double(wrong), oursDefault = (m[2] - m[3]) / Double(wrong)
        let theirs = (m[4] - m[5]) / Double(wrong)
        let oursCPU = (cpu[0] - cpu[1]) / Double(wrong), theirsCPU = (cpu[4] - cpu[5]) / Double(wrong)
        print("\n(c) per wrong password: (64-password chain − chain of one) ÷ 63, whole process, \(turns) turns (load \(before) → \(load()))")
        print("  " + pad("rwsecret --jobs 1", 28) + String(format: "%8.3f ms  CPU %.3f ms   (runs %.1f / %.1f ms)", oursOne * 1e3, oursCPU * 1e3, m[0] * 1e3, m[1] * 1e3))
        print("  " + pad("rwsecret (default --jobs)", 28) + String(format: "%8.3f ms  CPU %.3f ms   (runs %.1f / %.1f ms)", oursDefault * 1e3, (cpu[2] - cpu[3]) / Double(wrong) * 1e3, m[2] * 1e3, m[3] * 1e3))
        print("  " + pad("Python hashlib.pbkdf2_hmac", 28) + String(format: "%8.3f ms  CPU %.3f ms   (runs %.1f / %.1f ms; %@)", theirs * 1e3, theirsCPU * 1e3, m[4] * 1e3, m[5] * 1e3, python))
        let kernel = m[6]
        print("  " + pad("kernel alone, in-process", 28) + String(format: "%8.3f ms  (Python ÷ kernel %.2f×: the bound of the whole-process ratio)", kernel * 1e3, theirs / kernel))
        let ratio = theirs / oursOne
        return [
            Row(what: what + ", one core each (`--jobs 1`)", ratio: ratio, goal: "≥ 6× (Python ÷ rwsecret)", met: ratio >= 6,
                detail: String(format: "rwsecret %.3f ms, Python %.3f ms a key; CPU %.2f×; default --jobs %.2f×; floor: the SHA-1 kernel alone %.3f ms, Python ÷ kernel %.2f×", oursOne * 1e3, theirs * 1e3, theirsCPU / oursCPU, theirs / oursDefault, kernel * 1e3, theirs / kernel),
                load: before, command: "rwsecret decrypt --no-store --jobs 1 --password-file CHAIN MSG"),
        ]
    }

    // MARK: - (d) a large --binary message, 3 candidates

    static func binary(_ rwsecret: String, _ dir: String) -> [Row] {
        let mib = integer("RWSECRET_BENCH_BINARY_MIB", 256)
        let turns = integer("RWSECRET_BENCH_BINARY_TURNS", 5)
        let what = "(d) \(mib) MiB `--binary`, 3 candidates, vs `openssl dgst` + `openssl enc -d`"
        let plain = dir + "/big.plain", message = dir + "/big.rncryptor", body = dir + "/big.body", out = dir + "/big.out"
        let fd = open(plain, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var block = Crypto.randomBytes(count: 1 << 20)
        for _ in 0..<mib { block[0] &+= 1; _ = block.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) } }
        close(fd)
        _ = CommandLineBench.run([rwsecret, "encrypt", "--binary", plain, "-o", message], environment: ["RWSECRET_PASSWORD": "big"], limit: 600)
        unlink(plain)
        defer { unlink(message); unlink(body); unlink(out) }
        _ = CommandLineBench.run(["/bin/sh", "-c", "tail -c +35 '\(message)' | head -c -32 > '\(body)'"], limit: 600)
        let wrong = dir + "/two-wrong"
        CommandLineBench.write(wrong, "wrong-one\ntwo-wrong\n")
        sync()
        let key = String(repeating: "01", count: 32), iv = String(repeating: "02", count: 16)
        let openssl = "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(key) '\(message)' > /dev/null && openssl enc -d -aes-256-cbc -K \(key) -iv \(iv) -nopad -in '\(body)' -out '\(out)'"
        // The floors, in this process through OpenSSL's EVP calls on one thread (BinaryBench's
        // `Floor`: the message read once, k HMAC-SHA256 passes, AES-256-CBC, the plaintext written):
        // k = 3 is the work three candidates need (each has its own HMAC key: nothing can be
        // shared), k = 1 the baseline's work. `openssl dgst` itself is slower than either.
        func floor(_ hmacs: Int) -> Timed {
            defer { unlink(out) }
            let run = Floor.run(message: message, output: out, hmacs: hmacs, pipe: false)
            return Timed(seconds: run.seconds, maxRSSKiB: 0, cpuSeconds: run.cpuSeconds, status: 0)
        }
        let commands: [() -> Timed] = [
            { defer { unlink(out) }; return CommandLineBench.run([rwsecret, "decrypt", "--no-store", "--binary", "--password-file", wrong, message, "-o", out], environment: ["RWSECRET_PASSWORD": "big"], limit: 600) },
            { defer { unlink(out) }; return CommandLineBench.run(["/bin/sh", "-c", openssl], limit: 600) },
            { floor(3) },
            { floor(1) },
        ]
        let before = load()
        let runs = inTurns(commands, count: turns)
        let ours = median(runs[0]), theirs = median(runs[1]), three = median(runs[2]), one = median(runs[3])
        // Three HMACs spread over the cores, never less than one HMAC + AES + write: a bound derived
        // from the two measured floors, not a run.
        let cores = Double(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let least = max(three / cores, one)
        let rss = runs[0].map(\.maxRSSKiB).max() ?? 0
        print("\n(d) \(mib) MiB --binary, 3 candidates (2 wrong first), -o OUT, \(turns) turns (load \(before) → \(load()))")
        print("  " + pad("rwsecret", 28) + String(format: "%8.0f ms  CPU %.0f ms  peak RSS %d MiB  failures %d", ours * 1e3, median(runs[0], \.cpuSeconds) * 1e3, rss / 1024, failures(runs[0])))
        print("  " + pad("openssl dgst + enc -d", 28) + String(format: "%8.0f ms  CPU %.0f ms", theirs * 1e3, median(runs[1], \.cpuSeconds) * 1e3))
        print("  " + pad("floor: 3 HMAC + AES, 1 thread", 28) + String(format: "%8.0f ms  CPU %.0f ms  (in-process EVP)", three * 1e3, median(runs[2], \.cpuSeconds) * 1e3))
        print("  " + pad("floor: 1 HMAC + AES, 1 thread", 28) + String(format: "%8.0f ms  CPU %.0f ms  (the baseline's work, in-process)", one * 1e3, median(runs[3], \.cpuSeconds) * 1e3))
        print("  " + pad("floor on \(Int(cores)) CPUs (derived)", 28) + String(format: "%8.0f ms  = max(3-HMAC floor ÷ %d, 1-HMAC floor): %.2f× the two passes", least * 1e3, Int(cores), least / theirs))
        let ratio = ours / theirs
        return [Row(what: what, ratio: ratio, goal: "≤ 0.8×, peak RSS ≤ 64 MiB", met: failures(runs[0]) == 0 ? ratio <= 0.8 && rss <= 64 << 10 : nil,
                    detail: String(format: "rwsecret %.0f ms (peak RSS %d MiB), OpenSSL's two passes %.0f ms; floor: 3 HMACs + AES in-process, spread over %d CPUs, %.2f× (1 thread: %.0f ms)", ours * 1e3, rss / 1024, theirs * 1e3, Int(cores), least / theirs, three * 1e3),
                    load: before, command: "rwsecret decrypt --no-store --binary --password-file TWO-WRONG MSG -o OUT (RWSECRET_PASSWORD right)")]
    }

    // MARK: - (e) 1 GiB age and gpg -c to stdout

    /// Runs a bench script, echoing its output; returns the output.
    static func script(_ arguments: [String], environment: [String: String]) -> String {
        fflush(nil)
        let log = CommandLineBench.temporaryDirectory() + "/script.log"
        defer { unlink(log) }
        let result = CommandLineBench.run(["/bin/bash"] + arguments, environment: environment, output: log, limit: 3600)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") { print("  " + line) }
        if result.status != 0 { print("  (exit status \(result.status))") }
        return text
    }

    static func streams(_ rwsecret: String) -> [Row] {
        let mib = integer("RWSECRET_BENCH_STREAM_MIB", 1024)
        let rounds = integer("RWSECRET_BENCH_STREAM_ROUNDS", 3)
        let scripts = FileManager.default.currentDirectoryPath + "/scripts"
        var rows: [Row] = []
        // age: the script prints "rwsecret-stdout / age-stdout: 1.23x the median time, 19.0 MiB peak RSS (…)".
        print("\n(e) \(mib) MiB age file, to stdout: scripts/bench-age.sh, STDOUT=1, \(rounds) rounds")
        var before = load()
        let age = script([scripts + "/bench-age.sh", rwsecret], environment: ["STDOUT": "1", "ROUNDS": "\(rounds)", "SIZE_MIB": "\(mib)"])
        let ageLine = age.split(separator: "\n").first { $0.hasPrefix("rwsecret-stdout / age-stdout:") }
        let ageRatio = ageLine.flatMap { line in line.split(separator: " ").dropFirst(3).first.flatMap { Double($0.dropLast()) } } ?? .nan
        let ageRSS = ageLine.flatMap { line -> Double? in
            let words = line.split(separator: " ")
            return words.firstIndex(of: "MiB").flatMap { Double(words[$0 - 1]) }
        } ?? .nan
        let fileLine = age.split(separator: "\n").first { $0.hasPrefix("rwsecret / age:") }.map(String.init) ?? ""
        // The table's rows: NAME MEDIAN MIN MAX CPU RSS RUNS; CPU is user + system.
        let ageRows: [[Substring]] = age.split(separator: "\n").map { $0.split(separator: " ") }
        func ageCPU(_ name: String) -> Double {
            guard let row = ageRows.first(where: { $0.count >= 5 && $0[0] == name }) else { return .nan }
            return Double(row[4]) ?? .nan
        }
        let fileRatio: String = fileLine.split(separator: ":").dropFirst().first.map { String($0.split(separator: ",")[0]).trimmingCharacters(in: .whitespaces) } ?? "?"
        let ageCPURatio = ageCPU("rwsecret-stdout") / ageCPU("age-stdout")
        rows.append(Row(what: "(e) \(mib) MiB age file to stdout vs `age -d` to stdout", ratio: ageRatio, goal: "≤ 1.3×, peak RSS ≤ 64 MiB",
                        met: ageRatio.isNaN ? nil : ageRatio <= 1.3 && ageRSS <= 64,
                        detail: String(format: "CPU %.2f×; peak RSS %.0f MiB; same rounds with -o: %@", ageCPURatio, ageRSS, fileRatio),
                        load: before, command: "make bench-age STDOUT=1 ROUNDS=\(rounds) SIZE_MIB=\(mib)"))
        // gpg -c: the script prints a row per tool ("1024 none rwsecret WALL CPU RSS") and "1024 none ratio R".
        print("\n(e) \(mib) MiB `gpg -c` file, to stdout: scripts/bench-openpgp.sh, STDOUT=1, \(rounds) rounds")
        before = load()
        let pgp = script([scripts + "/bench-openpgp.sh", rwsecret], environment: ["STDOUT": "1", "ROUNDS": "\(rounds)", "SIZES": "\(mib)", "COMPRESS": "none"])
        let words = pgp.split(separator: "\n").map { $0.split(separator: " ") }
        let pgpRatio = words.first { $0.count >= 4 && $0[2] == "ratio" }.flatMap { Double($0[3]) } ?? .nan
        let pgpRSS = words.first { $0.count >= 6 && $0[2] == "rwsecret" }.flatMap { Double($0[5]) } ?? .nan
        func pgpCPU(_ tool: String) -> Double {
            guard let row = words.first(where: { $0.count >= 6 && $0[2] == tool }) else { return .nan }
            return Double(row[4]) ?? .nan
        }
        let pgpCPURatio = pgpCPU("rwsecret") / pgpCPU("gpg")
        rows.append(Row(what: "(e) \(mib) MiB `gpg -c` file to stdout vs `gpg -d` to stdout", ratio: pgpRatio, goal: "≤ 1.3×, peak RSS ≤ 64 MiB",
                        met: pgpRatio.isNaN ? nil : pgpRatio <= 1.3 && pgpRSS <= 64,
                        detail: String(format: "CPU %.2f×; peak RSS %.0f MiB (median of the runs)", pgpCPURatio, pgpRSS), load: before,
                        command: "make bench-openpgp STDOUT=1 SIZES=\(mib) COMPRESS=none ROUNDS=\(rounds)"))
        return rows
    }
}
