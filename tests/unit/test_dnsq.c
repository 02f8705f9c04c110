/*
 * The DNS client of one question (net/dnsq.h): the query it builds, the
 * replies it reads (from outside: malformed ones refused, compression
 * loops and forward pointers too), and resolv.conf's nameserver lines.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "net/dnsq.h"
#include "util/err.h"
#include "t.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

TEST(dnsq_resolv_conf)
{
	static const char rc[] = "# generated\nsearch example\n"
	    "nameserver 100.100.100.100\nnameserver\t10.0.0.53 # x\n"
	    "options ndots:1\nnameserver\n";
	char ns[4][48];

	CHECK_INT(dnsq_resolv_parse(rc, strlen(rc), ns, 4), 2);
	CHECK_STR(ns[0], "100.100.100.100");
	CHECK_STR(ns[1], "10.0.0.53");
	CHECK_INT(dnsq_resolv_parse(rc, strlen(rc), ns, 1), 1);
}

TEST(dnsq_query)
{
	unsigned char q[64];
	static const unsigned char want[] = {
		0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 3, 'w', 'e', 'b', 4, 't', 'e', 's', 't', 0,
		0x00, 0x01, 0x00, 0x01,
	};
	int n = dnsq_build("web.test", 0x1234, q, sizeof(q));

	CHECK_MEM(q, (size_t)n, want, sizeof(want));
	CHECK_INT(dnsq_build("", 1, q, sizeof(q)), -EINVAL);
	CHECK_INT(dnsq_build("a..b", 1, q, sizeof(q)), -EINVAL);
	CHECK_INT(dnsq_build("a b", 1, q, sizeof(q)), -EINVAL);
	CHECK_INT(dnsq_build("web.test", 1, q, 20), -EINVAL);
}

TEST(dnsq_reply)
{
	/* An answer to "web" with a compressed name, CNAME first. */
	static const unsigned char ok[] = {
		0x12, 0x34, 0x81, 0x80, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00,
		0x00, 0x00, 3, 'w', 'e', 'b', 0, 0x00, 0x01, 0x00, 0x01,
		0xc0, 0x0c, 0x00, 0x05, 0x00, 0x01, 0, 0, 0, 60, 0x00, 0x02,
		0xc0, 0x0c,
		0xc0, 0x0c, 0x00, 0x01, 0x00, 0x01, 0, 0, 0, 60, 0x00, 0x04,
		10, 88, 0, 7,
	};
	static const unsigned char nx[] = {
		0x12, 0x34, 0x81, 0x83, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 3, 'w', 'e', 'b', 0, 0x00, 0x01, 0x00, 0x01,
	};
	unsigned char bad[sizeof(ok)];
	uint32_t a = 0;
	int rcode;

	CHECK_INT(dnsq_reply(ok, sizeof(ok), 0x1234, &a, &rcode), 1);
	CHECK(a == IP(10, 88, 0, 7));
	CHECK_INT(rcode, 0);
	CHECK_INT(dnsq_reply(nx, sizeof(nx), 0x1234, &a, &rcode), 0);
	CHECK_INT(rcode, 3);
	CHECK_INT(dnsq_reply(ok, sizeof(ok), 0x4321, &a, &rcode),
	    -EBOX_PROTO);
	CHECK_INT(dnsq_reply(ok, sizeof(ok) - 1, 0x1234, &a, &rcode),
	    -EBOX_PROTO);
	memcpy(bad, ok, sizeof(ok));
	bad[2] &= 0x7f;		/* a query, not an answer */
	CHECK_INT(dnsq_reply(bad, sizeof(bad), 0x1234, &a, &rcode),
	    -EBOX_PROTO);
	CHECK_INT(dnsq_reply(ok, 11, 0x1234, &a, &rcode), -EBOX_PROTO);
	/* Compression that is not strictly backward (the old reader skipped
	 * a pointer without looking where it led). */
	memcpy(bad, ok, sizeof(ok));
	bad[22] = 21;		/* the first answer's name points at itself */
	CHECK_INT(dnsq_reply(bad, sizeof(bad), 0x1234, &a, &rcode),
	    -EBOX_PROTO);
	bad[22] = 40;		/* forward, into the second answer */
	CHECK_INT(dnsq_reply(bad, sizeof(bad), 0x1234, &a, &rcode),
	    -EBOX_PROTO);
	bad[22] = 12;		/* back to the question's name: as before */
	CHECK_INT(dnsq_reply(bad, sizeof(bad), 0x1234, &a, &rcode), 1);
}
