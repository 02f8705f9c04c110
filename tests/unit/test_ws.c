/* Unit tests for src/incus/ws.c: the frame codec and the connection. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/http.h"
#include "incus/transport.h"
#include "incus/transport_test.h"
#include "incus/ws.h"
#include "t.h"

/* --- helpers ------------------------------------------------------------- */

struct evlog {
	int type[64], opcode[64], end[64], code[64];
	unsigned char data[4096];
	size_t dlen;
	int n;
	int rc;			/* the first error, or 0 */
};

/* Feed buf in pieces of at most chunk bytes; log every event. */
static void
feed(struct ws_parser *p, const void *src, size_t n, size_t chunk,
    size_t max_data, struct evlog *log)
{
	unsigned char *buf = malloc(n ? n : 1);
	size_t off = 0;

	memcpy(buf, src, n);
	memset(log, 0, sizeof(*log));
	while (off < n) {
		size_t piece = n - off < chunk ? n - off : chunk, used = 0;

		while (used < piece) {
			struct ws_event ev;
			ssize_t r = ws_parse(p, buf + off + used, piece - used,
			    max_data, &ev);

			if (r < 0) {
				log->rc = (int)r;
				free(buf);
				return;
			}
			used += (size_t)r;
			if (ev.type == WS_EV_NONE)
				break;
			if (log->n < 64) {
				log->type[log->n] = ev.type;
				log->opcode[log->n] = ev.opcode;
				log->end[log->n] = ev.end;
				log->code[log->n] = ev.close_code;
				log->n++;
			}
			if (ev.type == WS_EV_DATA && log->dlen + ev.len <=
			    sizeof(log->data)) {
				memcpy(log->data + log->dlen, ev.data, ev.len);
				log->dlen += ev.len;
			}
		}
		off += piece;
	}
	free(buf);
}

static int
parse_all(const void *src, size_t n, size_t chunk, struct evlog *log)
{
	struct ws_parser p;

	ws_parser_init(&p, 1 << 20, 1 << 20, 0);
	feed(&p, src, n, chunk, 0, log);
	return log->rc;
}

/* --- known answers ------------------------------------------------------- */

