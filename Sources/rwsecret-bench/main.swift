// rwsecret-bench: the performance figures, measured side by side in one run.
//
// Usage: rwsecret-bench [--reps N] [SECTION ...]   (default: every section; `--list` names them)
//
// Every measurement of every selected section is timed round-robin (one sample
// of each in turn, repeated), so a burst of load from the shared machine hits
// them all alike; each figure is the median of its samples. Ratios print
// first, then times.
//
// To add a section: append a `Section` to `sections` below. A section names its
// measurements (a closure timed per sample, and how many operations one sample
// does, so times are per operation) and turns the medians of any measurement
// of the run, looked up by name, into ratio lines.

import COpenSSL
@_spi(Testing) import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Framework

/// One timed thing. `body` runs one sample of `operations` operations.
struct Measurement {
    let name: String
    let operations: Int
    /// Samples to take (expensive measurements may take fewer than the run's count).
    var samples: Int? = nil
    /// Run once before timing starts.
    var setUp: () -> Void = {}
    let body: () -> Void
}

/// A named group of measurements and the ratios it reports.
struct Section {
    let name: String
    let summary: String
    let measurements: [Measurement]
    /// Ratio lines from the medians (seconds per operation) of every measurement of the run, by name.
    let ratios: (Medians) -> [String]
}

/// Medians of the run, seconds per operation, by measurement name.
struct Medians {
    let values: [String: Double]
    subscript(name: String) -> Double? { values[name] }

    /// "a / b = 0.53×" when both were measured.
    func ratio(_ label: String, _ numerator: String, _ denominator: String) -> String? {
        guard let a = values[numerator], let b = values[denominator], b > 0 else { return nil }
        return "\(pad(label, 58)) \(format(a / b, decimals: 2))×"
    }
}

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func format(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let fraction = text[text.index(after: dot)...].count
        if fraction < decimals { text += String(repeating: "0", count: decimals - fraction) }
    } else if decimals > 0 {
        text += "." + String(repeating: "0", count: decimals)
    }
    return text
}

func formatTime(_ seconds: Double) -> String {
    if seconds >= 1 { return format(seconds, decimals: 3) + " s" }
    if seconds >= 1e-3 { return format(seconds * 1e3, decimals: 3) + " ms" }
    if seconds >= 1e-6 { return format(seconds * 1e6, decimals: 2) + " µs" }
    return format(seconds * 1e9, decimals: 2) + " ns"
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

// MARK: - Shared inputs

let benchPassword = SecretBytes(utf8: "correct horse battery staple")
let benchSalts: [[UInt8]] = (0..<3).map { i in (0..<8).map { UInt8(truncatingIfNeeded: $0 * 31 + i * 7 + 1) } }

// MARK: - Sections

/// The SHA-1 single-chain floor: one 64-byte block of EVP SHA-1 over a 16 KiB buffer.
/// One sample digests 16 KiB `digests` times; the operation is one block.
func sha1BlockMeasurement() -> Measurement {
    let bufferSize = 16 * 1024
    let digests = 64
    let buffer = [UInt8](repeating: 0xA5, count: bufferSize)
    let context = EVP_MD_CTX_new()!
    var digest = [UInt8](repeating: 0, count: 64)
    return Measurement(name: "sha1-block", operations: digests * bufferSize / 64) {
        buffer.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { output in
                for _ in 0..<digests {
                    EVP_DigestInit_ex(context, EVP_sha1(), nil)
                    EVP_DigestUpdate(context, input.baseAddress, bufferSize)
                    EVP_DigestFinal_ex(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), nil)
                }
            }
        }
    }
}

/// Compressions per RNCryptor key: 2 output blocks × 10,000 iterations × 2.
let compressionsPerKey = 2.0 * Double(KeyDerivation.iterations) * 2.0

func kdfMeasurement(_ name: String, _ implementation: KeyDerivation.Implementation, batch: Int, keysPerSample: Int) -> Measurement {
    let requests = (0..<batch).map { (password: benchPassword, salt: benchSalts[$0 % benchSalts.count]) }
    return Measurement(name: name, operations: keysPerSample) {
        for _ in 0..<(keysPerSample / batch) {
            _ = KeyDerivation.keys(requests, using: implementation)
        }
    }
}

