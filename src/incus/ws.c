/*
 * ws.c - the websocket frame codec and client connection (see ws.h).
 */
#include "incus/ws.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bearssl_hash.h>

#include "incus/json.h"

static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/* --- codec --------------------------------------------------------------- */

void
ws_parser_init(struct ws_parser *p, uint64_t max_frame, uint64_t max_message,
    int server)
{
	memset(p, 0, sizeof(*p));
	p->max_frame = max_frame;
	p->max_message = max_message;
	p->server = server;
}

static int
bad(struct ws_parser *p, int code, const char *why)
{
	p->failed = code;
	p->why = why;
	return code;
}

/* Header bytes needed, judging by what has been collected so far. */
static size_t
header_need(const struct ws_parser *p)
{
	size_t need = 2;

	if (p->hlen < 2)
		return 2;
	if ((p->hdr[1] & 0x7f) == 126)
		need += 2;
	else if ((p->hdr[1] & 0x7f) == 127)
		need += 8;
	if (p->hdr[1] & 0x80)
		need += 4;
	return need;
}

/* The first two bytes say enough to refuse most bad frames early. */
static int
check_start(struct ws_parser *p)
{
	int op = p->hdr[0] & 0x0f, masked = (p->hdr[1] & 0x80) != 0;

	if (p->hdr[0] & 0x70)
		return bad(p, -EBOX_PROTO, "reserved bits set (no extension "
		    "was negotiated)");
	if (op != WS_OP_CONT && op != WS_OP_TEXT && op != WS_OP_BINARY &&
	    op != WS_OP_CLOSE && op != WS_OP_PING && op != WS_OP_PONG)
		return bad(p, -EBOX_PROTO, "reserved opcode");
	if (masked != p->server)
		return bad(p, -EBOX_PROTO, p->server ? "unmasked frame from a "
		    "client" : "masked frame from the server");
	if (op & 0x8) {
		if (!(p->hdr[0] & 0x80))
			return bad(p, -EBOX_PROTO, "fragmented control frame");
		if ((p->hdr[1] & 0x7f) > WS_MAX_CONTROL)
			return bad(p, -EBOX_PROTO, "control frame over 125 "
			    "bytes");
	} else if (op == WS_OP_CONT && p->msg_op == 0) {
		return bad(p, -EBOX_PROTO, "continuation frame without a "
		    "message to continue");
	} else if (op != WS_OP_CONT && p->msg_op != 0) {
		return bad(p, -EBOX_PROTO, "new message inside a fragmented "
		    "one");
	}
	return 0;
}

/* The whole header is in: decode the length and mask, apply the limits. */
static int
finish_header(struct ws_parser *p)
{
	uint64_t len = p->hdr[1] & 0x7f;
	size_t i = 2, k;

	if (len == 126) {
		len = (uint64_t)p->hdr[2] << 8 | p->hdr[3];
		i = 4;
		if (len < 126)
			return bad(p, -EBOX_PROTO, "non-minimal length");
	} else if (len == 127) {
		len = 0;
		for (k = 0; k < 8; k++)
			len = len << 8 | p->hdr[2 + k];
		i = 10;
		if (len >> 63)
			return bad(p, -EBOX_PROTO, "length with the top bit "
			    "set");
		if (len <= 0xffff)
			return bad(p, -EBOX_PROTO, "non-minimal length");
	}
	p->fin = (p->hdr[0] & 0x80) != 0;
	p->opcode = p->hdr[0] & 0x0f;
	p->masked = (p->hdr[1] & 0x80) != 0;
	if (p->masked)
		memcpy(p->mask, p->hdr + i, 4);
	if (len > p->max_frame)
		return bad(p, -EBOX_TOOBIG, "frame over the size limit");
	if (!(p->opcode & 0x8)) {
		if (len > p->max_message - p->msg_len)
			return bad(p, -EBOX_TOOBIG, "message over the size "
			    "limit");
		if (p->opcode != WS_OP_CONT)
			p->msg_op = p->opcode;
		p->msg_len += len;
	}
	p->left = len;
	p->done = 0;
	p->ctl_len = 0;
	p->in_payload = 1;
	return 0;
}

static int
utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i], need, min, cp, k;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, min = 0x80, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, min = 0x800, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, min = 0x10000, cp = c & 0x07;
		else
			return 0;
		if (n - i <= need)
			return 0;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += need + 1;
	}
	return 1;
}

