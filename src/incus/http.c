/*
 * http.c - the HTTP/1.1 client side, as much of RFC 9112 as a daemon on a
 * unix socket needs, and not a byte more trusting than that.
 *
 * Reading is layered on one fixed buffer per connection: the header section
 * must fit in it whole (HTTP_MAX_HEADER), chunk-size lines are parsed from
 * it, and body bytes are copied out of it into the caller's growing body.
 * Every wait is bounded twice: by the transport's per-read timeout and by
 * the connection's deadline for the whole reply, so a server that drips one
 * byte just inside the read timeout still cannot hold us.
 */
#include "incus/http.h"
#include "util/clock.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void
http_conn_init(struct http_conn *c, struct transport *t)
{
	c->t = t;
	c->rpos = c->rlen = 0;
	c->reusable = 1;
	c->broken = 0;
	c->deadline = 0;
}

static int
fail(struct http_conn *c, struct box_err *e, int code, const char *what)
{
	c->broken = 1;
	c->reusable = 0;
	if (code == -ETIMEDOUT)
		return err_set(e, code, "the daemon did not answer in time "
		    "(%s)", what);
	if (code == -EBOX_TOOBIG)
		return err_set(e, code, "the daemon's reply is too large "
		    "(%s)", what);
	if (code == -EBOX_PROTO)
		return err_set(e, code, "the daemon sent a malformed reply "
		    "(%s)", what);
	if (code == -EPIPE)
		return err_set(e, code, "the daemon closed the connection "
		    "mid-reply (%s)", what);
	return err_set(e, code, "reading the daemon's reply: %s (%s)",
	    err_str(code), what);
}

/* Read more bytes into rbuf.  > 0 bytes added, 0 at EOF, < 0 error. */
static ssize_t
fill(struct http_conn *c)
{
	ssize_t r;

	if (c->deadline != 0 && clock_ms() > c->deadline)
		return -ETIMEDOUT;
	if (c->rpos == c->rlen)
		c->rpos = c->rlen = 0;
	if (c->rlen == sizeof(c->rbuf)) {
		if (c->rpos == 0)
			return -EBOX_TOOBIG;
		memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
		c->rlen -= c->rpos;
		c->rpos = 0;
	}
	r = transport_read(c->t, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);
	if (r > 0)
		c->rlen += (size_t)r;
	return r;
}

int
http_send(struct http_conn *c, const char *method, const char *target,
    const char *extra_headers, const char *content_type, const void *body,
    size_t n, struct box_err *e)
{
	char head[2048], framing[160];
	int len, rc;

	if (c->broken)
		return err_set(e, -EPIPE, "connection unusable after an "
		    "earlier failure");
	if (strpbrk(target, " \r\n") != NULL ||
	    (content_type != NULL && strpbrk(content_type, "\r\n") != NULL))
		return err_set(e, -EINVAL, "bad request line or header");
	framing[0] = '\0';
	if (body != NULL || n > 0)
		snprintf(framing, sizeof(framing), "%s%s%sContent-Length: %zu\r\n",
		    content_type ? "Content-Type: " : "",
		    content_type ? content_type : "", content_type ? "\r\n" : "",
		    n);
	len = snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: incus\r\n"
	    "User-Agent: box/" BOX_VERSION "\r\n%s%s\r\n", method, target,
	    extra_headers, framing);
	if (len < 0 || (size_t)len >= sizeof(head))
		return err_set(e, -ENAMETOOLONG, "request head too long");
	rc = transport_write(c->t, head, (size_t)len);
	if (rc == 0 && n > 0)
		rc = transport_write(c->t, body, n);
	if (rc < 0) {
		c->broken = 1;
		return err_set(e, rc, "sending the request: %s", err_str(rc));
	}
	return 0;
}

