/* HTTP response parsing over the in-memory transport. */
#include <stdlib.h>
#include <string.h>

#include "incus/http.h"
#include "incus/transport_test.h"
#include "t.h"

struct rig {
	struct mem_transport m;
	struct http_conn c;
	struct http_resp r;
	struct box_err e;
};

static int
read_one(struct rig *g, const char *wire, size_t n, size_t max_read,
    size_t max_body)
{
	int rc;

	mem_transport_init(&g->m, wire, n, NULL, 0);
	g->m.max_read = max_read;
	http_conn_init(&g->c, &g->m.base);
	err_clear(&g->e);
	rc = http_read_head(&g->c, &g->r, &g->e);
	if (rc == 0)
		rc = http_read_body(&g->c, &g->r, max_body, &g->e);
	return rc;
}

#define WIRE(s) (s), sizeof(s) - 1

TEST(http_content_length)
{
	struct rig g;
	size_t mr;

	for (mr = 0; mr <= 3; mr++) {
		CHECK_INT(read_one(&g, WIRE("HTTP/1.1 404 Not Found\r\n"
		    "Content-Type: application/json\r\nEtag: \"abc\"\r\n"
		    "Content-Length: 5\r\n\r\nhello"), mr, 100), 0);
		CHECK_INT(g.r.status, 404);
		CHECK_STR(g.r.body, "hello");
		CHECK_STR(g.r.etag, "\"abc\"");
		CHECK_STR(g.r.content_type, "application/json");
		CHECK(g.c.reusable);
		http_resp_free(&g.r);
	}
}

TEST(http_chunked_with_extensions_and_trailers)
{
	static const char w[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"
	    "\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-T: y\r\n\r\n";
	struct rig g;
	size_t mr;

	for (mr = 0; mr <= 2; mr++) {
		CHECK_INT(read_one(&g, w, sizeof(w) - 1, mr, 100), 0);
		CHECK_STR(g.r.body, "hello, world!!!");
		CHECK_INT(g.r.body_len, 15);
		CHECK_INT(http_buffered(&g.c), 0);
		http_resp_free(&g.r);
	}
}

TEST(http_eof_delimited)
{
	struct rig g;

	CHECK_INT(read_one(&g, WIRE("HTTP/1.0 200 OK\r\n\r\nbody to eof"), 0,
	    100), 0);
	CHECK_STR(g.r.body, "body to eof");
	CHECK(!g.c.reusable);
	http_resp_free(&g.r);
}

TEST(http_two_responses_on_one_connection)
{
	static const char w[] = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"
	    "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nbc";
	struct rig g;

	CHECK_INT(read_one(&g, w, sizeof(w) - 1, 7, 100), 0);
	CHECK_STR(g.r.body, "a");
	http_resp_free(&g.r);
	CHECK_INT(http_read_head(&g.c, &g.r, &g.e), 0);
	CHECK_INT(g.r.status, 201);
	CHECK_INT(http_read_body(&g.c, &g.r, 100, &g.e), 0);
	CHECK_STR(g.r.body, "bc");
	http_resp_free(&g.r);
}

TEST(http_refuses_malformed)
{
	static const char *bad[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhi",	/* short */
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
		"HTTP/2 200 OK\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"garbage\r\n\r\n",
		"HTTP/1.1 200 OK\r\n folded\r\n\r\n",
		"HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
		"",
	};
	struct rig g;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (read_one(&g, bad[i], strlen(bad[i]), 0, 100) == 0) {
			t_fail(__FILE__, __LINE__, "accepted case %zu", i);
			http_resp_free(&g.r);
		} else {
			CHECK(g.e.msg[0] != '\0');
			CHECK(g.c.broken);
		}
	}
}

TEST(http_limits)
{
	struct rig g;
	char *big;
	size_t n = HTTP_MAX_HEADER + 100;

	/* A header section larger than the limit. */
	big = malloc(n + 1);
	memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
	memset(big + 20, 'a', n - 20);
	CHECK(read_one(&g, big, n, 0, 100) < 0);
	CHECK_INT(g.e.code, -EBOX_TOOBIG);
	free(big);
	/* A body larger than the caller's cap, by length and by chunks. */
	CHECK_INT(read_one(&g, WIRE("HTTP/1.1 200 OK\r\nContent-Length: 101"
	    "\r\n\r\n"), 0, 100), -EBOX_TOOBIG);
	CHECK_INT(read_one(&g, WIRE("HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n65\r\n"), 0, 100), -EBOX_TOOBIG);
}

TEST(http_upgrade_keeps_leftover_bytes)
{
	static const char w[] = "HTTP/1.1 101 Switching Protocols\r\n"
	    "Upgrade: websocket\r\nSec-WebSocket-Accept: abc=\r\n\r\n\x82\x01X";
	struct rig g;
	char buf[8];

	mem_transport_init(&g.m, w, sizeof(w) - 1, NULL, 0);
	http_conn_init(&g.c, &g.m.base);
	err_clear(&g.e);
	CHECK_INT(http_read_head(&g.c, &g.r, &g.e), 0);
	CHECK_INT(g.r.status, 101);
	CHECK_STR(g.r.upgrade, "websocket");
	CHECK_STR(g.r.ws_accept, "abc=");
	CHECK_INT(http_read_raw(&g.c, buf, sizeof(buf)), 3);
	CHECK_MEM(buf, 3, "\x82\x01X", 3);
}

TEST(http_request_writer)
{
	struct mem_transport m;
	struct http_conn c;
	struct box_err e;
	char out[512];
	static const char want[] = "POST /1.0/x HTTP/1.1\r\nHost: incus\r\n"
	    "User-Agent: box/" BOX_VERSION "\r\nContent-Type: application/json"
	    "\r\nContent-Length: 2\r\n\r\n{}";

	mem_transport_init(&m, "", 0, out, sizeof(out));
	http_conn_init(&c, &m.base);
	err_clear(&e);
	CHECK_INT(http_send(&c, "POST", "/1.0/x", "", "application/json", "{}",
	    2, &e), 0);
	CHECK_MEM(out, m.out_len, want, sizeof(want) - 1);
	CHECK(http_send(&c, "GET", "/a b", "", NULL, NULL, 0, &e) < 0);
}
