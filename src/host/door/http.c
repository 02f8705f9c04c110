/*
 * http.c - the door's strict HTTP/1.1 readers (http.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "host/door/http.h"

static int
bad(char *why, size_t cap, const char *what)
{
	if (why != NULL && cap > 0)
		snprintf(why, cap, "%s", what);
	return -EINVAL;
}

static int
tchar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != 0 && strchr("!#$%&'*+-.^_`|~",
	    c) != NULL);
}

long
dh_head_end(const char *buf, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' && (i == 0 || buf[i - 1] != '\r'))
			return -EINVAL;		/* a bare LF */
		if (buf[i] == '\r' && i + 1 < n && buf[i + 1] != '\n')
			return -EINVAL;		/* a bare CR */
		if (buf[i] != '\n')
			continue;
		if (i - start > DH_LINEMAX)
			return -EINVAL;
		if (i - start == 1)
			return (long)(i + 1);	/* the blank line */
		start = i + 1;
	}
	if (n - start > DH_LINEMAX)
		return -EINVAL;
	return 0;
}

/* The line at *off (through its CRLF): its length without the CRLF. */
static long
line_at(const char *buf, size_t n, size_t *off, const char **l)
{
	const char *p = buf + *off, *e = memchr(p, '\n', n - *off);
	size_t len;

	if (e == NULL || e == p || e[-1] != '\r')
		return -1;
	len = (size_t)(e - p) - 1;
	if (len > DH_LINEMAX || memchr(p, '\r', len) != NULL)
		return -1;
	*l = p;
	*off += len + 2;
	return (long)len;
}

/* A header line into h: 0 or -EINVAL. */
static int
header(const char *l, size_t len, struct dh_hdr *h, char *why, size_t cap)
{
	size_t i = 0, v, e;

	if (l[0] == ' ' || l[0] == '\t')
		return bad(why, cap, "obs-fold (a folded header line)");
	while (i < len && tchar((unsigned char)l[i]))
		i++;
	if (i == 0 || i >= len || l[i] != ':')
		return bad(why, cap, "a header name that is not a token, or a "
		    "blank before its colon");
	h->name = l;
	h->nlen = i;
	for (v = i + 1; v < len && (l[v] == ' ' || l[v] == '\t'); v++)
		;
	for (e = len; e > v && (l[e - 1] == ' ' || l[e - 1] == '\t'); e--)
		;
	for (i = v; i < e; i++)
		if (((unsigned char)l[i] < 0x20 && l[i] != '\t') ||
		    l[i] == 0x7f)
			return bad(why, cap, "a control byte in a header value");
	h->value = l + v;
	h->vlen = e - v;
	return 0;
}

int
dh_hdr_is(const struct dh_hdr *h, const char *name)
{
	return strlen(name) == h->nlen && strncasecmp(h->name, name,
	    h->nlen) == 0;
}

static int
request_line(const char *l, size_t len, struct dh_req *r, char *why,
    size_t cap)
{
	const char *sp1 = memchr(l, ' ', len), *sp2;
	size_t i;

	if (sp1 == NULL || (sp2 = memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1
	    - l))) == NULL)
		return bad(why, cap, "not a request line");
	r->method = l;
	r->mlen = (size_t)(sp1 - l);
	r->target = sp1 + 1;
	r->tlen = (size_t)(sp2 - sp1 - 1);
	for (i = 0; i < r->mlen; i++)
		if (!tchar((unsigned char)l[i]))
			return bad(why, cap, "a method that is not a token");
	if (r->mlen == 0 || (r->mlen == 7 && memcmp(l, "CONNECT", 7) == 0))
		return bad(why, cap, "CONNECT (the door is no tunnel)");
	if (r->tlen == 0 || r->target[0] != '/')
		return bad(why, cap, "a target that is not origin-form "
		    "(absolute-form goes nowhere but the secret's host)");
	for (i = 0; i < r->tlen; i++)
		if ((unsigned char)r->target[i] <= 0x20 ||
		    (unsigned char)r->target[i] >= 0x7f)
			return bad(why, cap, "a byte the target may not hold");
	len -= (size_t)(sp2 + 1 - l);
	if (len != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '1' && sp2[8] != '0'))
		return bad(why, cap, "not HTTP/1.1 or HTTP/1.0");
	r->minor = sp2[8] - '0';
	return 0;
}