TEST(ws_accept_key_known_answers)
{
	char out[29];

	/* RFC 6455 section 1.3 */
	ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", out);
	CHECK_STR(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
	/* the live Incus transcript in the spec (4.3) */
	ws_accept_key("lHuViTWqvuiGROEUpyd/zg==", out);
	CHECK_STR(out, "CfYT4LNIGpZ3rJh+QTR11P3LE38=");
}

TEST(ws_base64_known_answers)
{
	static const char *const want[] = { "", "Zg==", "Zm8=", "Zm9v",
	    "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	char out[16];
	size_t i;

	for (i = 0; i < 7; i++) {
		CHECK_INT(ws_base64((const unsigned char *)"foobar", i, out),
		    strlen(want[i]));
		CHECK_STR(out, want[i]);
	}
}

TEST(ws_frame_header_known_answers)
{
	static const unsigned char mask[4] = { 0x37, 0xfa, 0x21, 0x3d };
	static const unsigned char hello[] = { 0x81, 0x05 };
	static const unsigned char hello_m[] = { 0x81, 0x85, 0x37, 0xfa, 0x21,
	    0x3d };
	static const unsigned char b256[] = { 0x82, 0x7e, 0x01, 0x00 };
	static const unsigned char b64k[] = { 0x82, 0x7f, 0, 0, 0, 0, 0, 1, 0,
	    0 };
	static const unsigned char masked_hello[] = { 0x7f, 0x9f, 0x4d, 0x51,
	    0x58 };
	unsigned char h[WS_MAX_HEADER], p[5];
	size_t n;

	/* RFC 6455 section 5.7 examples */
	n = ws_frame_header(h, 1, WS_OP_TEXT, 5, NULL);
	CHECK_MEM(h, n, hello, sizeof(hello));
	n = ws_frame_header(h, 1, WS_OP_TEXT, 5, mask);
	CHECK_MEM(h, n, hello_m, sizeof(hello_m));
	memcpy(p, "Hello", 5);
	ws_mask(p, 5, mask, 0);
	CHECK_MEM(p, 5, masked_hello, 5);
	n = ws_frame_header(h, 1, WS_OP_BINARY, 256, NULL);
	CHECK_MEM(h, n, b256, sizeof(b256));
	n = ws_frame_header(h, 1, WS_OP_BINARY, 65536, NULL);
	CHECK_MEM(h, n, b64k, sizeof(b64k));
	n = ws_frame_header(h, 0, WS_OP_CONT, 125, NULL);
	CHECK_INT(n, 2);
	CHECK_INT(h[0], 0x00);
	CHECK_INT(h[1], 125);
	n = ws_frame_header(h, 1, WS_OP_BINARY, 126, NULL);
	CHECK_INT(n, 4);
	n = ws_frame_header(h, 1, WS_OP_BINARY, 65535, NULL);
	CHECK_INT(n, 4);
}

TEST(ws_mask_matches_bytewise_at_every_offset)
{
	static const unsigned char mask[4] = { 0xa1, 0x02, 0xff, 0x5c };
	unsigned char a[100], b[100];
	size_t off, n, i;

	for (off = 0; off < 9; off++) {
		for (n = 0; n < 40; n++) {
			for (i = 0; i < n; i++)
				a[i] = b[i] = (unsigned char)(i * 7 + off);
			ws_mask(a, n, mask, off);
			for (i = 0; i < n; i++)
				b[i] ^= mask[(off + i) & 3];
			CHECK_MEM(a, n, b, n);
		}
	}
}

/* --- the parser ---------------------------------------------------------- */

TEST(ws_parse_single_frames)
{
	static const unsigned char f[] = { 0x81, 0x05, 'H', 'e', 'l', 'l', 'o',
	    0x82, 0x03, 1, 2, 3, 0x89, 0x04, 'p', 'i', 'n', 'g', 0x8a, 0x00 };
	struct evlog log;
	size_t chunk;

	for (chunk = 1; chunk <= sizeof(f); chunk++) {
		CHECK_INT(parse_all(f, sizeof(f), chunk, &log), 0);
		CHECK_INT(log.type[log.n - 1], WS_EV_PONG);
		CHECK_MEM(log.data, log.dlen, "Hello\x01\x02\x03", 8);
	}
	CHECK_INT(parse_all(f, sizeof(f), sizeof(f), &log), 0);
	CHECK_INT(log.n, 4);
	CHECK_INT(log.type[0], WS_EV_DATA);
	CHECK_INT(log.opcode[0], WS_OP_TEXT);
	CHECK_INT(log.end[0], 1);
	CHECK_INT(log.opcode[1], WS_OP_BINARY);
	CHECK_INT(log.type[2], WS_EV_PING);
}

TEST(ws_parse_empty_text_is_one_event)
{
	static const unsigned char f[] = { 0x81, 0x00 };
	struct evlog log;

	CHECK_INT(parse_all(f, sizeof(f), 1, &log), 0);
	CHECK_INT(log.n, 1);
	CHECK_INT(log.type[0], WS_EV_DATA);
	CHECK_INT(log.opcode[0], WS_OP_TEXT);
	CHECK_INT(log.end[0], 1);
	CHECK_INT(log.dlen, 0);
}

TEST(ws_parse_fragments_with_control_between)
{
	/* "Hel" + ping + "" (empty middle) + "lo" */
	static const unsigned char f[] = { 0x01, 0x03, 'H', 'e', 'l', 0x89,
	    0x00, 0x00, 0x00, 0x80, 0x02, 'l', 'o' };
	struct evlog log;
	size_t chunk;

	for (chunk = 1; chunk <= sizeof(f); chunk++) {
		CHECK_INT(parse_all(f, sizeof(f), chunk, &log), 0);
		CHECK_MEM(log.data, log.dlen, "Hello", 5);
		CHECK_INT(log.end[log.n - 1], 1);
		CHECK_INT(log.opcode[log.n - 1], WS_OP_TEXT);
	}
	CHECK_INT(parse_all(f, sizeof(f), sizeof(f), &log), 0);
	CHECK_INT(log.n, 3);
	CHECK_INT(log.end[0], 0);
	CHECK_INT(log.type[1], WS_EV_PING);
}

TEST(ws_parse_long_lengths_and_max_data)
{
	unsigned char *f = malloc(10 + 70000);
	struct ws_parser p;
	struct evlog log;
	size_t i, n;

	n = ws_frame_header(f, 1, WS_OP_BINARY, 70000, NULL);
	for (i = 0; i < 70000; i++)
		f[n + i] = (unsigned char)i;
	ws_parser_init(&p, 1 << 20, 1 << 20, 0);
	feed(&p, f, n + 70000, n + 70000, 1000, &log);
	CHECK_INT(log.rc, 0);
	CHECK_INT(log.n, 64);	/* 70 slices of 1000, the log keeps 64 */
	CHECK_INT(log.end[0], 0);
	CHECK_MEM(log.data, 1000, f + n, 1000);
	free(f);
}

TEST(ws_parse_server_mode_unmasks)
{
	static const unsigned char f[] = { 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d,
	    0x7f, 0x9f, 0x4d, 0x51, 0x58 };
	struct ws_parser p;
	struct evlog log;
	size_t chunk;

	for (chunk = 1; chunk <= sizeof(f); chunk++) {
		ws_parser_init(&p, 1 << 20, 1 << 20, 1);
		feed(&p, f, sizeof(f), chunk, 0, &log);
		CHECK_INT(log.rc, 0);
		CHECK_MEM(log.data, log.dlen, "Hello", 5);
	}
	/* a client parser refuses it */
	CHECK_INT(parse_all(f, sizeof(f), 64, &log), -EBOX_PROTO);
}

struct bad_case {
	const char *name;
	unsigned char f[16];
	size_t n;
	int rc;
};

TEST(ws_parse_refuses_bad_frames)
{
	static const struct bad_case c[] = {
		{ "rsv1", { 0xc1, 0x00 }, 2, -EBOX_PROTO },
		{ "rsv3", { 0x92, 0x00 }, 2, -EBOX_PROTO },
		{ "opcode 3", { 0x83, 0x00 }, 2, -EBOX_PROTO },
		{ "opcode 0xb", { 0x8b, 0x00 }, 2, -EBOX_PROTO },
		{ "ping 126", { 0x89, 0x7e, 0x00, 0x7e }, 4, -EBOX_PROTO },
		{ "fragmented ping", { 0x09, 0x00 }, 2, -EBOX_PROTO },
		{ "lone continuation", { 0x80, 0x00 }, 2, -EBOX_PROTO },
		{ "text inside text", { 0x01, 0x00, 0x81, 0x00 }, 4,
		    -EBOX_PROTO },
		{ "binary inside text", { 0x01, 0x00, 0x82, 0x00 }, 4,
		    -EBOX_PROTO },
		{ "short 16-bit length", { 0x82, 0x7e, 0x00, 0x05 }, 4,
		    -EBOX_PROTO },
		{ "short 64-bit length", { 0x82, 0x7f, 0, 0, 0, 0, 0, 0, 0xff,
		    0xff }, 10, -EBOX_PROTO },
		{ "top bit", { 0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 0 }, 10,
		    -EBOX_PROTO },
		{ "masked from server", { 0x82, 0x80, 1, 2, 3, 4 }, 6,
		    -EBOX_PROTO },
		{ "close 1 byte", { 0x88, 0x01, 0x03 }, 3, -EBOX_PROTO },
		{ "close code 999", { 0x88, 0x02, 0x03, 0xe7 }, 4, -EBOX_PROTO },
		{ "close code 1005", { 0x88, 0x02, 0x03, 0xed }, 4,
		    -EBOX_PROTO },
		{ "close code 5000", { 0x88, 0x02, 0x13, 0x88 }, 4,
		    -EBOX_PROTO },
		{ "close reason not UTF-8", { 0x88, 0x04, 0x03, 0xe8, 0xc0,
		    0x80 }, 6, -EBOX_PROTO },
	};
	struct evlog log;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc = parse_all(c[i].f, c[i].n, 1, &log);

		if (rc != c[i].rc)
			t_fail(__FILE__, __LINE__, "%s: rc %d, want %d",
			    c[i].name, rc, c[i].rc);
	}
}

TEST(ws_parse_limits)
{
	static const unsigned char big[] = { 0x82, 0x7e, 0x01, 0x00 };
	/* two fragments of 100 against a message limit of 150 */
	static const unsigned char frag[] = { 0x02, 0x64 };
	unsigned char buf[256];
	struct ws_parser p;
	struct ws_event ev;
	ssize_t r;

	ws_parser_init(&p, 255, 1 << 20, 0);
	memcpy(buf, big, sizeof(big));
	CHECK_INT(ws_parse(&p, buf, sizeof(big), 0, &ev), -EBOX_TOOBIG);
	CHECK(p.why != NULL);
	/* sticky */
	CHECK_INT(ws_parse(&p, buf, 1, 0, &ev), -EBOX_TOOBIG);

	ws_parser_init(&p, 1000, 150, 0);
	memset(buf, 'x', sizeof(buf));
	memcpy(buf, frag, 2);
	r = ws_parse(&p, buf, 102, 0, &ev);
	CHECK_INT(r, 102);
	CHECK_INT(ev.len, 100);
	buf[0] = 0x80;
	buf[1] = 0x64;
	CHECK_INT(ws_parse(&p, buf, 102, 0, &ev), -EBOX_TOOBIG);

	/* a valid close is reported with its code */
	ws_parser_init(&p, 1000, 1000, 0);
	memcpy(buf, "\x88\x04\x03\xe8ok", 6);
	CHECK_INT(ws_parse(&p, buf, 6, 0, &ev), 6);
	CHECK_INT(ev.type, WS_EV_CLOSE);
	CHECK_INT(ev.close_code, 1000);
	memcpy(buf, "\x88\x00", 2);
	CHECK_INT(ws_parse(&p, buf, 2, 0, &ev), 2);
	CHECK_INT(ev.close_code, WS_CLOSE_NONE);
}

/* --- the connection over an in-memory transport --------------------------- */

static unsigned char wire_out[1 << 20];

/* Parse what the client wrote (after skip bytes) as a server would. */
static int
server_parse(const unsigned char *p, size_t n, struct evlog *log)
{
	struct ws_parser ps;

	ws_parser_init(&ps, 1 << 20, 1 << 20, 1);
	feed(&ps, p, n, n, 0, log);
	return log->rc;
}

static size_t
head_len(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 3; i < n; i++)
		if (memcmp(p + i - 3, "\r\n\r\n", 4) == 0)
			return i + 1;
	return 0;
}

