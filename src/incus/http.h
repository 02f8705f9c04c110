/*
 * http.h - HTTP/1.1 client over a struct transport.
 *
 * One struct http_conn per connection, caller-owned.  Requests are written
 * whole; responses are parsed from the connection's own read buffer with
 * hard limits: a header section over HTTP_MAX_HEADER bytes, a body over the
 * caller's cap, a chunk line over 64 bytes all fail with -EBOX_TOOBIG or
 * -EBOX_PROTO instead of growing.  Bodies framed by Content-Length, by
 * chunked transfer coding (extensions ignored, trailers skipped) or, on a
 * response that says neither, by the end of the stream are supported.
 *
 * The connection is reusable (keep-alive) while conn->reusable is set after
 * a response.  After a 101 Switching Protocols the bytes the server sent
 * past the headers stay in the read buffer; http_read_raw() hands them out
 * first, so a websocket layer loses nothing.
 */
#ifndef BOX_HTTP_H
#define BOX_HTTP_H

#include <stddef.h>
#include <sys/types.h>

#include "incus/transport.h"
#include "util/clock.h"
#include "util/err.h"

#define HTTP_MAX_HEADER	16384	/* whole status line + header section */
#define HTTP_RBUF	16384

struct http_conn {
	struct transport *t;
	unsigned char rbuf[HTTP_RBUF];
	size_t rpos, rlen;
	int reusable;		/* the last response left the stream in sync */
	int broken;		/* sticky: a failure desynchronised the stream */
	long long deadline;	/* CLOCK_MONOTONIC ms for the whole reply; 0: none */
};


/* Headers we act on, copied out of the header section. */
struct http_resp {
	int status;		/* 200, 404, ... */
	int chunked;
	long long content_length;	/* -1 when absent */
	int conn_close;
	int http10;
	char location[256];
	char etag[128];
	char content_type[96];
	char upgrade[32];
	char ws_accept[64];	/* Sec-WebSocket-Accept */
	/* the body, when read with http_read_body(): heap, NUL-terminated */
	char *body;
	size_t body_len;
};

void http_conn_init(struct http_conn *c, struct transport *t);

/*
 * Write one request.  extra_headers is "" or a block of "Name: value\r\n"
 * lines.  A body of n bytes is sent with Content-Length (and content_type
 * when not NULL).
 */
int http_send(struct http_conn *c, const char *method, const char *target,
    const char *extra_headers, const char *content_type, const void *body,
    size_t n, struct box_err *e);

/* Read and parse a status line and header section into r. */
int http_read_head(struct http_conn *c, struct http_resp *r,
    struct box_err *e);

/*
 * Read the body that r's headers announce, at most max bytes, into r->body
 * (malloc'd, NUL-terminated; free with http_resp_free()).
 */
int http_read_body(struct http_conn *c, struct http_resp *r, size_t max,
    struct box_err *e);

void http_resp_free(struct http_resp *r);

/* Raw bytes after an upgrade: buffered bytes first, then the transport. */
ssize_t http_read_raw(struct http_conn *c, void *buf, size_t n);

/* Bytes buffered but not yet handed out. */
size_t http_buffered(const struct http_conn *c);

#endif