static int
close_code_ok(int code)
{
	return (code >= 1000 && code <= 1003) ||
	    (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

/* A complete control frame is in p->ctl. */
static int
control_event(struct ws_parser *p, struct ws_event *ev)
{
	ev->data = p->ctl;
	ev->len = p->ctl_len;
	ev->end = 1;
	ev->opcode = p->opcode;
	switch (p->opcode) {
	case WS_OP_PING:
		ev->type = WS_EV_PING;
		break;
	case WS_OP_PONG:
		ev->type = WS_EV_PONG;
		break;
	default:
		ev->type = WS_EV_CLOSE;
		ev->close_code = WS_CLOSE_NONE;
		if (p->ctl_len == 1)
			return bad(p, -EBOX_PROTO, "close frame with a 1-byte "
			    "payload");
		if (p->ctl_len >= 2) {
			ev->close_code = p->ctl[0] << 8 | p->ctl[1];
			if (!close_code_ok(ev->close_code))
				return bad(p, -EBOX_PROTO, "invalid close code");
			if (!utf8_ok(p->ctl + 2, p->ctl_len - 2))
				return bad(p, -EBOX_PROTO, "close reason is not "
				    "UTF-8");
		}
	}
	return 0;
}

ssize_t
ws_parse(struct ws_parser *p, unsigned char *buf, size_t n, size_t max_data,
    struct ws_event *ev)
{
	size_t used = 0, take;
	int rc, end_frame;

	memset(ev, 0, sizeof(*ev));
	if (p->failed)
		return p->failed;
	for (;;) {
		if (!p->in_payload) {
			while (p->hlen < header_need(p)) {
				if (used == n)
					return (ssize_t)used;
				p->hdr[p->hlen++] = buf[used++];
				if (p->hlen == 2 && (rc = check_start(p)) < 0)
					return rc;
			}
			if ((rc = finish_header(p)) < 0)
				return rc;
		}
		take = n - used;
		if (take > p->left)
			take = (size_t)p->left;
		if (p->opcode & 0x8) {
			memcpy(p->ctl + p->ctl_len, buf + used, take);
			if (p->masked)
				ws_mask(p->ctl + p->ctl_len, take, p->mask,
				    p->done);
			p->ctl_len += take;
			p->done += take;
			p->left -= take;
			used += take;
			if (p->left > 0)
				return (ssize_t)used;
			p->in_payload = 0;
			p->hlen = 0;
			if ((rc = control_event(p, ev)) < 0)
				return rc;
			return (ssize_t)used;
		}
		if (max_data != 0 && take > max_data)
			take = max_data;
		if (p->masked)
			ws_mask(buf + used, take, p->mask, p->done);
		p->done += take;
		p->left -= take;
		used += take;
		end_frame = p->left == 0;
		if (end_frame) {
			p->in_payload = 0;
			p->hlen = 0;
		}
		if (take > 0 || (end_frame && p->fin)) {
			ev->type = WS_EV_DATA;
			ev->opcode = p->msg_op;
			ev->data = buf + used - take;
			ev->len = take;
			ev->end = end_frame && p->fin;
			if (ev->end) {
				p->msg_op = 0;
				p->msg_len = 0;
			}
			return (ssize_t)used;
		}
		if (!end_frame)		/* out of input mid-payload */
			return (ssize_t)used;
		/* an empty non-final fragment: on to the next header */
	}
}

size_t
ws_frame_header(unsigned char out[WS_MAX_HEADER], int fin, int opcode,
    uint64_t len, const unsigned char *mask)
{
	unsigned char mbit = mask != NULL ? 0x80 : 0;
	size_t i = 0;
	int k;

	out[i++] = (unsigned char)((fin ? 0x80 : 0) | (opcode & 0x0f));
	if (len < 126) {
		out[i++] = (unsigned char)(mbit | len);
	} else if (len <= 0xffff) {
		out[i++] = mbit | 126;
		out[i++] = (unsigned char)(len >> 8);
		out[i++] = (unsigned char)len;
	} else {
		out[i++] = mbit | 127;
		for (k = 7; k >= 0; k--)
			out[i++] = (unsigned char)(len >> (8 * k));
	}
	if (mask != NULL) {
		memcpy(out + i, mask, 4);
		i += 4;
	}
	return i;
}

void
ws_mask(unsigned char *p, size_t n, const unsigned char mask[4], uint64_t off)
{
	unsigned char m[8];
	uint64_t w, x;
	size_t i = 0, k;

	/* Bytes up to an 8-byte boundary of the payload offset... */
	while (i < n && ((off + i) & 7) != 0) {
		p[i] ^= mask[(off + i) & 3];
		i++;
	}
	/* ...then whole words with the pattern lined up at offset 0 mod 8. */
	for (k = 0; k < 8; k++)
		m[k] = mask[k & 3];
	memcpy(&w, m, 8);
	for (; n - i >= 8; i += 8) {
		memcpy(&x, p + i, 8);
		x ^= w;
		memcpy(p + i, &x, 8);
	}
	for (; i < n; i++)
		p[i] ^= mask[(off + i) & 3];
}

size_t
ws_base64(const unsigned char *in, size_t n, char *out)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | in[i + 1] << 8 | in[i + 2];

		out[o++] = tab[v >> 18];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = tab[(v >> 6) & 63];
		out[o++] = tab[v & 63];
	}
	if (n - i == 1) {
		unsigned v = (unsigned)in[i] << 16;

		out[o++] = tab[v >> 18];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = '=';
		out[o++] = '=';
	} else if (n - i == 2) {
		unsigned v = (unsigned)in[i] << 16 | in[i + 1] << 8;

		out[o++] = tab[v >> 18];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = tab[(v >> 6) & 63];
		out[o++] = '=';
	}
	out[o] = '\0';
	return o;
}