struct hs {
	struct mem_transport m;
	struct http_conn h;
	struct ws_conn w;
	char in[4096];
};

/* Run the handshake against a server reply built by fmt (gets accept). */
static int
handshake(struct hs *s, const char *status_and_headers, const void *extra,
    size_t extra_n, int good_accept, struct box_err *e)
{
	char accept[29];
	int n, rc;

	mem_transport_init(&s->m, NULL, 0, wire_out, sizeof(wire_out));
	http_conn_init(&s->h, &s->m.base);
	ws_conn_init(&s->w, &s->m.base, -1);
	rc = ws_open(&s->w, &s->h, "/1.0/operations/x/websocket?secret=y", e);
	if (rc < 0)
		return rc;
	ws_accept_key(s->w.key, accept);
	n = snprintf(s->in, sizeof(s->in), "%sSec-WebSocket-Accept: %s\r\n\r\n",
	    status_and_headers, good_accept ? accept : "AAAAAAAAAAAAAAAAAAAAAAAAAAA=");
	memcpy(s->in + n, extra, extra_n);
	s->m.in = (const unsigned char *)s->in;
	s->m.in_len = (size_t)n + extra_n;
	s->m.in_pos = 0;
	return ws_accept(&s->w, &s->h, e);
}

#define UPGRADE "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n" \
	"Connection: Upgrade\r\n"

