/*
 * ws.h - an RFC 6455 websocket client, as much as Incus needs and strict
 * about the rest.
 *
 * Two layers:
 *
 * The frame codec (ws_parse, ws_frame_header, ws_mask, ws_accept_key) is
 * pure: no I/O, no allocation, caller-owned state.  The parser is
 * incremental and resumable at any byte boundary; data payloads are handed
 * out as slices of the caller's buffer (no copy), control payloads (<= 125
 * bytes) are gathered in the parser.  It refuses reserved bits, reserved
 * opcodes, fragmented or oversized control frames, a continuation with no
 * message to continue, a new message inside a fragmented one, non-minimal
 * length encodings, lengths with the top bit set, frames or messages over
 * the configured limits, and frames masked the wrong way for its side.  The
 * fuzzer drives exactly these functions.
 *
 * The connection (struct ws_conn) adds a transport: the upgrade handshake
 * over an http_conn (key from getrandom, accept checked with BearSSL's
 * SHA-1), a read buffer that events point into, a bounded write queue of
 * masked frames that can be flushed without blocking (so an event loop never
 * stalls on a peer that is itself waiting for us), automatic pongs, and the
 * close handshake.  Incus conventions (BINARY data, an empty TEXT message
 * as the end-of-stream barrier) are the caller's business; this layer only
 * reports message opcodes.
 */
#ifndef BOX_WS_H
#define BOX_WS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "incus/http.h"
#include "incus/transport.h"
#include "util/err.h"

enum {
	WS_OP_CONT = 0x0, WS_OP_TEXT = 0x1, WS_OP_BINARY = 0x2,
	WS_OP_CLOSE = 0x8, WS_OP_PING = 0x9, WS_OP_PONG = 0xA
};

#define WS_MAX_CONTROL	125	/* RFC 6455 5.5 */
#define WS_MAX_HEADER	14	/* 2 + 8 (length) + 4 (mask) */

/* Close codes we send or look at. */
#define WS_CLOSE_NORMAL		1000
#define WS_CLOSE_PROTOCOL	1002
#define WS_CLOSE_TOOBIG		1009
#define WS_CLOSE_NONE		1005	/* reported when a close had no code */

/* --- the pure codec ------------------------------------------------------ */

enum ws_ev_type {
	WS_EV_NONE = 0,		/* need more input */
	WS_EV_DATA,		/* a slice of a TEXT/BINARY message */
	WS_EV_PING,
	WS_EV_PONG,
	WS_EV_CLOSE
};

struct ws_event {
	int type;		/* enum ws_ev_type */
	int opcode;		/* DATA: the message's opcode (TEXT or BINARY) */
	const unsigned char *data;	/* DATA: into the input; else parser */
	size_t len;
	int end;		/* DATA: this slice ends the message */
	int close_code;		/* CLOSE: the code, or WS_CLOSE_NONE */
};

struct ws_parser {
	uint64_t max_frame;	/* payload bytes per frame */
	uint64_t max_message;	/* payload bytes per data message */
	int server;		/* 1: frames must be masked (a server's view) */

	int in_payload;		/* header parsed, payload bytes follow */
	unsigned char hdr[WS_MAX_HEADER];
	size_t hlen;
	int fin, opcode, masked;
	unsigned char mask[4];
	uint64_t left;		/* payload bytes of this frame still to come */
	uint64_t done;		/* payload bytes of this frame seen (mask phase) */
	int msg_op;		/* data message in progress, 0 = none */
	uint64_t msg_len;
	unsigned char ctl[WS_MAX_CONTROL];
	size_t ctl_len;
	int failed;		/* sticky: the negative code */
	const char *why;	/* the rule the peer broke */
};

void ws_parser_init(struct ws_parser *p, uint64_t max_frame,
    uint64_t max_message, int server);

/*
 * Consume bytes from buf[0..n).  Returns how many were consumed and fills
 * *ev; ev->type == WS_EV_NONE means all n bytes were consumed and more are
 * needed.  At most max_data payload bytes are handed out in one DATA event
 * (0: no limit).  Masked payloads (server mode) are unmasked in place,
 * hence the writable buffer.  On a protocol violation returns -EBOX_PROTO
 * (-EBOX_TOOBIG for a limit) and sets p->why; the parser then stays failed.
 */
ssize_t ws_parse(struct ws_parser *p, unsigned char *buf, size_t n,
    size_t max_data, struct ws_event *ev);