void
ws_accept_key(const char *key, char out[29])
{
	br_sha1_context c;
	unsigned char d[br_sha1_SIZE];

	br_sha1_init(&c);
	br_sha1_update(&c, key, strlen(key));
	br_sha1_update(&c, ws_guid, sizeof(ws_guid) - 1);
	br_sha1_out(&c, d);
	ws_base64(d, sizeof(d), out);
}

/* --- connection ---------------------------------------------------------- */

void
ws_conn_init(struct ws_conn *w, struct transport *t, int nb_fd)
{
	w->t = t;
	w->nb_fd = nb_fd;
	ws_parser_init(&w->ps, WS_MAX_FRAME, WS_MAX_MESSAGE, 0);
	w->rpos = w->rlen = 0;
	w->wpos = w->wlen = 0;
	w->pong_len = 0;
	w->pong_due = 0;
	w->pong_skip = 0;
	w->eof = 0;
	w->close_rcvd = w->close_sent = 0;
	w->failed = w->wfailed = 0;
	w->key[0] = '\0';
	w->rnd_pos = sizeof(w->rnd);
}

/*
 * Masks only have to be unpredictable to the peer's intermediaries (RFC
 * 6455 10.3); getrandom() in 64-byte helpings is plenty.  Should it be
 * unavailable (ENOSYS on an ancient kernel) a clock-seeded xorshift still
 * varies them.
 */
static void
random_bytes(struct ws_conn *w, unsigned char *out, size_t n)
{
	while (n > 0) {
		if (w->rnd_pos == sizeof(w->rnd)) {
			ssize_t r = getrandom(w->rnd, sizeof(w->rnd), 0);

			if (r != (ssize_t)sizeof(w->rnd)) {
				struct timespec ts;
				uint64_t x;
				size_t i;

				clock_gettime(CLOCK_MONOTONIC, &ts);
				x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec <<
				    32 ^ (uint64_t)(uintptr_t)w;
				for (i = 0; i < sizeof(w->rnd); i++) {
					x ^= x << 13;
					x ^= x >> 7;
					x ^= x << 17;
					w->rnd[i] = (unsigned char)x;
				}
			}
			w->rnd_pos = 0;
		}
		*out++ = w->rnd[w->rnd_pos++];
		n--;
	}
}

int
ws_open(struct ws_conn *w, struct http_conn *h, const char *target,
    struct box_err *e)
{
	unsigned char raw[16];
	char hdrs[256];

	random_bytes(w, raw, sizeof(raw));
	ws_base64(raw, sizeof(raw), w->key);
	snprintf(hdrs, sizeof(hdrs), "Upgrade: websocket\r\n"
	    "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
	    "Sec-WebSocket-Version: 13\r\n", w->key);
	return http_send(h, "GET", target, hdrs, NULL, NULL, 0, e);
}

