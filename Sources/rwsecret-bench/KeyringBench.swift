import Foundation
import RWSecretKit

/// The keyring path against a run without a store: one small message whose password is
/// in a real gnome-keyring on a private D-Bus bus in a temporary HOME (`PrivateKeyring`,
/// the keyring tests' own: PrivateKeyring.swift is a link to Tests/RWSecretKitTests/Support),
/// against the same message with `--no-store --password-file`, and against `secret-tool lookup`
/// (libsecret's own C client, libsecret-tools) reading the same password: a process that does
/// nothing but the lookup, so what any libsecret client pays at the least; and, with
/// $RWSECRET_BENCH_BASELINE, an earlier build's keyring run. Round-robin, medians of wall and CPU time.
enum KeyringBench {
    static func report(rwsecret: String, samples: Int) {
        print("\n== one small message: password in the keyring vs --no-store (median of \(samples), round-robin)")
        let keyring: PrivateKeyring
        do {
            keyring = try PrivateKeyring.start(password: "bench-keyring-password")
        } catch {
            print("  skipped: \(error)")
            return
        }
        defer { keyring.stop() }
        let dir = keyring.root
        let one = dir + "/one.txt", passwordFile = dir + "/password"
        CommandLineBench.write(one, Base64.encode(RNCryptor.encrypt(Array("a small secret".utf8), password: SecretBytes(utf8: "right"))) + "\n")
        CommandLineBench.write(passwordFile, "right\n")
        CommandLineBench.write(dir + "/add.txt", "right\n")
        let env = keyring.environment
        guard CommandLineBench.run([rwsecret, "password", "add", "bench"], environment: env, input: dir + "/add.txt").status == 0,
              CommandLineBench.run([rwsecret, "decrypt", one], environment: env).status == 0 else {
            print("  skipped: rwsecret could not store or use a password in the private keyring")
            return
        }
        var commands: [() -> CommandLineBench.Run] = [
            { CommandLineBench.run([rwsecret, "decrypt", one], environment: env) },
            { CommandLineBench.run([rwsecret, "decrypt", "--no-store", "--password-file", passwordFile, one], environment: env) },
        ]
        // The floor: libsecret's CLI looking the password up by our schema's `label` attribute.
        let secretTool = PrivateKeyring.executable("secret-tool")
        var lookupIndex: Int?
        if let lookup = secretTool.map({ [$0, "lookup", "label", "bench"] }),
           CommandLineBench.run(lookup, environment: env, output: dir + "/lookup.out").status == 0,
           (try? String(contentsOfFile: dir + "/lookup.out", encoding: .utf8)) == "right" {
            lookupIndex = commands.count
            commands.append({ CommandLineBench.run(lookup, environment: env) })
        }
        // $RWSECRET_BENCH_BASELINE (as for the big-file section): an earlier build's keyring run
        // in the same round-robin, for a before/after figure.
        var baselineIndex: Int?
        if let decrypt = getenv("RWSECRET_BENCH_BASELINE").map({ [String(cString: $0), "decrypt", one] }),
           CommandLineBench.run(decrypt, environment: env).status == 0 {
            baselineIndex = commands.count
            commands.append({ CommandLineBench.run(decrypt, environment: env) })
        }
        let runs = CommandLineBench.medians(commands, count: samples)
        let cpu = runs.map(\.cpuSeconds)
        print(String(format: "  keyring (auto: one password stored)          %8.2f ms   CPU %.2f ms", runs[0].seconds * 1e3, cpu[0] * 1e3))
        print(String(format: "  --no-store --password-file                   %8.2f ms   CPU %.2f ms", runs[1].seconds * 1e3, cpu[1] * 1e3))
        print(String(format: "  keyring / --no-store                         %8.2f×      CPU %+.2f ms", runs[0].seconds / runs[1].seconds, (cpu[0] - cpu[1]) * 1e3))
        if let index = lookupIndex {
            print(String(format: "  secret-tool lookup (libsecret's C client, the lookup alone) %6.2f ms   CPU %.2f ms", runs[index].seconds * 1e3, cpu[index] * 1e3))
            print(String(format: "  secret-tool lookup / --no-store              %8.2f×      (the least any libsecret client pays, before decrypting anything)", runs[index].seconds / runs[1].seconds))
            print(String(format: "  keyring / secret-tool lookup                 %8.2f×", runs[0].seconds / runs[index].seconds))
        } else {
            print("  secret-tool lookup                               SKIPPED (\(secretTool == nil ? "secret-tool (libsecret-tools) not installed" : "it could not read the password"))")
        }
        if let index = baselineIndex {
            print(String(format: "  baseline build, keyring                      %8.2f ms   CPU %.2f ms   (this build: %.2f× its time)", runs[index].seconds * 1e3, cpu[index] * 1e3, runs[0].seconds / runs[index].seconds))
        }
    }
}
