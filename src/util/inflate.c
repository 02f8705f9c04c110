/*
 * inflate.c - a prefix-only DEFLATE/gzip decoder (see inflate.h).
 *
 * Written from RFC 1951: blocks of three kinds (stored, fixed Huffman,
 * dynamic Huffman), literals/lengths and distances coded with canonical
 * Huffman codes described by their code lengths.
 */
#include "util/inflate.h"

#include <errno.h>
#include <string.h>

#include "util/err.h"

#define MAXBITS	15
#define NLIT	288
#define NDIST	30

struct huff {
	short count[MAXBITS + 1];	/* codes of each length */
	short sym[NLIT];		/* symbols by code order */
};

struct st {
	const unsigned char *in;
	size_t n, pos;
	unsigned bits, nbits;
	unsigned char *out;
	size_t cap, len;
	int err;			/* sticky: -ENODATA / -EBOX_PROTO */
};

static unsigned
getbits(struct st *s, unsigned k)
{
	unsigned v;

	while (s->nbits < k) {
		if (s->pos == s->n) {
			if (s->err == 0)
				s->err = -ENODATA;
			return 0;
		}
		s->bits |= (unsigned)s->in[s->pos++] << s->nbits;
		s->nbits += 8;
	}
	v = s->bits & ((1u << k) - 1);
	s->bits >>= k;
	s->nbits -= k;
	return v;
}

/* Build a canonical code; 0, or -1 when lengths over-subscribe it. */
static int
build(struct huff *h, const unsigned char *len, int n)
{
	short offs[MAXBITS + 1];
	int i, left = 1;

	memset(h->count, 0, sizeof(h->count));
	for (i = 0; i < n; i++)
		h->count[len[i]]++;
	if (h->count[0] == n)
		return 0;	/* no codes: fine until one is used */
	for (i = 1; i <= MAXBITS; i++) {
		left <<= 1;
		left -= h->count[i];
		if (left < 0)
			return -1;
	}
	offs[1] = 0;
	for (i = 1; i < MAXBITS; i++)
		offs[i + 1] = (short)(offs[i] + h->count[i]);
	for (i = 0; i < n; i++)
		if (len[i] != 0)
			h->sym[offs[len[i]]++] = (short)i;
	return 0;
}

/* One symbol, reading the code a bit at a time (codes are MSB first). */
static int
decode(struct st *s, const struct huff *h)
{
	int code = 0, first = 0, index = 0, len, count;

	for (len = 1; len <= MAXBITS; len++) {
		code |= (int)getbits(s, 1);
		if (s->err)
			return -1;
		count = h->count[len];
		if (code - first < count)
			return h->sym[index + (code - first)];
		index += count;
		first += count;
		first <<= 1;
		code <<= 1;
	}
	s->err = -EBOX_PROTO;	/* a code no length describes */
	return -1;
}

/* 1 once the output is full (the caller's prefix is complete). */
static int
put(struct st *s, unsigned char b)
{
	if (s->len < s->cap)
		s->out[s->len++] = b;
	return s->len == s->cap;
}

static int
stored(struct st *s)
{
	unsigned len, nlen;

	s->bits = 0;
	s->nbits = 0;		/* to a byte boundary */
	if (s->n - s->pos < 4)
		return s->err = -ENODATA;
	len = s->in[s->pos] | (unsigned)s->in[s->pos + 1] << 8;
	nlen = s->in[s->pos + 2] | (unsigned)s->in[s->pos + 3] << 8;
	s->pos += 4;
	if (len != (~nlen & 0xffff))
		return s->err = -EBOX_PROTO;
	while (len-- > 0) {
		if (s->pos == s->n)
			return s->err = -ENODATA;
		if (put(s, s->in[s->pos++]))
			return 1;
	}
	return 0;
}

static const short lbase[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17,
    19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
    258 };
static const short lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2,
    2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const short dbase[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49,
    65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
    6145, 8193, 12289, 16385, 24577 };
