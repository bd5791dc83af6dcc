// swift-tools-version:6.0
import PackageDescription

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
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // The PBKDF2-HMAC-SHA1 inner-loop kernels (the one place SHA-1 is computed here).
        .target(
            name: "CSHA1Kernel",
            cSettings: [.unsafeFlags(["-O3"])]
        ),
        .target(
            name: "RWSecretKit",
            dependencies: ["COpenSSL", "CLibSecret", "CSHA1Kernel"]
        ),
        .executableTarget(
            name: "rwsecret",
            dependencies: [
                "RWSecretKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
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
