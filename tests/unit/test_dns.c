/*
 * Unit tests for net/dns: queries, answers and our own replies against
 * hex written down by hand from RFC 1035 / 6891 / 8914.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net/dns.h"
#include "t.h"

static size_t
hex(const char *h, unsigned char *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *h != '\0'; h++) {
		int v;

		if (*h >= '0' && *h <= '9')
			v = *h - '0';
		else if (*h >= 'a' && *h <= 'f')
			v = *h - 'a' + 10;
		else
			continue;
		if (hi < 0) {
			hi = v;
		} else if (n < cap) {
			out[n++] = (unsigned char)(hi << 4 | v);
			hi = -1;
		}
	}
	return n;
}

/* "Example.COM" A IN, id 0x1234, RD, OPT: udp 4096, DO. */
static const char q_example[] =
    "1234 0100 0001 0000 0000 0001"
    "07 4578616d706c65 03 434f4d 00 0001 0001"
    "00 0029 1000 00 00 8000 0000";

TEST(dns_query_known)
{
	unsigned char m[512];
	struct dns_query q;
	size_t n = hex(q_example, m, sizeof(m));

	CHECK_INT(dns_query_parse(m, n, &q), 0);
	CHECK_INT(q.h.id, 0x1234);
	CHECK_STR(q.q.name, "example.com");
	CHECK_INT(q.q.type, DNS_T_A);
	CHECK_INT(q.q.cls, DNS_C_IN);
	CHECK_INT(q.q.labels, 2);
	CHECK_INT(q.q.wlen, 13);
	CHECK_MEM(q.q.wire, q.q.wlen, m + 12, 13);	/* the case kept */
	CHECK_INT(q.edns, 1);
	CHECK_INT(q.udp, 4096);
	CHECK_INT(q.dnssec_ok, 1);
	/* one byte more, one byte less: refused */
	CHECK_INT(dns_query_parse(m, n + 1, &q), -EBADMSG);
	CHECK_INT(dns_query_parse(m, n - 1, &q), -EBADMSG);
	CHECK_INT(dns_query_parse(m, 11, &q), -EINVAL);
	m[2] |= 0x80;				/* an answer */
	CHECK_INT(dns_query_parse(m, n, &q), -EINVAL);
}

TEST(dns_reply_blocked_known)
{
	/* NXDOMAIN, RD RA, question echoed, OPT 1232 DO with one EDE:
	 * code 15 (Blocked), text "x". */
	static const char want_hex[] =
	    "1234 8183 0001 0000 0000 0001"
	    "07 4578616d706c65 03 434f4d 00 0001 0001"
	    "00 0029 04d0 00 00 8000 0007 000f 0003 000f 78";
	unsigned char m[512], want[512], out[512], txt[64];
	struct dns_query q;
	size_t n = hex(q_example, m, sizeof(m));
	size_t wn = hex(want_hex, want, sizeof(want));
	int len, code = -1;

	CHECK_INT(dns_query_parse(m, n, &q), 0);
	len = dns_build_reply(&q, 1, 0, DNS_R_NXDOMAIN, DNS_EDE_BLOCKED, "x",
	    out, sizeof(out));
	CHECK(len > 0);
	CHECK_MEM(out, (size_t)len, want, wn);
	CHECK_INT(dns_ede_read(out, (size_t)len, &code, (char *)txt,
	    sizeof(txt)), 1);
	CHECK_INT(code, 15);
	CHECK_STR((char *)txt, "x");
	/* no room: refused, not cut */
	CHECK_INT(dns_build_reply(&q, 1, 0, DNS_R_NXDOMAIN, DNS_EDE_BLOCKED,
	    "x", out, wn - 1), -ENOSPC);
}

