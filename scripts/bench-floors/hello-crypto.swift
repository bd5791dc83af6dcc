// The same floor with libcrypto linked (NEEDED, as rwsecret's) and initialised the way rwsecret
// does it (no configuration file read): what any Swift program over OpenSSL pays to start.
@_silgen_name("OPENSSL_init_crypto")
func OPENSSL_init_crypto(_ options: UInt64, _ settings: UnsafeRawPointer?) -> Int32
let OPENSSL_INIT_NO_LOAD_CONFIG: UInt64 = 0x0000_0080
guard OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nil) == 1 else { fatalError("OPENSSL_init_crypto") }
print("hello")
