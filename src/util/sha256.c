/*
 * sha256.c - SHA-256 with the x86 SHA extensions when present (see
 * sha256.h).  FIPS 180-4: the state is eight words; each 64-byte block
 * runs 64 rounds over a message schedule.  The SHA extensions keep the
 * state as two vectors (ABEF and CDGH) and do two rounds per
 * sha256rnds2; sha256msg1/msg2 extend the schedule four words at a time.
 */
#include "util/sha256.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_NI_CODE 1
#endif

static const uint32_t sha256_iv[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
};

#ifdef HAVE_NI_CODE
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

__attribute__((target("sha,sse4.1")))
static void
blocks_ni(uint32_t st[8], const unsigned char *p, size_t nblocks)
{
	/* big-endian words: reverse the bytes of each 32-bit lane */
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL,
	    0x0405060700010203ULL);
	__m128i s0, s1, t, msg, m[4], save0, save1;
	int g;

	/* h0..h7 as two vectors: ABEF and CDGH (lane 3 first) */
	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&st[0]), 0xb1);
	s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&st[4]), 0x1b);
	s0 = _mm_alignr_epi8(t, s1, 8);
	s1 = _mm_blend_epi16(s1, t, 0xf0);
	for (; nblocks > 0; nblocks--, p += 64) {
		save0 = s0;
		save1 = s1;
		for (g = 0; g < 16; g++) {
			__m128i *cur = &m[g & 3];

			if (g < 4)
				*cur = _mm_shuffle_epi8(_mm_loadu_si128(
				    (const __m128i *)(p + 16 * g)), bswap);
			msg = _mm_add_epi32(*cur,
			    _mm_loadu_si128((const __m128i *)&K[4 * g]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
			if (g >= 3 && g < 15) {
				/* W[4g+4..4g+7] from the words before them */
				__m128i *next = &m[(g + 1) & 3];

				t = _mm_alignr_epi8(*cur, m[(g + 3) & 3], 4);
				*next = _mm_add_epi32(*next, t);
				*next = _mm_sha256msg2_epu32(*next, *cur);
			}
			msg = _mm_shuffle_epi32(msg, 0x0e);
			s0 = _mm_sha256rnds2_epu32(s0, s1, msg);
			if (g >= 1 && g < 13)
				m[(g + 3) & 3] = _mm_sha256msg1_epu32(
				    m[(g + 3) & 3], *cur);
		}
		s0 = _mm_add_epi32(s0, save0);
		s1 = _mm_add_epi32(s1, save1);
	}
	/* back to h0..h7 */
	t = _mm_shuffle_epi32(s0, 0x1b);
	s1 = _mm_shuffle_epi32(s1, 0xb1);
	s0 = _mm_blend_epi16(t, s1, 0xf0);
	s1 = _mm_alignr_epi8(s1, t, 8);
	_mm_storeu_si128((__m128i *)&st[0], s0);
	_mm_storeu_si128((__m128i *)&st[4], s1);
}

int
sha256_ni_available(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19)))
		return 0;	/* SSE4.1 */
	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	return (b >> 29) & 1;	/* SHA */
}
#else
static void
blocks_ni(uint32_t st[8], const unsigned char *p, size_t nblocks)
{
	(void)st;
	(void)p;
	(void)nblocks;
}

int
sha256_ni_available(void)
{
	return 0;
}
#endif

void
sha256_init(struct sha256 *s, int force)
{
	memset(s, 0, sizeof(*s));
	s->ni = force == 0 ? 0 : sha256_ni_available();
	if (s->ni)
		memcpy(s->h, sha256_iv, sizeof(s->h));
	else
		br_sha256_init(&s->br);
}

void
sha256_update(struct sha256 *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t k;

	if (!s->ni) {
		br_sha256_update(&s->br, data, n);
		return;
	}
	s->len += n;
	if (s->nbuf > 0) {
		k = 64 - s->nbuf < n ? 64 - s->nbuf : n;
		memcpy(s->buf + s->nbuf, p, k);
		s->nbuf += k;
		p += k;
		n -= k;
		if (s->nbuf < 64)
			return;
		blocks_ni(s->h, s->buf, 1);
		s->nbuf = 0;
	}
	if (n >= 64) {
		blocks_ni(s->h, p, n / 64);
		p += n & ~(size_t)63;
		n &= 63;
	}
	memcpy(s->buf, p, n);
	s->nbuf = n;
}

void
sha256_out(struct sha256 *s, unsigned char out[32])
{
	uint64_t bits;
	int i;

	if (!s->ni) {
		br_sha256_out(&s->br, out);
		return;
	}
	bits = s->len * 8;
	s->buf[s->nbuf++] = 0x80;
	if (s->nbuf > 56) {
		memset(s->buf + s->nbuf, 0, 64 - s->nbuf);
		blocks_ni(s->h, s->buf, 1);
		s->nbuf = 0;
	}
	memset(s->buf + s->nbuf, 0, 56 - s->nbuf);
	for (i = 0; i < 8; i++)
		s->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	blocks_ni(s->h, s->buf, 1);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}
