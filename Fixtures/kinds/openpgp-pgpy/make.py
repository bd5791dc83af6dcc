# PGPy (pure Python OpenPGP, `pip install PGPy`) makes a key (RSA 2048, Ed25519 + cv25519,
# P-256) and messages to it, plain and signed, for rwsecret's fixtures: run it in this folder.
import pgpy, sys, warnings
from pgpy.constants import PubKeyAlgorithm, KeyFlags, HashAlgorithm, SymmetricKeyAlgorithm, CompressionAlgorithm, EllipticCurveOID
warnings.filterwarnings("ignore")
def key(alg, size, subalg, subsize):
    k = pgpy.PGPKey.new(alg, size)
    uid = pgpy.PGPUID.new('PGPy fixture', email='pgpy@example.org')
    k.add_uid(uid, usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256],
              ciphers=[SymmetricKeyAlgorithm.AES256], compression=[CompressionAlgorithm.ZLIB, CompressionAlgorithm.Uncompressed])
    sub = pgpy.PGPKey.new(subalg, subsize)
    k.add_subkey(sub, usage={KeyFlags.EncryptCommunications, KeyFlags.EncryptStorage})
    return k
plain = b"a secret from PGPy\n"
for name, k in [("rsa", key(PubKeyAlgorithm.RSAEncryptOrSign, 2048, PubKeyAlgorithm.RSAEncryptOrSign, 2048)),
                ("cv25519", key(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519, PubKeyAlgorithm.ECDH, EllipticCurveOID.Curve25519)),
                ("p256", key(PubKeyAlgorithm.ECDSA, EllipticCurveOID.NIST_P256, PubKeyAlgorithm.ECDH, EllipticCurveOID.NIST_P256))]:
    open(f"pgpy-{name}.key.asc", "w").write(str(k))
    msg = pgpy.PGPMessage.new(plain, file=True)
    enc = k.pubkey.encrypt(msg, cipher=SymmetricKeyAlgorithm.AES256)
    open(f"pgpy-{name}.asc", "w").write(str(enc))
    signed = pgpy.PGPMessage.new(plain, file=True)
    signed |= k.sign(signed)
    enc2 = k.pubkey.encrypt(signed, cipher=SymmetricKeyAlgorithm.AES256)
    open(f"pgpy-{name}-signed.asc", "w").write(str(enc2))