TEST(ws_handshake_request_and_early_frames)
{
	static struct hs s;
	static const unsigned char early[] = { 0x89, 0x09, 'k', 'e', 'e', 'p',
	    'a', 'l', 'i', 'v', 'e', 0x82, 0x02, 'h', 'i', 0x81, 0x00 };
	struct box_err e;
	struct ws_event ev;
	struct evlog log;
	size_t hl;
	char *req;

	err_clear(&e);
	CHECK_INT(handshake(&s, UPGRADE, early, sizeof(early), 1, &e), 0);
	req = (char *)wire_out;
	hl = head_len(wire_out, s.m.out_len);
	CHECK(hl == s.m.out_len);
	CHECK(strncmp(req, "GET /1.0/operations/x/websocket?secret=y "
	    "HTTP/1.1\r\n", 50) == 0);
	CHECK(strstr(req, "\r\nUpgrade: websocket\r\n") != NULL);
	CHECK(strstr(req, "\r\nConnection: Upgrade\r\n") != NULL);
	CHECK(strstr(req, "\r\nSec-WebSocket-Version: 13\r\n") != NULL);
	CHECK(strstr(req, "\r\nSec-WebSocket-Key: ") != NULL);
	CHECK_INT(strlen(s.w.key), 24);
	/* the frames that followed the 101 are not lost */
	CHECK_INT(ws_next(&s.w, &ev, 0, &e), 1);
	CHECK_INT(ev.type, WS_EV_PING);
	CHECK_INT(ws_next(&s.w, &ev, 0, &e), 1);
	CHECK_INT(ev.type, WS_EV_DATA);
	CHECK_MEM(ev.data, ev.len, "hi", 2);
	CHECK_INT(ws_next(&s.w, &ev, 0, &e), 1);
	CHECK_INT(ev.opcode, WS_OP_TEXT);
	CHECK_INT(ev.len, 0);
	CHECK_INT(ws_next(&s.w, &ev, 0, &e), 0);
	/* the ping was answered: a masked pong with the same payload */
	s.m.out_len = 0;
	CHECK_INT(ws_flush(&s.w), 0);
	CHECK_INT(server_parse(wire_out, s.m.out_len, &log), 0);
	CHECK_INT(log.n, 1);
	CHECK_INT(log.type[0], WS_EV_PONG);
	CHECK(wire_out[1] & 0x80);
	CHECK(memcmp(wire_out + 6, "keepalive", 9) != 0);
	CHECK_INT(s.m.out_len, 15);
	/* and the stream ends */
	CHECK_INT(ws_fill(&s.w, &e), 0);
	CHECK(s.w.eof);
	CHECK_INT(e.code, 0);
}

