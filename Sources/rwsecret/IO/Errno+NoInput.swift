import SystemPackage

extension Errno {
    /// Whether opening an input failed because it is not there to read (no such file, not
    /// allowed, a folder, a link loop, a name too long): status 66 (`noInput`), not 74.
    var meansNoInput: Bool {
        [.noSuchFileOrDirectory, .permissionDenied, .isDirectory, .notDirectory, .tooManySymbolicLinkLevels, .fileNameTooLong].contains(self)
    }
}
