/* PBKDF2-HMAC-SHA1 iteration loop on the x86 SHA extensions, 1-3 chains interleaved.

   Register layout (from the instruction definitions):
   - ABCD: one xmm, A in lane 3 (bits 127:96) ... D in lane 0.
   - E: one xmm, E in lane 3, lanes 2..0 zero.
   - A quad of message words W[4k..4k+3]: one xmm, W[4k] in lane 3.
   - sha1rnds4(ABCD, X, f): four rounds with function/constant f; X lane 3 is
     W[4k] + E (E is added by the caller for the first of the four rounds),
     lanes 2..0 are W[4k+1..4k+3].
   - sha1nexte(P, M): M with rol(P.lane3, 30) added to lane 3. After four
     rounds E = rol(A, 30) of the ABCD from before them, so
     sha1nexte(ABCD before quad k-1, W quad k) is the X of quad k.
   - W quad k+4 = sha1msg2(sha1msg1(Wq k, Wq k+1) ^ Wq k+2, Wq k+3), which is
     W[t] = rol(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16], 1) four words at a time.

   In PBKDF2-HMAC-SHA1 every block compressed after U1 is a 20-byte SHA-1
   digest followed by fixed padding (0x80, zeros, bit length 84*8 = 0x2A0).
   The digest words are exactly the SHA-1 state h0..h4 of the previous
   compression, which in this layout already is "W quad 0" (ABCD) and the top
   lane of "W quad 1" (E), so the loop needs no byte shuffles at all. */

#include "CSHA1Kernel.h"
#include <string.h>

void rw_secure_zero(void *p, size_t n) {
    volatile unsigned char *v = (volatile unsigned char *)p;
    while (n--) *v++ = 0;
}

#if defined(__x86_64__) || defined(__i386__)

#include <cpuid.h>
#include <immintrin.h>

#if __has_include(<sys/platform/x86.h>) && !defined(RW_CPUID_ONLY)
#include <sys/platform/x86.h>
#endif

/* Whether the SHA extensions (and the SSE4.1 and SSSE3 the kernel also uses) may be used.
   glibc 2.33+ answers from what the dynamic loader found at start-up: no CPUID here. In a
   virtual machine every CPUID traps to the hypervisor, and the four this took were asked
   again on every call (issue 36: 0.26% of a one-message run's samples). */
int rw_sha1ni_available(void) {
#if defined(CPU_FEATURE_ACTIVE)
    return CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSE4_1) && CPU_FEATURE_ACTIVE(SSSE3);
#else
    static int known = -1; /* CPUID's answer does not change: asked once (a race asks twice) */
    int seen = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (seen >= 0) return seen;
    unsigned a = 0, b = 0, c = 0, d = 0;
    int sha = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 19)) && (c & (1u << 9)) && __get_cpuid_max(0, 0) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        sha = (int)((b >> 29) & 1u); /* SHA */
    }
    __atomic_store_n(&known, sha, __ATOMIC_RELAXED);
    return sha;
#endif
}

#define RW_TARGET __attribute__((target("sha,sse4.1,ssse3")))
#define RW_INLINE static inline __attribute__((always_inline)) RW_TARGET

/* One quad (four rounds) q >= 1 of all n chains, round function f. */
#define RW_QUAD(q, f)                                                                   \
    for (int c = 0; c < n; c++) {                                                       \
        __m128i m;                                                                      \
        if ((q) < 4) {                                                                  \
            m = w[c][(q) & 3];                                                          \
        } else {                                                                        \
            m = _mm_sha1msg2_epu32(                                                     \
                _mm_xor_si128(_mm_sha1msg1_epu32(w[c][(q) & 3], w[c][((q) + 1) & 3]),   \
                              w[c][((q) + 2) & 3]),                                     \
                w[c][((q) + 3) & 3]);                                                   \
            w[c][(q) & 3] = m;                                                          \
        }                                                                               \
        __m128i x = _mm_sha1nexte_epu32(prev[c], m);                                    \
        prev[c] = abcd[c];                                                              \
        abcd[c] = _mm_sha1rnds4_epu32(abcd[c], x, f);                                   \
    }

/* Compresses one pre-padded digest block into each of n states.
   abcd/e: in the chaining state, out the new state. da/de: the 20-byte
   digest being hashed (as state words: da = h0..h3, de = h4 in lane 3). */
