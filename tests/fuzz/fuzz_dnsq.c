/*
 * fuzz_dnsq.c - the DNS client of one question (net/dnsq.h) under
 * arbitrary bytes: a reply (the server's, or any packet a capture saw
 * from a box), read against the id its first two bytes name; the same
 * bytes as resolv.conf; and, NUL-ended, as the name a query is built
 * for.  A reply that is read gives an rcode of 4 bits; a query that is
 * built fits its buffer and is not read back as an answer (QR clear).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/dnsq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char q[300];
	char ns[4][48], *copy;
	uint16_t id = size >= 2 ? (uint16_t)(data[0] << 8 | data[1]) : 0;
	uint32_t a;
	int rc, rcode, n, i;

	copy = malloc(size + 1);	/* exact size: ASan sees overreads */
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	rc = dnsq_reply((const unsigned char *)copy, size, id, &a, &rcode);
	if (rc >= 0 && (rcode < 0 || rcode > 15))
		abort();
	n = dnsq_resolv_parse(copy, size, ns, 4);
	if (n < 0 || n > 4)
		abort();
	for (i = 0; i < n; i++)
		if (memchr(ns[i], '\0', sizeof(ns[i])) == NULL)
			abort();
	copy[size] = '\0';
	n = dnsq_build(copy, id, q, sizeof(q));
	if (n > (int)sizeof(q) ||
	    (n > 0 && dnsq_reply(q, (size_t)n, id, &a, &rcode) >= 0))
		abort();
	free(copy);
	return 0;
}