TEST(ws_handshake_refusals)
{
	static struct hs s;
	static const char body[] = "{\"type\":\"error\",\"status\":\"\","
	    "\"status_code\":0,\"error_code\":403,\"error\":\"Forbidden\"}";
	char forbidden[200];
	struct box_err e;

	snprintf(forbidden, sizeof(forbidden), "HTTP/1.1 403 Forbidden\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n",
	    strlen(body));

	err_clear(&e);
	CHECK_INT(handshake(&s, UPGRADE, "", 0, 0, &e), -EBOX_PROTO);
	CHECK(strstr(e.msg, "Sec-WebSocket-Accept") != NULL);

	err_clear(&e);
	CHECK_INT(handshake(&s, "HTTP/1.1 101 Switching Protocols\r\n"
	    "Upgrade: h2c\r\n", "", 0, 1, &e), -EBOX_PROTO);
	CHECK(strstr(e.msg, "h2c") != NULL);

	err_clear(&e);
	CHECK_INT(handshake(&s, forbidden, body, strlen(body), 1, &e),
	    -EACCES);
	CHECK(strstr(e.msg, "HTTP 403") != NULL);
	CHECK(strstr(e.msg, "Forbidden") != NULL);

	err_clear(&e);
	CHECK_INT(handshake(&s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n",
	    "", 0, 1, &e), -EBOX_PROTO);
	CHECK(strstr(e.msg, "200") != NULL);
}

