// fuzz-openpgpkey: the OpenPGP key parser (Sources/RWSecretKit/Kinds/OpenPGP/OpenPGPKeys.swift):
// armor, packet framing, v4 and v6 key packets, their public and secret fields, signature
// subpackets (key flags), user IDs. The input is a key file, read as a secret key (a
// protected one gets no passphrase: its S2K is parsed, never derived, so a fuzzer does not
// spend its time in Argon2) and as a public key. Checked, beyond "no crash, no leak, no
// overflow, no hang": a secret key that reads writes an unprotected form that reads again to
// the same fingerprint, and its armored form too.
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    fuzzInitialize()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenPGPKey(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    _ = OpenPGPTransferableKey.looksLikeKey(input)
    if let keys = try? OpenPGPTransferableKey.parse(input, secret: false) {
        Outcomes.record("public: \(keys.count)")
    }
    do {
        let keys = try OpenPGPTransferableKey.parse(input, secret: true, passphrase: { () throws(OpenPGPKeyError) -> SecretBytes in throw .needsPassphrase })
        for key in keys {
            let again = try OpenPGPTransferableKey.parse(key.unprotected!.withUnsafeBytes { Array($0) }, secret: true)
            require(again.count == 1 && again[0].fingerprintHex == key.fingerprintHex, "the unprotected form reads to another key")
            let armored = try OpenPGPTransferableKey.parse(key.armoredSecret()!.withUnsafeBytes { Array($0) }, secret: true)
            require(armored.count == 1 && armored[0].fingerprintHex == key.fingerprintHex, "the armored form reads to another key")
        }
        Outcomes.record("secret: \(keys.count)")
    } catch {
        Outcomes.record("refused")
    }
    return 0
}