TEST(dns_reply_no_edns_known)
{
	/* the same query without OPT: REFUSED carries no OPT at all
	 * (RFC 6891 6.1.1: none in a reply to a query without one). */
	static const char qh[] =
	    "beef 0100 0001 0000 0000 0000"
	    "07 76657273696f6e 04 62696e64 00 0010 0003";
	static const char want_hex[] =
	    "beef 8185 0001 0000 0000 0000"
	    "07 76657273696f6e 04 62696e64 00 0010 0003";
	unsigned char m[128], want[128], out[128];
	struct dns_query q;
	size_t n = hex(qh, m, sizeof(m)), wn = hex(want_hex, want, sizeof(want));
	int len;

	CHECK_INT(dns_query_parse(m, n, &q), 0);
	CHECK_STR(q.q.name, "version.bind");
	CHECK_INT(q.q.cls, DNS_C_CH);
	CHECK_INT(q.edns, 0);
	CHECK_INT(q.udp, 512);
	len = dns_build_reply(&q, 1, 0, DNS_R_REFUSED, DNS_EDE_PROHIBITED,
	    "no", out, sizeof(out));
	CHECK_MEM(out, (size_t)(len > 0 ? len : 0), want, wn);
}

TEST(dns_upstream_query_known)
{
	/* what we send: our id, RD only, the client's question as written,
	 * OPT 1232 with the client's DO */
	static const char want_hex[] =
	    "0007 0100 0001 0000 0000 0001"
	    "07 4578616d706c65 03 434f4d 00 0001 0001"
	    "00 0029 04d0 00 00 8000 0000";
	unsigned char m[512], want[512], out[512];
	struct dns_query q;
	size_t n = hex(q_example, m, sizeof(m));
	size_t wn = hex(want_hex, want, sizeof(want));
	int len;

	CHECK_INT(dns_query_parse(m, n, &q), 0);
	len = dns_build_query(&q, 7, out, sizeof(out));
	CHECK_MEM(out, (size_t)(len > 0 ? len : 0), want, wn);
}

/* An answer for example.com A: CNAME www.example.com (compressed), its
 * A 93.184.216.34 TTL 300 (pointing into the CNAME's rdata), and an A
 * for other.com that is not on the chain. */
static const char a_example[] =
    "1234 8180 0001 0003 0000 0000"
    "07 6578616d706c65 03 636f6d 00 0001 0001"		/* @12 */
    "c00c 0005 0001 00000e10 0006 03 777777 c00c"	/* @29, rdata @41 */
    "c029 0001 0001 0000012c 0004 5db8d822"		/* @47 */
    "05 6f74686572 03 636f6d 00 0001 0001 0000003c 0004 01020304";

TEST(dns_answer_known)
{
	unsigned char qm[512], m[512];
	struct dns_query q;
	struct dns_answer a;
	size_t qn = hex(q_example, qm, sizeof(qm));
	size_t n = hex(a_example, m, sizeof(m));

	CHECK_INT(dns_query_parse(qm, qn, &q), 0);
	CHECK_INT(dns_answer_parse(m, n, &q.q, 0x1234, &a), 0);
	CHECK_INT(a.rcode, 0);
	CHECK_INT(a.naddr, 1);
	CHECK_INT(a.a[0].addr, 0x5db8d822);
	CHECK_INT(a.a[0].ttl, 300);
	/* another id, another type: not an answer to this question */
	CHECK_INT(dns_answer_parse(m, n, &q.q, 0x1235, &a), -EBADMSG);
	q.q.type = DNS_T_AAAA;
	CHECK_INT(dns_answer_parse(m, n, &q.q, 0x1234, &a), -EBADMSG);
	q.q.type = DNS_T_A;
	/* cut inside the last record */
	CHECK_INT(dns_answer_parse(m, n - 1, &q.q, 0x1234, &a), -EBADMSG);
}