RW_INLINE void rw_compress_digest(int n, __m128i *abcd, __m128i *e, const __m128i *da, const __m128i *de) {
    const __m128i pad1 = _mm_set_epi32(0, (int)0x80000000u, 0, 0);
    const __m128i pad3 = _mm_set_epi32(0, 0, 0, 0x2A0);
    __m128i w[3][4], prev[3], save_abcd[3], save_e[3];

    for (int c = 0; c < n; c++) {
        save_abcd[c] = abcd[c];
        save_e[c] = e[c];
        w[c][0] = da[c];
        w[c][1] = _mm_or_si128(de[c], pad1);
        w[c][2] = _mm_setzero_si128();
        w[c][3] = pad3;
        /* quad 0: E is added to W0 by hand. */
        __m128i x = _mm_add_epi32(e[c], w[c][0]);
        prev[c] = abcd[c];
        abcd[c] = _mm_sha1rnds4_epu32(abcd[c], x, 0);
    }
    RW_QUAD(1, 0) RW_QUAD(2, 0) RW_QUAD(3, 0) RW_QUAD(4, 0)
    RW_QUAD(5, 1) RW_QUAD(6, 1) RW_QUAD(7, 1) RW_QUAD(8, 1) RW_QUAD(9, 1)
    RW_QUAD(10, 2) RW_QUAD(11, 2) RW_QUAD(12, 2) RW_QUAD(13, 2) RW_QUAD(14, 2)
    RW_QUAD(15, 3) RW_QUAD(16, 3) RW_QUAD(17, 3) RW_QUAD(18, 3) RW_QUAD(19, 3)
    for (int c = 0; c < n; c++) {
        /* E after 80 rounds is rol(A before the last quad, 30); add the saved h4. */
        e[c] = _mm_sha1nexte_epu32(prev[c], save_e[c]);
        abcd[c] = _mm_add_epi32(abcd[c], save_abcd[c]);
    }
}

/* The same with the whole message schedule computed first (fewer live registers:
   with three chains the version above spills and loses to two chains). */
/* One quad q >= 1 of all n chains from the precomputed schedule ms. */
#define RW_QUAD_S(q, f)                                                                   \
    for (int c = 0; c < n; c++) {                                                       \
        __m128i x = _mm_sha1nexte_epu32(prev[c], ms[c][q]);                             \
        prev[c] = abcd[c];                                                              \
        abcd[c] = _mm_sha1rnds4_epu32(abcd[c], x, f);                                   \
    }

RW_INLINE void rw_compress_digest_scheduled(int n, __m128i *abcd, __m128i *e, const __m128i *da, const __m128i *de) {
    const __m128i pad1 = _mm_set_epi32(0, (int)0x80000000u, 0, 0);
    const __m128i pad3 = _mm_set_epi32(0, 0, 0, 0x2A0);
    __m128i ms[3][20], prev[3], save_abcd[3], save_e[3];

    for (int c = 0; c < n; c++) {
        ms[c][0] = da[c];
        ms[c][1] = _mm_or_si128(de[c], pad1);
        ms[c][2] = _mm_setzero_si128();
        ms[c][3] = pad3;
        for (int q = 4; q < 20; q++)
            ms[c][q] = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(ms[c][q - 4], ms[c][q - 3]), ms[c][q - 2]), ms[c][q - 1]);
    }
    for (int c = 0; c < n; c++) {
        save_abcd[c] = abcd[c];
        save_e[c] = e[c];
        __m128i x = _mm_add_epi32(e[c], ms[c][0]);
        prev[c] = abcd[c];
        abcd[c] = _mm_sha1rnds4_epu32(abcd[c], x, 0);
    }
    RW_QUAD_S(1, 0) RW_QUAD_S(2, 0) RW_QUAD_S(3, 0) RW_QUAD_S(4, 0)
    RW_QUAD_S(5, 1) RW_QUAD_S(6, 1) RW_QUAD_S(7, 1) RW_QUAD_S(8, 1) RW_QUAD_S(9, 1)
    RW_QUAD_S(10, 2) RW_QUAD_S(11, 2) RW_QUAD_S(12, 2) RW_QUAD_S(13, 2) RW_QUAD_S(14, 2)
    RW_QUAD_S(15, 3) RW_QUAD_S(16, 3) RW_QUAD_S(17, 3) RW_QUAD_S(18, 3) RW_QUAD_S(19, 3)
    for (int c = 0; c < n; c++) {
        e[c] = _mm_sha1nexte_epu32(prev[c], save_e[c]);
        abcd[c] = _mm_add_epi32(abcd[c], save_abcd[c]);
    }
}