TEST(ws_queue_frames_parse_back_masked)
{
	static struct ws_conn w;
	static unsigned char payload[70000];
	struct mem_transport m;
	struct evlog log;
	struct ws_parser ps;
	size_t i, sizes[] = { 0, 1, 125, 126, 127, 65535 };
	unsigned char *p;
	size_t cap;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (unsigned char)(i * 31);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];

		/* copying */
		mem_transport_init(&m, NULL, 0, wire_out, sizeof(wire_out));
		ws_conn_init(&w, &m.base, -1);
		CHECK_INT(ws_queue(&w, WS_OP_BINARY, payload, n), 0);
		CHECK_INT(ws_flush(&w), 0);
		CHECK(m.out_len >= n + 6);
		CHECK(wire_out[1] & 0x80);
		ws_parser_init(&ps, 1 << 20, 1 << 20, 1);
		feed(&ps, wire_out, m.out_len, 7, 0, &log);
		CHECK_INT(log.rc, 0);
		CHECK_INT(ps.in_payload, 0);
		if (n <= sizeof(log.data))
			CHECK_MEM(log.data, log.dlen, payload, n);

		/* zero-copy */
		mem_transport_init(&m, NULL, 0, wire_out, sizeof(wire_out));
		ws_conn_init(&w, &m.base, -1);
		p = ws_reserve(&w, &cap);
		CHECK(p != NULL);
		CHECK(cap >= n);
		memcpy(p, payload, n);
		CHECK_INT(ws_commit(&w, WS_OP_BINARY, n), 0);
		CHECK_INT(ws_flush(&w), 0);
		CHECK_INT(m.out_len, n + (n < 126 ? 6 : 8));
		ws_parser_init(&ps, 1 << 20, 1 << 20, 1);
		feed(&ps, wire_out, m.out_len, m.out_len, 0, &log);
		CHECK_INT(log.rc, 0);
		CHECK_INT(log.n, 1);
		CHECK_INT(log.end[0], 1);
		if (n <= sizeof(log.data))
			CHECK_MEM(log.data, log.dlen, payload, n);
	}
	/* masks differ from frame to frame */
	mem_transport_init(&m, NULL, 0, wire_out, sizeof(wire_out));
	ws_conn_init(&w, &m.base, -1);
	ws_queue(&w, WS_OP_TEXT, "", 0);
	ws_queue(&w, WS_OP_TEXT, "", 0);
	ws_flush(&w);
	CHECK_INT(m.out_len, 12);
	CHECK(memcmp(wire_out + 2, wire_out + 8, 4) != 0);
}

TEST(ws_queue_is_bounded)
{
	static struct ws_conn w;
	static unsigned char big[WS_WBUF];
	struct mem_transport m;
	size_t room;
	int k = 0;

	mem_transport_init(&m, NULL, 0, wire_out, sizeof(wire_out));
	ws_conn_init(&w, &m.base, -1);
	room = ws_room(&w);
	CHECK(room > 60000 && room < WS_WBUF);
	CHECK_INT(ws_queue(&w, WS_OP_BINARY, big, room + 1), -ENOBUFS);
	while (ws_queue(&w, WS_OP_BINARY, big, 1000) == 0)
		k++;
	CHECK(k > 60 && k < 70);
	/* control frames still fit: the reserve is for them */
	CHECK_INT(ws_queue(&w, WS_OP_PONG, big, 125), 0);
	CHECK_INT(ws_queue(&w, WS_OP_CONT + 0x9, big, 126), -EINVAL);
	CHECK_INT(ws_flush(&w), 0);
	CHECK_INT(ws_pending(&w), 0);
	/* after a close nothing more is sent */
	CHECK_INT(ws_queue_close(&w, WS_CLOSE_NORMAL), 0);
	CHECK_INT(ws_queue(&w, WS_OP_BINARY, "x", 1), -EPIPE);
	CHECK(ws_reserve(&w, &room) == NULL);
}