TEST(dns_name_bounds)
{
	unsigned char m[600];
	char out[DNS_NAME_TEXT];
	size_t off, i, n;

	/* a pointer to itself, and one pointing forward */
	n = hex("0000 0000 0001 0000 0000 0000 c00c 0001 0001", m, sizeof(m));
	off = 12;
	CHECK_INT(dns_name_read(m, n, &off, out, sizeof(out), NULL, NULL,
	    NULL), -EBADMSG);
	n = hex("0000 0000 0001 0000 0000 0000 c00e 00 0001 0001", m, sizeof(m));
	off = 12;
	CHECK_INT(dns_name_read(m, n, &off, out, sizeof(out), NULL, NULL,
	    NULL), -EBADMSG);
	/* two pointers to each other: the second one points forward */
	n = hex("c002 c000", m, sizeof(m));
	off = 2;
	CHECK_INT(dns_name_read(m, n, &off, out, sizeof(out), NULL, NULL,
	    NULL), -EBADMSG);
	/* 127 one-octet labels: 255 octets, the limit; 128: too long */
	for (i = 0; i < 128; i++) {
		m[2 * i] = 1;
		m[2 * i + 1] = 'a';
	}
	m[254] = 0;
	off = 0;
	CHECK_INT(dns_name_read(m, 255, &off, out, sizeof(out), NULL, NULL,
	    NULL), 0);
	CHECK_INT(off, 255);
	m[254] = 1;
	m[256] = 0;
	off = 0;
	CHECK_INT(dns_name_read(m, 257, &off, out, sizeof(out), NULL, NULL,
	    NULL), -EBADMSG);
	/* a label holding a dot and a NUL reads escaped, never as two */
	n = hex("03 612e62 02 0041 00", m, sizeof(m));
	off = 0;
	CHECK_INT(dns_name_read(m, n, &off, out, sizeof(out), NULL, NULL,
	    NULL), 0);
	CHECK_STR(out, "a\\046b.\\000a");
	/* the root, and the 0x40 label type */
	m[0] = 0;
	off = 0;
	CHECK_INT(dns_name_read(m, 1, &off, out, sizeof(out), NULL, NULL,
	    NULL), 0);
	CHECK_STR(out, ".");
	m[0] = 0x41;
	off = 0;
	CHECK_INT(dns_name_read(m, 3, &off, out, sizeof(out), NULL, NULL,
	    NULL), -EBADMSG);
}

TEST(dns_query_refusals)
{
	unsigned char m[512];
	struct dns_query q;
	size_t n;

	/* two questions */
	n = hex("0001 0100 0002 0000 0000 0000 01 61 00 0001 0001"
	    "01 62 00 0001 0001", m, sizeof(m));
	CHECK_INT(dns_query_parse(m, n, &q), -EBADMSG);
	/* two OPT records */
	n = hex("0001 0100 0001 0000 0000 0002 01 61 00 0001 0001"
	    "00 0029 1000 00 00 0000 0000 00 0029 1000 00 00 0000 0000",
	    m, sizeof(m));
	CHECK_INT(dns_query_parse(m, n, &q), -EBADMSG);
	/* an OPT whose option runs past its rdata */
	n = hex("0001 0100 0001 0000 0000 0001 01 61 00 0001 0001"
	    "00 0029 1000 00 00 0000 0004 000f 0009", m, sizeof(m));
	CHECK_INT(dns_query_parse(m, n, &q), -EBADMSG);
	/* an answer record in a query */
	n = hex("0001 0100 0001 0001 0000 0000 01 61 00 0001 0001"
	    "c00c 0001 0001 00000000 0004 01020304", m, sizeof(m));
	CHECK_INT(dns_query_parse(m, n, &q), -EBADMSG);
}

TEST(dns_ede_text_bound)
{
	unsigned char m[64], out[1024];
	char big[DNS_EDE_TEXTMAX + 2];
	struct dns_query q;
	size_t n = hex(q_example, m, sizeof(m));

	CHECK_INT(dns_query_parse(m, n, &q), 0);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(dns_build_reply(&q, 1, 0, 3, 15, big, out, sizeof(out)),
	    -EINVAL);
	big[DNS_EDE_TEXTMAX] = '\0';
	CHECK(dns_build_reply(&q, 1, 0, 3, 15, big, out, sizeof(out)) > 0);
}
