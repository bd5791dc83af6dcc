// RWSecretKit is RWSecretCore (RNCryptor, the password chain, the stores) and every other kind:
// `import RWSecretKit` brings both, so a program moves from one product to the other by its import.
@_spi(Testing) @_exported public import RWSecretCore
