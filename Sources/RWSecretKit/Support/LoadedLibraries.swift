internal import CZlib
internal import CBZip2
internal import CArgon2

/// zlib, libbz2 and libargon2, loaded with dlopen on first use: a compressed OpenPGP packet, an
/// Argon2 S2K. Linked, they were mapped (and relocated) by every process, and a one-message
/// RNCryptor run needs none of them (issue 36); a consumer of RWSecretKit links none either.
/// Each is loaded once, by whichever thread asks first (a global's initialiser runs once).
enum LoadedLibraries {
    /// zlib's entry points, or the one line that says it is missing.
    static func zlib() throws(KindError) -> rws_zlib {
        guard let api = zlibTable.api else { throw .refused("compressed data needs zlib, which is missing (\(zlibTable.missing))") }
        return api.pointee
    }

    /// libbz2's entry points, or the one line that says it is missing.
    static func bzip2() throws(KindError) -> rws_bzip2 {
        guard let api = bzip2Table.api else { throw .refused("BZip2 compressed data needs libbz2, which is missing (\(bzip2Table.missing))") }
        return api.pointee
    }

    /// libargon2's entry points, or the one line that says it is missing.
    static func argon2() throws(KindError) -> rws_argon2 {
        guard let api = argon2Table.api else { throw .refused("an Argon2 S2K needs libargon2, which is missing (\(argon2Table.missing))") }
        return api.pointee
    }
}

/// One library's table (nil when it could not be loaded) and what was missing.
private struct LoadedTable<API> {
    let api: UnsafePointer<API>?
    let missing: String

    init(_ load: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> UnsafePointer<API>?) {
        var missing: UnsafePointer<CChar>?
        api = load(&missing)
        self.missing = missing.map { String(cString: $0) } ?? ""
    }
}

// Written once by their initialisers, only read after.
private nonisolated(unsafe) let zlibTable = LoadedTable<rws_zlib> { rws_zlib_load($0) }
private nonisolated(unsafe) let bzip2Table = LoadedTable<rws_bzip2> { rws_bzip2_load($0) }
private nonisolated(unsafe) let argon2Table = LoadedTable<rws_argon2> { rws_argon2_load($0) }
