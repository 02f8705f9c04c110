/*
 * fuzz_ws.c - the websocket frame parser and connection.
 *
 * The first input byte picks the mode; the rest is wire data.
 *   mode & 3 == 0, 1: ws_parse() over the data, client (0) or server (1)
 *       side, once whole and once in pieces of a size taken from the mode
 *       byte with a max_data limit; the two runs must agree on every
 *       message, control frame and error (resumability), and no slice may
 *       point outside the input.
 *   mode & 3 == 2: a ws_conn over an in-memory transport that delivers
 *       at most a few bytes per read, drained with ws_next()/ws_fill().
 *   mode & 3 == 3: the data is the server's reply to the upgrade request.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "incus/http.h"
#include "incus/transport.h"
#include "incus/transport_test.h"
#include "incus/ws.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A running digest of what a parse produced, independent of slicing. */
struct digest {
	uint64_t h;
	uint64_t msg;		/* digest of the current message's bytes */
	size_t bytes;
	int events;
	int rc;
};

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static void
record(struct digest *d, const struct ws_event *ev, const unsigned char *lo,
    const unsigned char *hi)
{
	size_t i;

	if (ev->type == WS_EV_DATA) {
		if (ev->len > 0 && (ev->data < lo || ev->data + ev->len > hi))
			abort();	/* a slice outside the input */
		for (i = 0; i < ev->len; i++)
			d->msg = mix(d->msg, ev->data[i]);
		d->bytes += ev->len;
		if (ev->end) {
			d->h = mix(mix(d->h, (uint64_t)ev->opcode), d->msg);
			d->msg = 0;
			d->events++;
		}
		return;
	}
	if (ev->len > WS_MAX_CONTROL)
		abort();
	d->h = mix(d->h, (uint64_t)ev->type << 16 | (uint64_t)ev->close_code);
	for (i = 0; i < ev->len; i++)
		d->h = mix(d->h, ev->data[i]);
	d->events++;
}

static void
run_parser(const uint8_t *in, size_t n, int server, size_t chunk,
    size_t max_data, struct digest *d)
{
	unsigned char *buf = malloc(n ? n : 1);
	struct ws_parser p;
	size_t off = 0;

	memcpy(buf, in, n);
	memset(d, 0, sizeof(*d));
	ws_parser_init(&p, 1 << 16, 1 << 18, server);
	while (off < n) {
		size_t piece = n - off < chunk ? n - off : chunk, used = 0;

		while (used < piece) {
			struct ws_event ev;
			ssize_t r = ws_parse(&p, buf + off + used, piece - used,
			    max_data, &ev);

			if (r < 0) {
				if (p.why == NULL || r != p.failed)
					abort();
				d->rc = (int)r;
				free(buf);
				return;
			}
			if ((size_t)r > piece - used)
				abort();
			used += (size_t)r;
			if (max_data && ev.type == WS_EV_DATA && ev.len > max_data)
				abort();
			if (ev.type == WS_EV_NONE) {
				if (used != piece)
					abort();	/* NONE means all consumed */
				break;
			}
			record(d, &ev, buf, buf + n);
		}
		off += piece;
	}
	d->h = mix(d->h, d->msg);
	free(buf);
}

static void
fuzz_parser(const uint8_t *in, size_t n, uint8_t mode)
{
	struct digest whole, parts;
	size_t chunk = 1 + ((mode >> 2) & 15);
	size_t max_data = (mode >> 6) ? (size_t)(mode >> 6) * 3 : 0;
	int server = mode & 1;

	run_parser(in, n, server, n ? n : 1, 0, &whole);
	run_parser(in, n, server, chunk, max_data, &parts);
	if (whole.rc != parts.rc || whole.h != parts.h ||
	    whole.bytes != parts.bytes || whole.events != parts.events)
		abort();
}

static void
fuzz_conn(const uint8_t *in, size_t n, uint8_t mode)
{
	static struct ws_conn w;
	static unsigned char out[1 << 16];
	struct mem_transport m;
	struct ws_event ev;
	int i, rc;

	mem_transport_init(&m, in, n, out, sizeof(out));
	m.max_read = 1 + (mode >> 2);
	ws_conn_init(&w, &m.base, -1);
	for (i = 0; i < 100000; i++) {
		rc = ws_next(&w, &ev, (mode & 0x80) ? 7 : 0, NULL);
		if (rc < 0)
			break;
		if (rc == 0) {
			if (ws_fill(&w, NULL) <= 0)
				break;
			continue;
		}
		if (ev.type == WS_EV_DATA && (mode & 0x40))
			ws_queue(&w, WS_OP_BINARY, ev.data, ev.len);
		if (ws_flush(&w) < 0)
			m.out_len = 0;
		if (m.out_len > sizeof(out) / 2)
			m.out_len = 0;
	}
}

static void
fuzz_handshake(const uint8_t *in, size_t n)
{
	static struct http_conn h;
	static struct ws_conn w;
	static unsigned char out[4096];
	struct mem_transport m;
	struct ws_event ev;
	int i;

	mem_transport_init(&m, NULL, 0, out, sizeof(out));
	http_conn_init(&h, &m.base);
	ws_conn_init(&w, &m.base, -1);
	if (ws_open(&w, &h, "/1.0/operations/f/websocket?secret=s", NULL) < 0)
		abort();
	m.in = in;
	m.in_len = n;
	if (ws_accept(&w, &h, NULL) < 0)
		return;
	for (i = 0; i < 1000 && ws_next(&w, &ev, 0, NULL) == 1; i++)
		;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0];
	data++;
	size--;
	switch (mode & 3) {
	case 0:
	case 1:
		fuzz_parser(data, size, mode);
		break;
	case 2:
		fuzz_conn(data, size, mode);
		break;
	default:
		fuzz_handshake(data, size);
	}
	return 0;
}