let kdfSection = Section(
    name: "kdf",
    summary: "PBKDF2-HMAC-SHA1, 10,000 iterations, 32-byte key (RNCryptor's KDF); times per key",
    measurements: [
        sha1BlockMeasurement(),
        kdfMeasurement("openssl", .openssl, batch: 1, keysPerSample: 2),
        kdfMeasurement("portable", .portable, batch: 1, keysPerSample: 6),
        kdfMeasurement("sha", .sha, batch: 1, keysPerSample: 12),
        kdfMeasurement("sha-batch2", .sha, batch: 2, keysPerSample: 12),
        kdfMeasurement("sha-batch3", .sha, batch: 3, keysPerSample: 12),
    ],
    ratios: { m in
        // The floor is derived: 40,000 dependent compressions at the EVP block time.
        var values = m.values
        if let block = m["sha1-block"] { values["floor"] = block * compressionsPerKey }
        let d = Medians(values: values)
        return [
            d.ratio("OpenSSL PKCS5_PBKDF2_HMAC / floor", "openssl", "floor"),
            d.ratio("portable (SHA1_Transform) / floor", "portable", "floor"),
            d.ratio("sha, one key (T1 ∥ T2) / floor", "sha", "floor"),
            d.ratio("sha, batch of 2, per key / floor", "sha-batch2", "floor"),
            d.ratio("sha, batch of 3, per key / floor", "sha-batch3", "floor"),
            d.ratio("portable / OpenSSL", "portable", "openssl"),
            d.ratio("sha, one key / OpenSSL", "sha", "openssl"),
            d.ratio("sha, batch of 3, per key / OpenSSL", "sha-batch3", "openssl"),
        ].compactMap { $0 }
    }
)

/// A small password-based message, decrypted with the right and a wrong password.
func decryptMeasurements() -> [Measurement] {
    let encryptor = Encryptor(password: benchPassword)
    let bytes = encryptor.update(Array("a small secret, forty-odd bytes of it.".utf8)) + encryptor.finalize()
    let wrong = SecretBytes(utf8: "correct horse battery stapler")
    return [
        Measurement(name: "decrypt-right", operations: 4) {
            for _ in 0..<4 { _ = try? Message(bytes).decrypt(password: benchPassword) }
        },
        Measurement(name: "decrypt-wrong", operations: 4) {
            for _ in 0..<4 { _ = try? Message(bytes).decrypt(password: wrong) }
        },
    ]
}

let decryptSection = Section(
    name: "password",
    summary: "Message(bytes).decrypt(password:) on a small message, \(KeyDerivation.activeImplementation) KDF; times per message",
    measurements: decryptMeasurements(),
    ratios: { m in
        var lines = [m.ratio("wrong password / right password (expect ~0.5)", "decrypt-wrong", "decrypt-right")]
        if let wrong = m["decrypt-wrong"], let sha = m["sha"] {
            lines.append("\(pad("wrong password / one sha key", 58)) \(format(wrong / sha, decimals: 2))×")
        }
        return lines.compactMap { $0 }
    }
)

/// Sections in print order (in-process). The whole-process figures run the built
/// `rwsecret` binary and print last: section `cli` (CommandLineBench.swift).
let sections: [Section] = [kdfSection, decryptSection]
let cliSection = (name: "cli", summary: "whole process: one small message vs PyPI, 1,000 messages at --jobs 1 vs default")
let keyringSection = (name: "keyring", summary: "whole process: one small message, its password in a real gnome-keyring (private bus) vs --no-store --password-file")
let binarySection = (name: "binary", summary: "whole process: 256 MiB and 1 GiB --binary (1 or 3 candidates, file or pipe, -o or stdout, --jobs 1) against floors, CPU and peak RSS")
let goalsSection = (name: "goals", summary: "issue 36's standing ratios in one table, each against its baseline in the same turns (GoalsBench.swift; run from the repository root)")

// MARK: - Run

