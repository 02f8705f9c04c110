/*
 * test_door.c - the door's strict HTTP readers and its refused
 * destinations (host/door/), against known answers written out by hand.
 */
#include <stdio.h>
#include <string.h>

#include "host/door/addr.h"
#include "host/door/http.h"
#include "t.h"

static int
req(const char *s, struct dh_req *r)
{
	char why[160];
	long end = dh_head_end(s, strlen(s));

	if (end <= 0)
		return end < 0 ? -2 : -3;
	return dh_req_parse(s, (size_t)end, r, why, sizeof(why));
}

TEST(door_request_heads_refused)
{
	static const struct {
		const char *head;
		int want;	/* 0 ok, -EINVAL refused, -2 at the end scan */
	} t[] = {
		{ "GET /s/a/x HTTP/1.1\r\nHost: b\r\n\r\n", 0 },
		{ "POST /s/a/x HTTP/1.1\r\nContent-Length: 5\r\n\r\n", 0 },
		{ "POST /s/a/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		  0 },
		{ "POST /s/a HTTP/1.1\r\nContent-Length: 5\r\n"
		  "Transfer-Encoding: chunked\r\n\r\n", -EINVAL },
		{ "POST /s/a HTTP/1.1\r\nContent-Length: 5\r\n"
		  "Content-Length: 5\r\n\r\n", -EINVAL },
		{ "POST /s/a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
		  "Transfer-Encoding: chunked\r\n\r\n", -EINVAL },
		{ "POST /s/a HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n"
		  "\r\n", -EINVAL },
		{ "POST /s/a HTTP/1.1\r\nContent-Length: +5\r\n\r\n", -EINVAL },
		{ "GET /s/a HTTP/1.1\r\nX: a\r\n b\r\n\r\n", -EINVAL },
		{ "GET /s/a HTTP/1.1\r\nX : a\r\n\r\n", -EINVAL },
		{ "GET /s/a HTTP/1.1\nX: a\r\n\r\n", -2 },
		{ "GET /s/a HTTP/1.1\r\nX: a\rb\r\n\r\n", -2 },
		{ "CONNECT api.test:443 HTTP/1.1\r\n\r\n", -EINVAL },
		{ "GET http://evil.test/ HTTP/1.1\r\n\r\n", -EINVAL },
		{ "GET * HTTP/1.1\r\n\r\n", -EINVAL },
		{ "GET /s/a HTTP/2.0\r\n\r\n", -EINVAL },
		{ "GET /s/a\x01 HTTP/1.1\r\n\r\n", -EINVAL },
		{ "G(T /s/a HTTP/1.1\r\n\r\n", -EINVAL },
		{ "GET /s/a HTTP/1.1\r\nX: a\x01\r\n\r\n", -EINVAL },
	};
	struct dh_req r;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int got = req(t[i].head, &r);

		if (got != t[i].want)
			fprintf(stderr, "  head %zu: %d\n", i, got);
		CHECK_INT(got, t[i].want);
	}
	CHECK_INT(req("POST /s/a/x HTTP/1.1\r\nContent-Length: 12\r\n\r\n",
	    &r), 0);
	CHECK_INT(r.len, 12);
	CHECK(r.has_len && !r.chunked);
}

TEST(door_head_limits)
{
	static char big[DH_HEADMAX + 64];
	struct dh_req r;
	size_t o;
	int i;

	o = (size_t)snprintf(big, sizeof(big), "GET /s/a HTTP/1.1\r\n");
	for (i = 0; i < DH_MAXHDR + 1; i++)
		o += (size_t)snprintf(big + o, sizeof(big) - o, "X%d: y\r\n",
		    i);
	snprintf(big + o, sizeof(big) - o, "\r\n");
	CHECK_INT(req(big, &r), -EINVAL);	/* too many headers */
	memset(big, 'a', DH_LINEMAX + 10);
	memcpy(big, "GET /", 5);
	big[DH_LINEMAX + 10] = '\0';
	CHECK_INT(dh_head_end(big, strlen(big)), -EINVAL);	/* too long */
	CHECK_INT(dh_head_end("GET / HTTP/1.1\r\n", 16), 0);	/* not yet */
}