/* Encode a frame header into out; returns its length (2..14). */
size_t ws_frame_header(unsigned char out[WS_MAX_HEADER], int fin,
    int opcode, uint64_t len, const unsigned char *mask);

/* XOR p[0..n) with mask, starting at payload offset off. */
void ws_mask(unsigned char *p, size_t n, const unsigned char mask[4],
    uint64_t off);

/* base64(SHA-1(key "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")) into out[29]. */
void ws_accept_key(const char *key, char out[29]);

/* base64 of n bytes into out (4*ceil(n/3)+1 bytes); returns the length. */
size_t ws_base64(const unsigned char *in, size_t n, char *out);

/* --- the connection ------------------------------------------------------ */

#define WS_RBUF		(64 * 1024)
#define WS_WBUF		(64 * 1024 + 1024)
#define WS_MAX_FRAME	(64ull << 20)	/* what we accept from a server */
#define WS_MAX_MESSAGE	(1ull << 62)	/* streamed, so no practical cap */

struct ws_conn {
	struct transport *t;
	int nb_fd;		/* >= 0: non-blocking writes go to this fd */
	struct ws_parser ps;
	unsigned char rbuf[WS_RBUF];
	size_t rpos, rlen;
	unsigned char wbuf[WS_WBUF];
	size_t wpos, wlen;
	unsigned char pong[WS_MAX_CONTROL];
	size_t pong_len;
	int pong_due;		/* a pong waits for room in wbuf */
	int pong_skip;		/* pings to leave unanswered (see exec.c) */
	int eof;		/* the transport reached end of stream */
	int close_rcvd, close_sent;
	int failed;		/* sticky: reading broke (protocol, I/O) */
	int wfailed;		/* sticky: writing broke; reads go on */
	char key[25];
	unsigned char rnd[64];	/* getrandom() pool for masks */
	size_t rnd_pos;
};

/*
 * The handshake in two halves, so several sockets can be upgraded in one
 * round trip: ws_open() sends the GET on h; ws_accept() reads the 101,
 * checks Upgrade and Sec-WebSocket-Accept, and moves the bytes the server
 * sent past the headers into w.  On a refusal the daemon's own error text
 * is in e.  h may be freed after ws_accept(); the transport may not.
 */
int ws_open(struct ws_conn *w, struct http_conn *h, const char *target,
    struct box_err *e);
int ws_accept(struct ws_conn *w, struct http_conn *h, struct box_err *e);

/* Reset w to wrap an already-upgraded transport (tests, fuzzers). */
void ws_conn_init(struct ws_conn *w, struct transport *t, int nb_fd);

/* The descriptor to poll, or -1. */
int ws_fd(const struct ws_conn *w);

/*
 * Next event from what is buffered: 1 and *ev, 0 when more input is needed
 * (call ws_fill()), < 0 on a protocol violation (described in e).  Pings
 * are answered and closes acknowledged here; both are still reported.
 * DATA slices point into w and stay valid until the next ws_fill().
 */
int ws_next(struct ws_conn *w, struct ws_event *ev, size_t max_data,
    struct box_err *e);

/* True when bytes are buffered but not yet parsed (no need to poll). */
int ws_readable(const struct ws_conn *w);

/* Read once from the transport: > 0 bytes, 0 at EOF, < 0 -errno. */
ssize_t ws_fill(struct ws_conn *w, struct box_err *e);

/* Payload bytes that fit in one frame queued now. */
size_t ws_room(const struct ws_conn *w);

/* Queue one masked frame (copying p); -ENOBUFS when it does not fit. */
int ws_queue(struct ws_conn *w, int opcode, const void *p, size_t n);

/*
 * Zero-copy framing: ws_reserve() returns where up to *cap (<= 65535)
 * payload bytes can be written; ws_commit() frames and masks n of them.
 * NULL when the queue has no room.
 */
unsigned char *ws_reserve(struct ws_conn *w, size_t *cap);
int ws_commit(struct ws_conn *w, int opcode, size_t n);

/* Queue a close frame (once). */
int ws_queue_close(struct ws_conn *w, int code);

/* Bytes queued and not yet written. */
size_t ws_pending(const struct ws_conn *w);

/*
 * Write queued bytes.  With nb_fd set this never blocks: 0 when something
 * (maybe nothing) was written, < 0 -errno.  Without it (in-memory tests)
 * it writes everything through the transport.  A failed write ends the
 * writing side only: what the peer sent before it hung up can still be
 * read.
 */
int ws_flush(struct ws_conn *w);

#endif