var repetitions = 15
var selected: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--reps":
        guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else {
            print("rwsecret-bench: --reps needs a positive number"); exit(2)
        }
        repetitions = value
    case "--list":
        for section in sections { print("\(pad(section.name, 10)) \(section.summary)") }
        print("\(pad(cliSection.name, 10)) \(cliSection.summary)")
        print("\(pad(keyringSection.name, 10)) \(keyringSection.summary)")
        print("\(pad(binarySection.name, 10)) \(binarySection.summary)")
        print("\(pad(goalsSection.name, 10)) \(goalsSection.summary)")
        exit(0)
    case "-h", "--help":
        print("usage: rwsecret-bench [--reps N] [--list] [SECTION ...]")
        exit(0)
    default:
        guard sections.contains(where: { $0.name == argument }) || [cliSection.name, keyringSection.name, binarySection.name, goalsSection.name].contains(argument) else {
            print("rwsecret-bench: no section '\(argument)' (--list names them)"); exit(2)
        }
        selected.append(argument)
    }
}
let running = sections.filter { selected.isEmpty || selected.contains($0.name) }
let runCLI = selected.isEmpty || selected.contains(cliSection.name)
let runKeyring = selected.isEmpty || selected.contains(keyringSection.name)
let runBinary = selected.isEmpty || selected.contains(binarySection.name)
let runGoals = selected.isEmpty || selected.contains(goalsSection.name)
let measurements = running.flatMap(\.measurements)

/// /proc/loadavg's first three fields, where there is one.
let loadAverage: String? = {
    guard let file = fopen("/proc/loadavg", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), file) != nil else { return nil }
    let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}()

for measurement in measurements { measurement.setUp() }
// Warm-up: first use of EVP providers, the KDF's known-answer check, page faults.
for measurement in measurements { measurement.body() }

var samples = [String: [Double]]()
for round in 0..<repetitions {
    for measurement in measurements where round < (measurement.samples ?? repetitions) {
        let start = now()
        measurement.body()
        samples[measurement.name, default: []].append((now() - start) / Double(measurement.operations))
    }
}
let medians = Medians(values: samples.mapValues(median))

let version = String(cString: OpenSSL_version(OPENSSL_VERSION))
if let value = getenv("RWSECRET_KDF") { KeyDerivation.use(KeyDerivation.Implementation(rawValue: String(cString: value))) }
print("rwsecret-bench — \(version); KDF in use: \(KeyDerivation.activeImplementation)"
      + "; SHA extensions: \(KeyDerivation.cpuHasSHAExtensions ? "yes" : "no")"
      + (KeyDerivation.isAvailable(.sha) ? "" : " (sha path unavailable: rows marked sha ran the portable path)")
      + "; medians of \(repetitions) round-robin samples")
print("load average before the run: \(loadAverage ?? "?") (the machine's other work skews interleaved chains most: quote ratios from a quiet run)")
if !running.isEmpty {
print("")
print("Ratios")
for section in running {
    print("  [\(section.name)] \(section.summary)")
    for line in section.ratios(medians) { print("    \(line)") }
}
print("")
print("Times (median per operation)")
for section in running {
    print("  [\(section.name)]")
    if section.name == kdfSection.name, let block = medians["sha1-block"] {
        print("    \(pad("SHA-1 single-chain floor (40,000 × EVP block)", 56)) \(formatTime(block * compressionsPerKey))")
    }
    for measurement in section.measurements {
        guard let value = medians[measurement.name] else { continue }
        print("    \(pad(measurement.name, 56)) \(formatTime(value))")
    }
}
}

// The rwsecret binary built beside this one (`make bench` builds both), or $RWSECRET_BIN.
let rwsecretBinary: String = {
    let here = CommandLine.arguments[0]
    let folder = here.contains("/") ? String(here[..<here.lastIndex(of: "/")!]) : "."
    return getenv("RWSECRET_BIN").map { String(cString: $0) } ?? folder + "/rwsecret"
}()
if runCLI { CommandLineBench.report(rwsecret: rwsecretBinary) }
if runKeyring { KeyringBench.report(rwsecret: rwsecretBinary, samples: max(repetitions, 41)) }
if runBinary {
    // $RWSECRET_BENCH_MIB: the message sizes, e.g. "256" (default "256 1024").
    let sizes = getenv("RWSECRET_BENCH_MIB").map { String(cString: $0).split(separator: " ").compactMap { Int($0) } } ?? [256, 1024]
    for size in sizes { BinaryBench.report(rwsecret: rwsecretBinary, mib: size) }
}
if runGoals { GoalsBench.report(rwsecret: rwsecretBinary) }
