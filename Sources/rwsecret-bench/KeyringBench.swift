import Foundation
import RWSecretKit

/// The keyring path against a run without a store: one small message whose password is
/// in a real gnome-keyring, started here on a private D-Bus bus in a temporary HOME (as
/// the keyring tests do: a bus config with no service folder, so nothing is ever
/// activated, and the daemon unlocked with a password on stdin), against the same
/// message with `--no-store --password-file`. Round-robin, medians of wall and CPU time.
enum KeyringBench {
    static func report(rwsecret: String, samples: Int) {
        print("\n== one small message: password in the keyring vs --no-store (median of \(samples), round-robin)")
        let keyring: PrivateBus
        do {
            keyring = try PrivateBus.start()
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

/// A private `dbus-daemon` and an unlocked `gnome-keyring-daemon` in a temporary folder.
final class PrivateBus {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    let root: String
    let environment: [String: String]
    private let processes: [Process]

    private init(root: String, environment: [String: String], processes: [Process]) {
        self.root = root
        self.environment = environment
        self.processes = processes
    }

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") + ["/usr/bin", "/bin"] where access("\(folder)/\(name)", X_OK) == 0 {
            return "\(folder)/\(name)"
        }
        return nil
    }

    static func start() throws -> PrivateBus {
        guard let keyringDaemon = executable("gnome-keyring-daemon") else {
            throw Missing(description: "gnome-keyring-daemon is not installed (Debian package gnome-keyring; `make deps` installs it)")
        }
        guard let busDaemon = executable("dbus-daemon"), let gdbus = executable("gdbus") else {
            throw Missing(description: "dbus-daemon or gdbus is not installed (Debian packages dbus, libglib2.0-bin)")
        }
        let root = CommandLineBench.temporaryDirectory() + "/keyring"
        for folder in ["", "/home", "/data", "/config", "/cache", "/run"] {
            try FileManager.default.createDirectory(atPath: root + folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        CommandLineBench.write(root + "/bus.conf", """
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
            """)
        var processes: [Process] = []
        func fail(_ what: String) -> Missing {
            for process in processes { process.terminate(); process.waitUntilExit() }
            try? FileManager.default.removeItem(atPath: root)
            return Missing(description: what)
        }
        let bus = Process()
        bus.executableURL = URL(fileURLWithPath: busDaemon)
        bus.arguments = ["--nofork", "--print-address", "--config-file=\(root)/bus.conf"]
        let address = Pipe()
        bus.standardOutput = address
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        processes.append(bus)
        var line: [UInt8] = []
        while let byte = try? address.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
        guard !line.isEmpty else { throw fail("dbus-daemon printed no address") }
        let environment = [
            "HOME": root + "/home", "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config",
            "XDG_CACHE_HOME": root + "/cache", "XDG_RUNTIME_DIR": root + "/run",
            "DBUS_SESSION_BUS_ADDRESS": String(decoding: line, as: UTF8.self),
        ]
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: keyringDaemon)
        daemon.arguments = ["--foreground", "--unlock", "--components=secrets"]
        daemon.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let password = Pipe()
        daemon.standardInput = password
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        processes.append(daemon)
        password.fileHandleForWriting.write(Data("bench-keyring-password".utf8))
        try? password.fileHandleForWriting.close()
        let wait = CommandLineBench.run([gdbus, "wait", "--session", "--timeout", "10", "org.freedesktop.secrets"], environment: environment)
        guard wait.status == 0 else { throw fail("gnome-keyring-daemon never owned org.freedesktop.secrets") }
        return PrivateBus(root: root, environment: environment, processes: processes)
    }

    func stop() {
        for process in processes.reversed() { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: root)
    }
}