/* Content-Length and Transfer-Encoding, each at most once, never both. */
static int
framing(struct dh_req *r, char *why, size_t cap)
{
	int ncl = 0, nte = 0;
	size_t i, k;

	for (i = 0; i < r->nh; i++) {
		const struct dh_hdr *h = &r->h[i];

		if (dh_hdr_is(h, "Content-Length")) {
			if (ncl++ > 0)
				return bad(why, cap, "Content-Length twice");
			if (h->vlen == 0 || h->vlen > 15)
				return bad(why, cap, "a bad Content-Length");
			r->len = 0;
			for (k = 0; k < h->vlen; k++) {
				if (h->value[k] < '0' || h->value[k] > '9')
					return bad(why, cap,
					    "a bad Content-Length");
				r->len = r->len * 10 + (uint64_t)(h->value[k] -
				    '0');
			}
			r->has_len = 1;
		} else if (dh_hdr_is(h, "Transfer-Encoding")) {
			if (nte++ > 0)
				return bad(why, cap,
				    "Transfer-Encoding twice");
			if (h->vlen != 7 || strncasecmp(h->value, "chunked",
			    7) != 0)
				return bad(why, cap, "a Transfer-Encoding "
				    "other than chunked");
			r->chunked = 1;
		}
	}
	if (ncl && nte)
		return bad(why, cap, "both Content-Length and "
		    "Transfer-Encoding (request smuggling)");
	return 0;
}

/* The header lines from *off to the blank line into h[], *nh. */
static int
headers(const char *buf, size_t n, size_t *off, struct dh_hdr *h,
    size_t *nh, char *why, size_t cap)
{
	const char *l;
	long len;

	*nh = 0;
	for (;;) {
		if ((len = line_at(buf, n, off, &l)) < 0)
			return bad(why, cap, "a line without CRLF, a bare CR "
			    "or a line too long");
		if (len == 0)
			return 0;
		if (*nh >= DH_MAXHDR)
			return bad(why, cap, "too many headers");
		if (header(l, (size_t)len, &h[*nh], why, cap) < 0)
			return -EINVAL;
		(*nh)++;
	}
}

int
dh_req_parse(const char *buf, size_t n, struct dh_req *r, char *why,
    size_t cap)
{
	const char *l;
	size_t off = 0;
	long len;

	memset(r, 0, sizeof(*r));
	if (n > DH_HEADMAX)
		return bad(why, cap, "a head too long");
	if ((len = line_at(buf, n, &off, &l)) <= 0)
		return bad(why, cap, "no request line");
	if (request_line(l, (size_t)len, r, why, cap) < 0 ||
	    headers(buf, n, &off, r->h, &r->nh, why, cap) < 0 ||
	    framing(r, why, cap) < 0)
		return -EINVAL;
	if (off != n)
		return bad(why, cap, "bytes after the head's end");
	r->head_len = off;
	return 0;
}

int
dh_resp_parse(const char *buf, size_t n, struct dh_resp *r, char *why,
    size_t cap)
{
	const char *l;
	size_t off = 0;
	long len;

	memset(r, 0, sizeof(*r));
	if (n > DH_HEADMAX)
		return bad(why, cap, "a head too long");
	if ((len = line_at(buf, n, &off, &l)) < 12 ||
	    (memcmp(l, "HTTP/1.1 ", 9) != 0 && memcmp(l, "HTTP/1.0 ", 9) !=
	    0) || l[9] < '1' || l[9] > '5' || l[10] < '0' || l[10] > '9' ||
	    l[11] < '0' || l[11] > '9' || (len > 12 && l[12] != ' '))
		return bad(why, cap, "not a status line");
	r->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	if (headers(buf, n, &off, r->h, &r->nh, why, cap) < 0)
		return -EINVAL;
	if (off != n)
		return bad(why, cap, "bytes after the head's end");
	r->head_len = off;
	return 0;
}

static int
holds(const char *v, size_t vl, const char *s, size_t sl)
{
	size_t i;

	for (i = 0; sl > 0 && i + sl <= vl; i++)
		if (memcmp(v + i, s, sl) == 0)
			return 1;
	return 0;
}

