// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "rwsecret",
    products: [
        // Every kind: age, OpenPGP, Ansible Vault and RNCryptor, and the opener of any of them
        // (re-exports RWSecretCore).
        .library(name: "RWSecretKit", targets: ["RWSecretKit"]),
        // RNCryptor alone, with the password chain and the stores: links libcrypto (and loads
        // libsecret for the keyring), none of the other kinds' libraries.
        .library(name: "RWSecretCore", targets: ["RWSecretCore"]),
        // RNCryptor Swift's API over RWSecretKit: change `import RNCryptor` to `import RNCryptorCompat`.
        .library(name: "RNCryptorCompat", targets: ["RNCryptorCompat"]),
        // What people run: `decrypt` parsed by hand, without ArgumentParser; anything else execs
        // the whole tool, `rwsecret-commands` (installed in libexec/rwsecret).
        .executable(name: "rwsecret", targets: ["RWSecretFront"]),
        .executable(name: "rwsecret-commands", targets: ["rwsecret"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `make docs`: `swift package generate-documentation` (the DocC catalog of each library product).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // FilePath, FileDescriptor and Errno in the library's public API.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
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
        // libssh: OpenSSH private keys protected by a passphrase (--identity); loaded with dlopen.
        .systemLibrary(
            name: "CLibSSH",
            providers: [.apt(["libssh-4"])]
        ),
        // Botan 2: bcrypt-pbkdf for passphrase-protected OpenSSH RSA keys (loaded with dlopen).
        .systemLibrary(
            name: "CBotan",
            providers: [.apt(["libbotan-2-19"])]
        ),
        // Linux calls Swift cannot make itself: keyctl (the vault passphrase cache), O_TMPFILE.
        .systemLibrary(name: "CLinuxSyscalls"),
        // zlib: OpenPGP's ZIP and ZLIB compressed data (and, in the tests, the compressed vectors
        // of the C2SP age test kit). Its header only: the library is loaded with dlopen on first
        // use, as libbz2's and libargon2's (no pkgConfig: its -lz would link it into every binary).
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libbz2: OpenPGP's BZip2 compressed data (header only, loaded with dlopen).
        .systemLibrary(
            name: "CBZip2",
            providers: [.apt(["libbz2-dev"])]
        ),
        // libargon2: OpenPGP's Argon2 S2K (OpenSSL 3.0 has no Argon2; header only, loaded with dlopen).
        .systemLibrary(
            name: "CArgon2",
            providers: [.apt(["libargon2-dev"])]
        ),
        // The PBKDF2-HMAC-SHA1 inner-loop kernels (the one place SHA-1 is computed here).
        .target(name: "CSHA1Kernel"),
        // RNCryptor, the password chain, the stores and the scheduler: no other kind's library.
        .target(
            name: "RWSecretCore",
            dependencies: [
                "COpenSSL", "CLibSecret", "CLinuxSyscalls", "CSHA1Kernel",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // age, OpenPGP and Ansible Vault, the one registry of kinds and the opener of any kind.
        .target(
            name: "RWSecretKit",
            dependencies: [
                "RWSecretCore", "COpenSSL", "CLibSSH", "CBotan", "CLinuxSyscalls", "CZlib", "CBZip2", "CArgon2",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .executableTarget(
            name: "rwsecret",
            dependencies: [
                "RWSecretKit",
                "CLinuxSyscalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
        ),
        // `rwsecret`: the front. Its Shared/ files are links to the whole tool's own (one source).
        .executableTarget(
            name: "RWSecretFront",
            dependencies: [
                "RWSecretKit",
                "CLinuxSyscalls",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
        ),
        // The only module that imports Foundation (RWSecretKit stays Foundation-free).
        .target(name: "RNCryptorCompat", dependencies: ["RWSecretCore"]),
        .executableTarget(
            name: "rwsecret-bench",
            dependencies: ["RWSecretKit", "COpenSSL"]
        ),
        .testTarget(
            name: "RWSecretKitTests",
            dependencies: ["RWSecretKit", "COpenSSL", "CZlib", .product(name: "SystemPackage", package: "swift-system")],
            // The age test kit's vectors are inflated by the tests themselves, with zlib linked here.
            linkerSettings: [.linkedLibrary("z")]
        ),
        .testTarget(
            name: "RNCryptorCompatTests",
            dependencies: ["RNCryptorCompat"],
            // RNCryptor Swift's own tests, vendored (MIT): their licence and what was left out.
            exclude: ["Upstream/LICENSE", "Upstream/README.md"]
        ),
        .testTarget(
            name: "rwsecretTests",
            dependencies: ["rwsecret", "RWSecretKit"]
        ),
    ]
)