static const short dext[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5,
    6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

/* Literals and back-references until end of block; 1 when out is full. */
static int
codes(struct st *s, const struct huff *lit, const struct huff *dist)
{
	int sym;
	unsigned len, d;

	for (;;) {
		sym = decode(s, lit);
		if (s->err)
			return s->err;
		if (sym < 256) {
			if (put(s, (unsigned char)sym))
				return 1;
			continue;
		}
		if (sym == 256)
			return 0;
		sym -= 257;
		if (sym >= 29)
			return s->err = -EBOX_PROTO;
		len = (unsigned)lbase[sym] + getbits(s, (unsigned)lext[sym]);
		sym = decode(s, dist);
		if (s->err)
			return s->err;
		if (sym >= 30)
			return s->err = -EBOX_PROTO;
		d = (unsigned)dbase[sym] + getbits(s, (unsigned)dext[sym]);
		if (s->err)
			return s->err;
		if (d > s->len)
			return s->err = -EBOX_PROTO;	/* before start */
		while (len-- > 0)
			if (put(s, s->out[s->len - d]))
				return 1;
	}
}

static int
fixed(struct st *s)
{
	unsigned char l[NLIT + NDIST];
	struct huff lit, dist;
	int i;

	for (i = 0; i < 144; i++)
		l[i] = 8;
	for (; i < 256; i++)
		l[i] = 9;
	for (; i < 280; i++)
		l[i] = 7;
	for (; i < NLIT; i++)
		l[i] = 8;
	for (i = 0; i < NDIST; i++)
		l[NLIT + i] = 5;
	build(&lit, l, NLIT);
	build(&dist, l + NLIT, NDIST);
	return codes(s, &lit, &dist);
}

static int
dynamic(struct st *s)
{
	static const unsigned char order[19] = { 16, 17, 18, 0, 8, 7, 9, 6,
	    10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
	unsigned char l[NLIT + NDIST];
	struct huff lencode, lit, dist;
	int nlen, ndist, ncode, i, sym, rep, prev;

	nlen = (int)getbits(s, 5) + 257;
	ndist = (int)getbits(s, 5) + 1;
	ncode = (int)getbits(s, 4) + 4;
	if (s->err)
		return s->err;
	if (nlen > 286 || ndist > 30)
		return s->err = -EBOX_PROTO;
	memset(l, 0, sizeof(l));
	for (i = 0; i < ncode; i++)
		l[order[i]] = (unsigned char)getbits(s, 3);
	if (s->err)
		return s->err;
	if (build(&lencode, l, 19) < 0)
		return s->err = -EBOX_PROTO;
	memset(l, 0, sizeof(l));
	for (i = 0; i < nlen + ndist;) {
		sym = decode(s, &lencode);
		if (s->err)
			return s->err;
		if (sym < 16) {
			l[i++] = (unsigned char)sym;
			continue;
		}
		prev = 0;
		if (sym == 16) {
			if (i == 0)
				return s->err = -EBOX_PROTO;
			prev = l[i - 1];
			rep = 3 + (int)getbits(s, 2);
		} else if (sym == 17) {
			rep = 3 + (int)getbits(s, 3);
		} else {
			rep = 11 + (int)getbits(s, 7);
		}
		if (s->err)
			return s->err;
		if (i + rep > nlen + ndist)
			return s->err = -EBOX_PROTO;
		while (rep-- > 0)
			l[i++] = (unsigned char)prev;
	}
	if (l[256] == 0)
		return s->err = -EBOX_PROTO;	/* no end-of-block code */
	/* copy the distance lengths down so each table starts at 0 */
	if (build(&lit, l, nlen) < 0)
		return s->err = -EBOX_PROTO;
	memmove(l, l + nlen, (size_t)ndist);
	if (build(&dist, l, ndist) < 0)
		return s->err = -EBOX_PROTO;
	return codes(s, &lit, &dist);
}

long
inflate_prefix(const unsigned char *in, size_t n, unsigned char *out,
    size_t cap)
{
	struct st s;
	unsigned last, type;
	int rc;

	memset(&s, 0, sizeof(s));
	s.in = in;
	s.n = n;
	s.out = out;
	s.cap = cap;
	if (cap == 0)
		return 0;
	do {
		last = getbits(&s, 1);
		type = getbits(&s, 2);
		if (s.err)
			return s.err == -ENODATA && s.len > 0 ? (long)s.len :
			    s.err;
		if (type == 0)
			rc = stored(&s);
		else if (type == 1)
			rc = fixed(&s);
		else if (type == 2)
			rc = dynamic(&s);
		else
			return -EBOX_PROTO;
		if (rc == 1)
			return (long)s.len;
		if (rc == -ENODATA && s.len > 0)
			return (long)s.len;	/* a prefix is all we want */
		if (rc < 0)
			return rc;
	} while (!last);
	return (long)s.len;
}

long
gunzip_prefix(const unsigned char *in, size_t n, unsigned char *out,
    size_t cap)
{
	size_t pos = 10;
	unsigned flg;

	if (n < 10)
		return -ENODATA;
	if (in[0] != 0x1f || in[1] != 0x8b || in[2] != 8)
		return -EBOX_PROTO;
	flg = in[3];
	if (flg & 0xe0)
		return -EBOX_PROTO;
	if (flg & 4) {			/* FEXTRA */
		size_t xlen;

		if (n - pos < 2)
			return -ENODATA;
		xlen = in[pos] | (size_t)in[pos + 1] << 8;
		pos += 2;
		if (n - pos < xlen)
			return -ENODATA;
		pos += xlen;
	}
	if (flg & 8) {			/* FNAME */
		const unsigned char *z = memchr(in + pos, 0, n - pos);

		if (z == NULL)
			return -ENODATA;
		pos = (size_t)(z - in) + 1;
	}
	if (flg & 16) {			/* FCOMMENT */
		const unsigned char *z = memchr(in + pos, 0, n - pos);

		if (z == NULL)
			return -ENODATA;
		pos = (size_t)(z - in) + 1;
	}
	if (flg & 2) {			/* FHCRC */
		if (n - pos < 2)
			return -ENODATA;
		pos += 2;
	}
	return inflate_prefix(in + pos, n - pos, out, cap);
}