/* Copy a header value, trimmed, into dst; refuse values that do not fit. */
static int
copy_value(char *dst, size_t cap, const char *v, size_t n)
{
	while (n > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (n >= cap)
		return -EBOX_TOOBIG;
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

static int
parse_length(const char *v, size_t n, long long *out)
{
	long long x = 0;
	size_t i = 0;

	while (i < n && (v[i] == ' ' || v[i] == '\t'))
		i++;
	while (n > i && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (i == n)
		return -EBOX_PROTO;
	for (; i < n; i++) {
		if (v[i] < '0' || v[i] > '9' || x > (1LL << 50))
			return -EBOX_PROTO;
		x = x * 10 + (v[i] - '0');
	}
	*out = x;
	return 0;
}

static int
has_token(const char *v, size_t n, const char *tok)
{
	size_t tl = strlen(tok), i = 0;

	while (i < n) {
		size_t j;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		j = i;
		while (j < n && v[j] != ',')
			j++;
		{
			size_t k = j;

			while (k > i && (v[k - 1] == ' ' || v[k - 1] == '\t'))
				k--;
			if (k - i == tl && strncasecmp(v + i, tok, tl) == 0)
				return 1;
		}
		i = j;
	}
	return 0;
}

/* One "Name: value" line (without its CRLF). */
static int
parse_header(struct http_resp *r, const char *p, size_t n)
{
	const char *colon = memchr(p, ':', n);
	const char *v;
	size_t nl, vn;
	long long cl;
	size_t i;

	if (colon == NULL || colon == p)
		return -EBOX_PROTO;
	nl = (size_t)(colon - p);
	for (i = 0; i < nl; i++)	/* a token: no white space, no CTLs */
		if (p[i] <= ' ' || p[i] == 0x7f)
			return -EBOX_PROTO;
	v = colon + 1;
	vn = n - nl - 1;
	for (i = 0; i < vn; i++)
		if ((unsigned char)v[i] < ' ' && v[i] != '\t')
			return -EBOX_PROTO;
#define IS(name) (nl == sizeof(name) - 1 && strncasecmp(p, name, nl) == 0)
	if (IS("Content-Length")) {
		if (parse_length(v, vn, &cl) < 0)
			return -EBOX_PROTO;
		if (r->content_length >= 0 && r->content_length != cl)
			return -EBOX_PROTO;	/* conflicting lengths */
		r->content_length = cl;
	} else if (IS("Transfer-Encoding")) {
		if (!has_token(v, vn, "chunked"))
			return -EBOX_PROTO;	/* a coding we do not speak */
		r->chunked = 1;
	} else if (IS("Connection")) {
		if (has_token(v, vn, "close"))
			r->conn_close = 1;
	} else if (IS("Location")) {
		return copy_value(r->location, sizeof(r->location), v, vn);
	} else if (IS("Etag")) {
		return copy_value(r->etag, sizeof(r->etag), v, vn);
	} else if (IS("Content-Type")) {
		return copy_value(r->content_type, sizeof(r->content_type), v,
		    vn);
	} else if (IS("Upgrade")) {
		return copy_value(r->upgrade, sizeof(r->upgrade), v, vn);
	} else if (IS("Sec-WebSocket-Accept")) {
		return copy_value(r->ws_accept, sizeof(r->ws_accept), v, vn);
	}
#undef IS
	return 0;
}

static int
parse_status(struct http_resp *r, const char *p, size_t n)
{
	if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 ||
	    (p[7] != '0' && p[7] != '1') || p[8] != ' ' ||
	    !isdigit((unsigned char)p[9]) || !isdigit((unsigned char)p[10]) ||
	    !isdigit((unsigned char)p[11]) || (n > 12 && p[12] != ' '))
		return -EBOX_PROTO;
	r->http10 = p[7] == '0';
	r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	if (r->status < 100)
		return -EBOX_PROTO;
	return 0;
}

/* Find CRLF CRLF in rbuf[rpos..rlen); returns offset past it or 0. */
static size_t
head_end(const struct http_conn *c)
{
	const unsigned char *p = c->rbuf + c->rpos;
	size_t n = c->rlen - c->rpos, i;

	for (i = 3; i < n; i++)
		if (p[i] == '\n' && p[i - 1] == '\r' && p[i - 2] == '\n' &&
		    p[i - 3] == '\r')
			return i + 1;
	return 0;
}

int
http_read_head(struct http_conn *c, struct http_resp *r, struct box_err *e)
{
	const char *p, *line, *end;
	size_t hlen;
	ssize_t got;
	int rc, first = 1;

	memset(r, 0, sizeof(*r));
	r->content_length = -1;
	if (c->broken)
		return err_set(e, -EPIPE, "connection unusable after an "
		    "earlier failure");
	while ((hlen = head_end(c)) == 0) {
		if (c->rlen - c->rpos >= HTTP_MAX_HEADER)
			return fail(c, e, -EBOX_TOOBIG, "header section over "
			    "16 KiB");
		got = fill(c);
		if (got == 0)
			return fail(c, e, -EPIPE, c->rlen == c->rpos ?
			    "no reply at all" : "in the header section");
		if (got < 0)
			return fail(c, e, (int)got, "waiting for headers");
	}
	p = (const char *)c->rbuf + c->rpos;
	end = p + hlen - 2;	/* at the final CRLF */
	for (line = p; line < end; first = 0) {
		const char *nl = memchr(line, '\r', (size_t)(end - line));

		if (nl == NULL || nl[1] != '\n')
			return fail(c, e, -EBOX_PROTO, "bare CR or LF in "
			    "headers");
		if (memchr(line, '\n', (size_t)(nl - line)) != NULL)
			return fail(c, e, -EBOX_PROTO, "bare LF in headers");
		if (first)
			rc = parse_status(r, line, (size_t)(nl - line));
		else if (line[0] == ' ' || line[0] == '\t')
			rc = -EBOX_PROTO;	/* obsolete line folding */
		else
			rc = parse_header(r, line, (size_t)(nl - line));
		if (rc < 0)
			return fail(c, e, rc, first ? "status line" :
			    "header line");
		line = nl + 2;
	}
	c->rpos += hlen;
	return 0;
}

/* A body buffer that grows up to max bytes (plus a NUL). */
struct body {
	char *p;
	size_t len, cap, max;
};

static int
body_reserve(struct body *b, size_t more)
{
	size_t want, ncap;
	char *np;

	if (more > b->max - b->len)
		return -EBOX_TOOBIG;
	want = b->len + more + 1;
	if (want <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 4096;
	while (ncap < want)
		ncap *= 2;
	if (ncap > b->max + 1)
		ncap = b->max + 1;
	np = realloc(b->p, ncap);
	if (np == NULL)
		return -ENOMEM;
	b->p = np;
	b->cap = ncap;
	return 0;
}

/* Move exactly n body bytes from the connection into b. */
static int
read_exact(struct http_conn *c, struct body *b, size_t n)
{
	int rc = body_reserve(b, n);

	if (rc < 0)
		return rc;
	while (n > 0) {
		size_t have = c->rlen - c->rpos, take;
		ssize_t got;

		if (have > 0) {
			take = have < n ? have : n;
			memcpy(b->p + b->len, c->rbuf + c->rpos, take);
			c->rpos += take;
			b->len += take;
			n -= take;
			continue;
		}
		if (c->deadline != 0 && clock_ms() > c->deadline)
			return -ETIMEDOUT;
		/* Large bodies skip the connection buffer. */
		got = transport_read(c->t, b->p + b->len, n);
		if (got == 0)
			return -EPIPE;
		if (got < 0)
			return (int)got;
		b->len += (size_t)got;
		n -= (size_t)got;
	}
	return 0;
}

/* One CRLF-terminated line of at most max bytes, into line[]. */
static int
read_line(struct http_conn *c, char *line, size_t max)
{
	for (;;) {
		const unsigned char *p = c->rbuf + c->rpos;
		size_t n = c->rlen - c->rpos;
		const unsigned char *nl = memchr(p, '\n', n);
		ssize_t got;

		if (nl != NULL) {
			size_t len = (size_t)(nl - p);

			if (len == 0 || p[len - 1] != '\r')
				return -EBOX_PROTO;
			if (len - 1 >= max)
				return -EBOX_TOOBIG;
			memcpy(line, p, len - 1);
			line[len - 1] = '\0';
			c->rpos += len + 1;
			return (int)(len - 1);
		}
		if (n > max)
			return -EBOX_TOOBIG;
		got = fill(c);
		if (got == 0)
			return -EPIPE;
		if (got < 0)
			return (int)got;
	}
}

static int
parse_chunk_size(const char *s, size_t *out)
{
	size_t v = 0;
	int digits = 0;

	for (; isxdigit((unsigned char)*s); s++, digits++) {
		int d = isdigit((unsigned char)*s) ? *s - '0' :
		    (tolower((unsigned char)*s) - 'a' + 10);

		if (digits >= 15)
			return -EBOX_TOOBIG;
		v = v * 16 + (size_t)d;
	}
	if (digits == 0)
		return -EBOX_PROTO;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '\0' && *s != ';')	/* only extensions may follow */
		return -EBOX_PROTO;
	*out = v;
	return 0;
}

static int
read_chunked(struct http_conn *c, struct body *b)
{
	char line[128];
	size_t size, trailer = 0;
	int rc;

	for (;;) {
		rc = read_line(c, line, 64);
		if (rc < 0)
			return rc;
		rc = parse_chunk_size(line, &size);
		if (rc < 0)
			return rc;
		if (size == 0)
			break;
		rc = read_exact(c, b, size);
		if (rc < 0)
			return rc;
		rc = read_line(c, line, 1);
		if (rc != 0)
			return rc < 0 ? rc : -EBOX_PROTO;
	}
	/* Trailer section: skipped, but bounded like the header section. */
	for (;;) {
		rc = read_line(c, line, sizeof(line));
		if (rc < 0)
			return rc;
		if (rc == 0)
			return 0;
		trailer += (size_t)rc;
		if (trailer > HTTP_MAX_HEADER)
			return -EBOX_TOOBIG;
	}
}

static int
read_to_eof(struct http_conn *c, struct body *b)
{
	int rc;

	for (;;) {
		size_t have = c->rlen - c->rpos;
		ssize_t got;

		if (have > 0) {
			rc = body_reserve(b, have);
			if (rc < 0)
				return rc;
			memcpy(b->p + b->len, c->rbuf + c->rpos, have);
			b->len += have;
			c->rpos = c->rlen = 0;
		}
		got = fill(c);
		if (got == 0)
			return 0;
		if (got < 0)
			return (int)got;
	}
}

int
http_read_body(struct http_conn *c, struct http_resp *r, size_t max,
    struct box_err *e)
{
	struct body b = { NULL, 0, 0, max };
	int rc = 0, no_body;

	no_body = (r->status >= 100 && r->status < 200) || r->status == 204 ||
	    r->status == 304;
	if (no_body)
		rc = 0;
	else if (r->chunked)
		rc = read_chunked(c, &b);
	else if (r->content_length >= 0) {
		if ((unsigned long long)r->content_length > max)
			rc = -EBOX_TOOBIG;
		else
			rc = read_exact(c, &b, (size_t)r->content_length);
	} else {
		rc = read_to_eof(c, &b);
		r->conn_close = 1;
	}
	if (rc == 0)
		rc = body_reserve(&b, 0);
	if (rc < 0) {
		free(b.p);
		return fail(c, e, rc, "reading the body");
	}
	b.p[b.len] = '\0';
	r->body = b.p;
	r->body_len = b.len;
	c->reusable = !r->conn_close && !r->http10;
	return 0;
}

void
http_resp_free(struct http_resp *r)
{
	free(r->body);
	r->body = NULL;
	r->body_len = 0;
}

ssize_t
http_read_raw(struct http_conn *c, void *buf, size_t n)
{
	size_t have = c->rlen - c->rpos;

	if (have > 0) {
		if (n > have)
			n = have;
		memcpy(buf, c->rbuf + c->rpos, n);
		c->rpos += n;
		return (ssize_t)n;
	}
	return transport_read(c->t, buf, n);
}

size_t
http_buffered(const struct http_conn *c)
{
	return c->rlen - c->rpos;
}