TEST(door_chunked_framing)
{
	static const char ok[] = "5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\n"
	    "T: v\r\n\r\nGET /next";
	struct dh_chunked c;
	long n;
	size_t i;

	memset(&c, 0, sizeof(c));
	n = dh_chunked_feed(&c, ok, sizeof(ok) - 1);
	CHECK_INT(n, sizeof(ok) - 1 - 9);	/* "GET /next" is not body */
	CHECK(c.done);
	/* the same a byte at a time */
	memset(&c, 0, sizeof(c));
	for (i = 0; i < sizeof(ok) - 10; i++)
		CHECK_INT(dh_chunked_feed(&c, ok + i, 1), 1);
	CHECK(c.done);
	memset(&c, 0, sizeof(c));
	CHECK_INT(dh_chunked_feed(&c, "5\nhello", 7), -EINVAL);
	memset(&c, 0, sizeof(c));
	CHECK_INT(dh_chunked_feed(&c, "g\r\n", 3), -EINVAL);
	memset(&c, 0, sizeof(c));
	CHECK_INT(dh_chunked_feed(&c, "2\r\nabX", 6), -EINVAL);
	memset(&c, 0, sizeof(c));
	CHECK_INT(dh_chunked_feed(&c, "fffffffffff\r\n", 13), -EINVAL);
}

TEST(door_response_redacted)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nX-Echo: key sk-1 here"
	    "\r\nContent-Length: 0\r\n\r\n";
	static const char want[] = "HTTP/1.1 200 OK\r\nX-Echo: [redacted by "
	    "box]\r\nContent-Length: 0\r\n\r\n";
	struct dh_resp r;
	char out[256], why[80];
	long n;
	int red;

	CHECK_INT(dh_resp_parse(head, sizeof(head) - 1, &r, why, sizeof(why)),
	    0);
	CHECK_INT(r.status, 200);
	n = dh_resp_redact(head, &r, "sk-1", 4, out, sizeof(out), &red);
	CHECK_INT(red, 1);
	CHECK_MEM(out, (size_t)n, want, sizeof(want) - 1);
	CHECK_INT(dh_resp_parse("HTTP/1.1 20 OK\r\n\r\n", 18, &r, why,
	    sizeof(why)), -EINVAL);
}

TEST(door_refuses_every_address_that_is_not_public)
{
	static const struct {
		const char *a;
		const char *want;	/* NULL: allowed */
	} t[] = {
		{ "127.0.0.1", "loopback" }, { "10.1.2.3", "private" },
		{ "172.31.255.255", "private" }, { "172.32.0.1", NULL },
		{ "192.168.1.1", "private" }, { "169.254.169.254",
		  "link-local" }, { "100.64.0.1", "CGNAT" },
		{ "100.128.0.1", NULL }, { "0.1.2.3", "this network" },
		{ "224.0.0.1", "multicast" }, { "255.255.255.255",
		  "reserved" }, { "198.18.0.1", "benchmarking" },
		{ "192.0.0.9", "IETF protocol" },
		{ "168.63.129.16", "Azure's host platform service" },
		{ "1.1.1.1", NULL }, { "198.51.100.7", NULL },
		{ "203.0.113.9", NULL }, { "11.0.0.1", NULL },
	};
	unsigned a, b, c, d;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got;

		CHECK(sscanf(t[i].a, "%u.%u.%u.%u", &a, &b, &c, &d) == 4);
		got = door_addr_refused(a << 24 | b << 16 | c << 8 | d, 0);
		if (t[i].want == NULL)
			CHECK(got == NULL);
		else
			CHECK_STR(got, t[i].want);
	}
	/* the boxes' own /24, whatever range it is in */
	CHECK_STR(door_addr_refused(0x0b000105u, 0x0b000100u), "a box's");
	CHECK(door_addr_refused(0x0b000205u, 0x0b000100u) == NULL);
}