/* A refused upgrade: say what the daemon said, if it said anything. */
static int
refused(struct http_conn *h, struct http_resp *r, struct box_err *e)
{
	struct json_doc d = { 0 };
	struct box_err ignore;
	char msg[300];
	int code = r->status == 403 ? -EACCES : r->status == 404 ? -ENOENT :
	    -EBOX_API;

	err_clear(&ignore);
	msg[0] = '\0';
	if (http_read_body(h, r, 16384, &ignore) == 0 && r->body_len > 0 &&
	    json_parse(&d, r->body, r->body_len, &ignore) == 0)
		json_gets(&d, 0, "error", msg, sizeof(msg), "");
	json_free(&d);
	http_resp_free(r);
	if (msg[0] != '\0')
		return err_set(e, code, "websocket refused (HTTP %d): %s",
		    r->status, msg);
	return err_set(e, r->status >= 400 ? code : -EBOX_PROTO,
	    "websocket refused: the daemon answered HTTP %d instead of 101",
	    r->status);
}

int
ws_accept(struct ws_conn *w, struct http_conn *h, struct box_err *e)
{
	struct http_resp r;
	char want[29];
	size_t n;
	int rc;

	rc = http_read_head(h, &r, e);
	if (rc < 0) {
		err_context(e, "websocket handshake");
		return rc;
	}
	if (r.status != 101)
		return refused(h, &r, e);
	if (strcasecmp(r.upgrade, "websocket") != 0)
		return err_set(e, -EBOX_PROTO, "websocket handshake: the "
		    "daemon switched to '%s', not websocket", r.upgrade);
	ws_accept_key(w->key, want);
	if (strcmp(r.ws_accept, want) != 0)
		return err_set(e, -EBOX_PROTO, "websocket handshake: wrong "
		    "Sec-WebSocket-Accept ('%s', expected '%s')", r.ws_accept,
		    want);
	/* Frames the server sent right behind its headers are ours. */
	n = http_buffered(h);
	if (n > sizeof(w->rbuf))
		return err_set(e, -EBOX_TOOBIG, "websocket handshake: too "
		    "much early data");
	while (w->rlen < n) {
		ssize_t got = http_read_raw(h, w->rbuf + w->rlen, n - w->rlen);

		if (got <= 0)
			break;
		w->rlen += (size_t)got;
	}
	return 0;
}

int
ws_fd(const struct ws_conn *w)
{
	return w->t->ops->fd(w->t);
}

int
ws_readable(const struct ws_conn *w)
{
	return w->rpos < w->rlen || w->t->ops->pending(w->t) > 0;
}

/* Queue a control frame now, or remember the pong until there is room. */
static int
queue_pong(struct ws_conn *w)
{
	if (ws_queue(w, WS_OP_PONG, w->pong, w->pong_len) == 0)
		w->pong_due = 0;
	return 0;
}

int
ws_next(struct ws_conn *w, struct ws_event *ev, size_t max_data,
    struct box_err *e)
{
	ssize_t r;

	if (w->failed)
		return w->failed;
	if (w->pong_due)
		queue_pong(w);
	r = ws_parse(&w->ps, w->rbuf + w->rpos, w->rlen - w->rpos, max_data, ev);
	if (r < 0) {
		w->failed = (int)r;
		return err_set(e, (int)r, "websocket: %s", w->ps.why);
	}
	w->rpos += (size_t)r;
	if (w->rpos == w->rlen)
		w->rpos = w->rlen = 0;
	switch (ev->type) {
	case WS_EV_NONE:
		return 0;
	case WS_EV_PING:
		if (w->pong_skip > 0)
			w->pong_skip--;
		else if (!w->close_sent) {
			memcpy(w->pong, ev->data, ev->len);
			w->pong_len = ev->len;
			w->pong_due = 1;
			queue_pong(w);
		}
		break;
	case WS_EV_CLOSE:
		w->close_rcvd = 1;
		ws_queue_close(w, ev->close_code == WS_CLOSE_NONE ?
		    WS_CLOSE_NORMAL : ev->close_code);
		break;
	}
	return 1;
}

ssize_t
ws_fill(struct ws_conn *w, struct box_err *e)
{
	ssize_t r;

	if (w->failed)
		return w->failed;
	if (w->rpos > 0) {
		memmove(w->rbuf, w->rbuf + w->rpos, w->rlen - w->rpos);
		w->rlen -= w->rpos;
		w->rpos = 0;
	}
	if (w->rlen == sizeof(w->rbuf))
		return 1;	/* the parser always drains a full buffer */
	r = transport_read(w->t, w->rbuf + w->rlen, sizeof(w->rbuf) - w->rlen);
	if (r > 0)
		w->rlen += (size_t)r;
	else if (r == 0)
		w->eof = 1;
	else {
		w->failed = (int)r;
		err_set(e, (int)r, "websocket: reading: %s", err_str((int)r));
	}
	return r;
}

