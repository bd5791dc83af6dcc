// swift-tools-version:6.0
import Foundation
import PackageDescription

/// libsecret's header folders from pkg-config: `-I` flags only. libsecret and GLib are
/// loaded with dlopen when the keyring is first used (Store/LibSecret), so nothing is
/// linked: a `pkgConfig:` system library would link them into every process, and
/// loading them costs each start about 3 ms.
func includeFlags(pkgConfig package: String) -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--cflags-only-I", package]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return [] }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init).filter { $0.hasPrefix("-I") }
}
let libsecretHeaders = includeFlags(pkgConfig: "libsecret-1").flatMap { ["-Xcc", $0] }

let package = Package(
    name: "rwsecret",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "RWSecretKit", targets: ["RWSecretKit"]),
        .executable(name: "rwsecret", targets: ["rwsecret"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // OpenSSL's libcrypto: every primitive and all randomness.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // libsecret: the Secret Service keyring.
        .systemLibrary(
            name: "CLibSecret",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // The PBKDF2-HMAC-SHA1 inner-loop kernels (the one place SHA-1 is computed here).
        .target(
            name: "CSHA1Kernel",
            cSettings: [.unsafeFlags(["-O3"])]
        ),
        .target(
            name: "RWSecretKit",
            dependencies: ["COpenSSL", "CLibSecret", "CSHA1Kernel"],
            swiftSettings: [.unsafeFlags(libsecretHeaders)],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .executableTarget(
            name: "rwsecret",
            dependencies: [
                "RWSecretKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
        ),
        .executableTarget(
            name: "rwsecret-bench",
            dependencies: ["RWSecretKit", "COpenSSL"]
        ),
        .testTarget(
            name: "RWSecretKitTests",
            dependencies: ["RWSecretKit", "COpenSSL"]
        ),
        .testTarget(
            name: "rwsecretTests",
            dependencies: ["rwsecret", "RWSecretKit"]
        ),
    ]
)
