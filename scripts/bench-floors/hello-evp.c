/* The start-up floor of a C program that uses libcrypto the way one small RNCryptor message
 * needs it: OPENSSL_init_crypto (no configuration file read, as rwsecret), one HMAC-SHA256
 * (HMAC_CTX, as rwsecret's Authenticator) and one AES-256-CBC decryption (EVP, as its Cipher)
 * of one block, print one line, exit. Against hello-crypto.c, it shows what OpenSSL 3 does on
 * the first use of an algorithm (the default provider, and its name map filled with every
 * legacy cipher and digest name), which `openssl version` never does. No key derivation:
 * `make bench-goals` times that in its own process. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
int main(void) {
    unsigned char key[32] = {1}, iv[16] = {2}, block[16] = {3}, out[32], tag[32];
    unsigned int tagLength = 0;
    int written = 0;
    if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT, NULL) != 1) return 1;
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    HMAC_CTX *mac = HMAC_CTX_new();
    if (mac == NULL || HMAC_Init_ex(mac, key, sizeof key, EVP_sha256(), NULL) != 1 || HMAC_Update(mac, block, sizeof block) != 1
        || HMAC_Final(mac, tag, &tagLength) != 1) return 1;
    HMAC_CTX_free(mac);
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
    if (cipher == NULL || EVP_CipherInit_ex2(cipher, EVP_aes_256_cbc(), key, iv, 0, NULL) != 1) return 1;
    EVP_CIPHER_CTX_set_padding(cipher, 0);
    if (EVP_CipherUpdate(cipher, out, &written, block, sizeof block) != 1) return 1;
    EVP_CIPHER_CTX_free(cipher);
    puts("hello");
    return 0;
}