size_t
ws_room(const struct ws_conn *w)
{
	size_t free = sizeof(w->wbuf) - w->wlen;

	/* room for the header (at most 14 bytes) and a pong behind it */
	if (free < WS_MAX_HEADER + WS_MAX_HEADER + WS_MAX_CONTROL)
		return 0;
	return free - WS_MAX_HEADER - (WS_MAX_HEADER + WS_MAX_CONTROL);
}

/* Make room at the end of wbuf by dropping what was already written. */
static void
compact(struct ws_conn *w)
{
	if (w->wpos == 0)
		return;
	memmove(w->wbuf, w->wbuf + w->wpos, w->wlen - w->wpos);
	w->wlen -= w->wpos;
	w->wpos = 0;
}

int
ws_queue(struct ws_conn *w, int opcode, const void *p, size_t n)
{
	unsigned char mask[4];
	size_t h;

	if (w->wfailed)
		return w->wfailed;
	if (w->close_sent)
		return -EPIPE;
	if ((opcode & 0x8) && n > WS_MAX_CONTROL)
		return -EINVAL;
	compact(w);
	/* control frames may use the reserve that ws_room() keeps back */
	if (sizeof(w->wbuf) - w->wlen < WS_MAX_HEADER + n ||
	    (!(opcode & 0x8) && n > ws_room(w)))
		return -ENOBUFS;
	random_bytes(w, mask, 4);
	h = ws_frame_header(w->wbuf + w->wlen, 1, opcode, n, mask);
	if (n > 0)
		memcpy(w->wbuf + w->wlen + h, p, n);
	ws_mask(w->wbuf + w->wlen + h, n, mask, 0);
	w->wlen += h + n;
	if (opcode == WS_OP_CLOSE)
		w->close_sent = 1;
	return 0;
}

unsigned char *
ws_reserve(struct ws_conn *w, size_t *cap)
{
	size_t room;

	if (w->wfailed || w->close_sent)
		return NULL;
	compact(w);
	room = ws_room(w);
	if (room > 0xffff)
		room = 0xffff;
	if (room == 0)
		return NULL;
	*cap = room;
	/* 2 + 2 (16-bit length) + 4 (mask): the header for 126..65535 bytes */
	return w->wbuf + w->wlen + 8;
}

int
ws_commit(struct ws_conn *w, int opcode, size_t n)
{
	unsigned char mask[4], *hdr = w->wbuf + w->wlen;
	size_t h;

	if (n > 0xffff || n > ws_room(w))
		return -EINVAL;
	if (n < 126)		/* the short form: slide the payload left */
		memmove(hdr + 6, hdr + 8, n);
	random_bytes(w, mask, 4);
	h = ws_frame_header(hdr, 1, opcode, n, mask);
	ws_mask(hdr + h, n, mask, 0);
	w->wlen += h + n;
	return 0;
}

int
ws_queue_close(struct ws_conn *w, int code)
{
	unsigned char p[2];

	if (w->close_sent)
		return 0;
	p[0] = (unsigned char)(code >> 8);
	p[1] = (unsigned char)code;
	return ws_queue(w, WS_OP_CLOSE, p, 2);
}

size_t
ws_pending(const struct ws_conn *w)
{
	return w->wlen - w->wpos;
}

int
ws_flush(struct ws_conn *w)
{
	int rc;

	if (w->wfailed)
		return w->wfailed;
	if (w->pong_due)
		queue_pong(w);
	while (w->wpos < w->wlen) {
		ssize_t n;

		if (w->nb_fd < 0) {
			rc = transport_write(w->t, w->wbuf + w->wpos,
			    w->wlen - w->wpos);
			if (rc < 0)
				return w->wfailed = rc;
			w->wpos = w->wlen;
			break;
		}
		n = send(w->nb_fd, w->wbuf + w->wpos, w->wlen - w->wpos,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			w->wpos += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return w->wfailed = n < 0 ? -errno : -EPIPE;
	}
	w->wpos = w->wlen = 0;
	return 0;
}