TEST(ws_close_is_acknowledged_once)
{
	static struct ws_conn w;
	static const unsigned char in[] = { 0x88, 0x02, 0x03, 0xe9, 0x89, 0x00 };
	struct mem_transport m;
	struct ws_event ev;
	struct evlog log;
	struct box_err e;

	err_clear(&e);
	mem_transport_init(&m, in, sizeof(in), wire_out, sizeof(wire_out));
	m.max_read = 1;
	ws_conn_init(&w, &m.base, -1);
	while (ws_next(&w, &ev, 0, &e) == 0)
		CHECK(ws_fill(&w, &e) > 0);
	CHECK_INT(ev.type, WS_EV_CLOSE);
	CHECK_INT(ev.close_code, 1001);
	CHECK(w.close_rcvd);
	/* a ping after the close gets no pong */
	while (ws_next(&w, &ev, 0, &e) == 0)
		CHECK(ws_fill(&w, &e) > 0);
	CHECK_INT(ev.type, WS_EV_PING);
	CHECK_INT(ws_flush(&w), 0);
	CHECK_INT(server_parse(wire_out, m.out_len, &log), 0);
	CHECK_INT(log.n, 1);
	CHECK_INT(log.type[0], WS_EV_CLOSE);
	CHECK_INT(log.code[0], 1001);
}

TEST(ws_connection_reports_protocol_errors)
{
	static struct ws_conn w;
	static const unsigned char in[] = { 0x82, 0x01, 'a', 0xf2, 0x00 };
	struct mem_transport m;
	struct ws_event ev;
	struct box_err e;
	int rc;

	err_clear(&e);
	mem_transport_init(&m, in, sizeof(in), wire_out, sizeof(wire_out));
	ws_conn_init(&w, &m.base, -1);
	CHECK(ws_fill(&w, &e) > 0);
	CHECK_INT(ws_next(&w, &ev, 0, &e), 1);
	rc = ws_next(&w, &ev, 0, &e);
	CHECK_INT(rc, -EBOX_PROTO);
	CHECK(strstr(e.msg, "reserved bits") != NULL);
	/* reading is over for good; saying why in a close frame still works */
	CHECK_INT(ws_next(&w, &ev, 0, &e), -EBOX_PROTO);
	CHECK_INT(ws_fill(&w, &e), -EBOX_PROTO);
	CHECK_INT(ws_queue_close(&w, WS_CLOSE_PROTOCOL), 0);
}

TEST(ws_pong_skip_leaves_first_ping_unanswered)
{
	static struct ws_conn w;
	static const unsigned char in[] = { 0x89, 0x01, 'a', 0x89, 0x01, 'b' };
	struct mem_transport m;
	struct ws_event ev;
	struct evlog log;
	struct box_err e;

	err_clear(&e);
	mem_transport_init(&m, in, sizeof(in), wire_out, sizeof(wire_out));
	ws_conn_init(&w, &m.base, -1);
	w.pong_skip = 1;
	CHECK(ws_fill(&w, &e) > 0);
	CHECK_INT(ws_next(&w, &ev, 0, &e), 1);
	CHECK_INT(ws_next(&w, &ev, 0, &e), 1);
	CHECK_INT(ws_flush(&w), 0);
	CHECK_INT(server_parse(wire_out, m.out_len, &log), 0);
	CHECK_INT(log.n, 1);
	CHECK_INT(log.type[0], WS_EV_PONG);
	CHECK_INT(m.out_len, 7);
	CHECK_INT(wire_out[6] ^ wire_out[2], 'b');
}
