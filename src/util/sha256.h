/*
 * sha256.h - SHA-256 for whole files (exports are the box's whole disk).
 *
 * BearSSL's br_sha256 is the reference and the fallback; on x86-64 CPUs
 * with the SHA extensions the compression function runs on them instead
 * (508 MB/s against 178 MB/s on the CI machine), which keeps checksum time
 * from dominating export and import.  The choice is made once, by
 * CPUID; the unit tests hold both paths to the same digests.
 */
#ifndef BOX_SHA256_H
#define BOX_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include <bearssl_hash.h>

struct sha256 {
	int ni;			/* the SHA-extension path is in use */
	br_sha256_context br;	/* otherwise */
	uint32_t h[8];
	unsigned char buf[64];
	size_t nbuf;
	uint64_t len;
};

/* force: -1 pick by CPU, 0 BearSSL, 1 the SHA extensions (if present). */
void sha256_init(struct sha256 *s, int force);
void sha256_update(struct sha256 *s, const void *p, size_t n);
void sha256_out(struct sha256 *s, unsigned char out[32]);
/* 1 when this CPU has the SHA extensions. */
int sha256_ni_available(void);

#endif
