import Foundation
import RWSecretKit

/// The keyring path against a run without a store: one small message whose password is
/// in a real gnome-keyring on a private D-Bus bus in a temporary HOME (`PrivateKeyring`,
/// the keyring tests' own: PrivateKeyring.swift is a link to Tests/RWSecretKitTests/Support),
/// against the same message with `--no-store --password-file`. Round-robin, medians of wall and CPU time.
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
        let runs = CommandLineBench.medians([
            { CommandLineBench.run([rwsecret, "decrypt", one], environment: env) },
            { CommandLineBench.run([rwsecret, "decrypt", "--no-store", "--password-file", passwordFile, one], environment: env) },
        ], count: samples)
        let cpu = runs.map(\.cpuSeconds)
        print(String(format: "  keyring (auto: one password stored)          %8.2f ms   CPU %.2f ms", runs[0].seconds * 1e3, cpu[0] * 1e3))
        print(String(format: "  --no-store --password-file                   %8.2f ms   CPU %.2f ms", runs[1].seconds * 1e3, cpu[1] * 1e3))
        print(String(format: "  keyring / --no-store                         %8.2f×      CPU %+.2f ms", runs[0].seconds / runs[1].seconds, (cpu[0] - cpu[1]) * 1e3))
    }
}