RW_INLINE __m128i rw_load_abcd(const uint32_t h[5]) {
    return _mm_set_epi32((int)h[0], (int)h[1], (int)h[2], (int)h[3]);
}
RW_INLINE __m128i rw_load_e(const uint32_t h[5]) {
    return _mm_set_epi32((int)h[4], 0, 0, 0);
}
RW_INLINE void rw_store(uint32_t h[5], __m128i abcd, __m128i e) {
    h[0] = (uint32_t)_mm_extract_epi32(abcd, 3);
    h[1] = (uint32_t)_mm_extract_epi32(abcd, 2);
    h[2] = (uint32_t)_mm_extract_epi32(abcd, 1);
    h[3] = (uint32_t)_mm_extract_epi32(abcd, 0);
    h[4] = (uint32_t)_mm_extract_epi32(e, 3);
}

/* The iteration loop for n (1...3, a constant after inlining) chains. */
RW_INLINE void rw_run(int n, rw_pbkdf2_chain *ch, uint32_t iterations) {
    __m128i ia[3], ie[3], oa[3], oe[3], ua[3], ue[3], ta[3], te[3], xa[3], xe[3];
    for (int c = 0; c < n; c++) {
        ia[c] = rw_load_abcd(ch[c].inner); ie[c] = rw_load_e(ch[c].inner);
        oa[c] = rw_load_abcd(ch[c].outer); oe[c] = rw_load_e(ch[c].outer);
        ua[c] = rw_load_abcd(ch[c].u);     ue[c] = rw_load_e(ch[c].u);
        ta[c] = ua[c]; te[c] = ue[c];
    }
    for (uint32_t i = 1; i < iterations; i++) {
        for (int c = 0; c < n; c++) { xa[c] = ia[c]; xe[c] = ie[c]; }
        if (n == 3) rw_compress_digest_scheduled(n, xa, xe, ua, ue);
        else rw_compress_digest(n, xa, xe, ua, ue);   /* inner: H(ipad-state, U) */
        for (int c = 0; c < n; c++) { ua[c] = oa[c]; ue[c] = oe[c]; }
        if (n == 3) rw_compress_digest_scheduled(n, ua, ue, xa, xe);
        else rw_compress_digest(n, ua, ue, xa, xe);   /* outer: U' = H(opad-state, inner) */
        for (int c = 0; c < n; c++) {
            ta[c] = _mm_xor_si128(ta[c], ua[c]);
            te[c] = _mm_xor_si128(te[c], ue[c]);
        }
    }
    for (int c = 0; c < n; c++) rw_store(ch[c].u, ta[c], te[c]);
    rw_secure_zero(ia, sizeof ia); rw_secure_zero(ie, sizeof ie);
    rw_secure_zero(oa, sizeof oa); rw_secure_zero(oe, sizeof oe);
    rw_secure_zero(ua, sizeof ua); rw_secure_zero(ue, sizeof ue);
    rw_secure_zero(ta, sizeof ta); rw_secure_zero(te, sizeof te);
    rw_secure_zero(xa, sizeof xa); rw_secure_zero(xe, sizeof xe);
}

RW_TARGET __attribute__((noinline)) static void rw_run1(rw_pbkdf2_chain *ch, uint32_t it) { rw_run(1, ch, it); }
RW_TARGET __attribute__((noinline)) static void rw_run2(rw_pbkdf2_chain *ch, uint32_t it) { rw_run(2, ch, it); }
RW_TARGET __attribute__((noinline)) static void rw_run3(rw_pbkdf2_chain *ch, uint32_t it) { rw_run(3, ch, it); }

int rw_pbkdf2_sha1ni(rw_pbkdf2_chain *chains, size_t count, uint32_t iterations) {
    if (!rw_sha1ni_available()) return -1;
    if (iterations < 2) return 0;
    /* Three at a time (four or more spill the sixteen xmm registers; measured
       here: 1 chain ~38 ns per compression, 2 chains ~21 ns, 3 chains ~20.7 ns);
       a remainder of four runs as two pairs rather than three and one. */
    while (count > 0) {
        if (count == 4 || count == 2) { rw_run2(chains, iterations); chains += 2; count -= 2; }
        else if (count == 1) { rw_run1(chains, iterations); chains += 1; count -= 1; }
        else { rw_run3(chains, iterations); chains += 3; count -= 3; }
    }
    return 0;
}

#else

int rw_sha1ni_available(void) { return 0; }
int rw_pbkdf2_sha1ni(rw_pbkdf2_chain *chains, size_t count, uint32_t iterations) {
    (void)chains; (void)count; (void)iterations;
    return -1;
}

#endif