long
dh_resp_redact(const char *head, const struct dh_resp *r,
    const char *secret, size_t slen, char *out, size_t cap, int *redacted)
{
	const char *status_end = strstr(head, "\r\n");
	size_t o, i;
	int w;

	*redacted = 0;
	if (status_end == NULL || (size_t)(status_end - head) + 2 > cap)
		return -ENOSPC;
	o = (size_t)(status_end - head) + 2;
	memcpy(out, head, o);
	if (holds(head, o, secret, slen)) {	/* in the reason phrase */
		(*redacted)++;
		o = (size_t)snprintf(out, cap, "%.12s [redacted by box]\r\n",
		    head);
	}
	for (i = 0; i < r->nh; i++) {
		const struct dh_hdr *h = &r->h[i];
		int red = holds(h->value, h->vlen, secret, slen);

		if (holds(h->name, h->nlen, secret, slen)) {
			(*redacted)++;	/* in a name: the header goes */
			continue;
		}
		*redacted += red;
		w = snprintf(out + o, cap - o, "%.*s: %.*s\r\n", (int)h->nlen,
		    h->name, red ? 17 : (int)h->vlen, red ? "[redacted by box]"
		    : h->value);
		if (w < 0 || (size_t)w >= cap - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	if (cap - o < 3)
		return -ENOSPC;
	memcpy(out + o, "\r\n", 3);
	return (long)(o + 2);
}

/* Chunked framing states. */
enum { CK_SIZE, CK_EXT, CK_SIZE_LF, CK_DATA, CK_DATA_CR, CK_DATA_LF,
	CK_TRAILER, CK_TRAILER_LF, CK_END_LF };

static long
chunk_framing(struct dh_chunked *c, char ch)
{
	int v = (ch >= '0' && ch <= '9') ? ch - '0' : (ch >= 'a' && ch <= 'f')
	    ? ch - 'a' + 10 : (ch >= 'A' && ch <= 'F') ? ch - 'A' + 10 : -1;

	if (++c->line > DH_LINEMAX)
		return -EINVAL;
	switch (c->st) {
	case CK_SIZE:
		if (v >= 0 && c->digits < 10) {
			c->left = c->left * 16 + (uint64_t)v;
			c->digits++;
			return 0;
		}
		if (c->digits == 0 || v >= 0)
			return -EINVAL;
		if (ch == ';') {
			c->st = CK_EXT;
			return 0;
		}
		/* FALLTHROUGH */
	case CK_EXT:
		if (ch == '\r') {
			c->st = CK_SIZE_LF;
			return 0;
		}
		if (ch == '\n' || (unsigned char)ch < 0x20 || c->st == CK_SIZE)
			return -EINVAL;
		return 0;
	case CK_SIZE_LF:
		if (ch != '\n')
			return -EINVAL;
		c->line = 0;
		c->st = c->left > 0 ? CK_DATA : CK_TRAILER;
		return 0;
	case CK_DATA_CR:
		if (ch != '\r')
			return -EINVAL;
		c->st = CK_DATA_LF;
		return 0;
	case CK_DATA_LF:
		if (ch != '\n')
			return -EINVAL;
		c->st = CK_SIZE;
		c->digits = 0;
		c->line = 0;
		return 0;
	case CK_TRAILER:
		if (ch == '\r') {
			c->st = c->line == 1 ? CK_END_LF : CK_TRAILER_LF;
			return 0;
		}
		return ch == '\n' ? -EINVAL : 0;
	case CK_TRAILER_LF:
		if (ch != '\n')
			return -EINVAL;
		c->st = CK_TRAILER;
		c->line = 0;
		return 0;
	case CK_END_LF:
		if (ch != '\n')
			return -EINVAL;
		c->done = 1;
		return 0;
	}
	return -EINVAL;
}

long
dh_chunked_feed(struct dh_chunked *c, const char *p, size_t n)
{
	size_t i = 0, take;

	while (i < n && !c->done) {
		if (c->st == CK_DATA) {
			take = n - i < c->left ? n - i : (size_t)c->left;
			i += take;
			c->left -= take;
			if (c->left == 0)
				c->st = CK_DATA_CR;
			continue;
		}
		if (chunk_framing(c, p[i]) < 0)
			return -EINVAL;
		i++;
	}
	return (long)i;
}
