/*
 * gzstream.c - streaming gzip decoder (see gzstream.h).
 *
 * Written from RFC 1951/1952: blocks of three kinds (stored, fixed
 * Huffman, dynamic Huffman), literals/lengths and distances coded with
 * canonical Huffman codes described by their code lengths.  The input and
 * the output are windows over a stream, not whole buffers, and a code of
 * up to FASTBITS bits is looked up in one step.  This is box's only
 * DEFLATE decoder: gz_prefix is a stream read up to a bound.
 */
#include "util/gzstream.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

#define MAXBITS		15
#define NLIT		288
#define NDIST		30
#define FASTBITS	9
#define WIN		32768u		/* the farthest a copy reaches */
#define OUTCAP		(2 * WIN)
#define INCAP		65536u

struct huff {
	short count[MAXBITS + 1];
	short sym[NLIT];
	/* (symbol << 4) | length for codes of <= FASTBITS bits, else 0 */
	uint16_t fast[1u << FASTBITS];
};

struct gz {
	gz_source src;
	void *sctx;
	gz_sink sink;
	void *kctx;
	const unsigned char *mem;	/* gz_stream_mem: all the input */
	size_t memn;
	const unsigned char *in;	/* buf, or mem itself */
	size_t ipos, ilen;
	int eof;
	uint64_t bits;
	unsigned nbits;
	unsigned char out[OUTCAP];
	size_t wp, sent;		/* write position; bytes handed on */
	unsigned long long total;	/* bytes of this member so far */
	uint32_t crc;
	int err;			/* sticky */
	int stop;			/* the sink said done */
	int partial;			/* gz_prefix: a cut input still gives */
	struct huff lit, dist, lencode;
	unsigned char buf[];		/* gz_stream: INCAP bytes of input */
};

/* Slicing by four: four bytes a step (the CRC of a big export is read in
 * full, and a byte a step cost about as much as the inflate).  Mutable
 * because it is built once on first use: a const table would cost 4 KiB of
 * the binary; it is written before any reader and never after. */
static uint32_t crc_table[4][256];

static void
crc_init(void)
{
	uint32_t c, n, k;

	if (crc_table[0][1] != 0)
		return;
	for (n = 0; n < 256; n++) {
		c = n;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][n] = c;
	}
	for (n = 0; n < 256; n++)
		for (k = 1; k < 4; k++)
			crc_table[k][n] = crc_table[0][crc_table[k - 1][n] &
			    0xff] ^ (crc_table[k - 1][n] >> 8);
}

static uint32_t
crc_add(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	for (; n >= 4; n -= 4, p += 4) {
		crc ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		crc = crc_table[3][crc & 0xff] ^ crc_table[2][crc >> 8 & 0xff] ^
		    crc_table[1][crc >> 16 & 0xff] ^ crc_table[0][crc >> 24];
	}
	while (n-- > 0)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* More input; 0, or sets eof.  A failing source is sticky. */
static void
refill(struct gz *g)
{
	ssize_t r;

	g->ipos = g->ilen = 0;
	if (g->eof)
		return;
	if (g->src == NULL) {		/* the caller's buffer, at once */
		g->in = g->mem;
		g->ilen = g->memn;
		g->memn = 0;
		if (g->ilen == 0)
			g->eof = 1;
		return;
	}
	g->in = g->buf;
	r = g->src(g->sctx, g->buf, INCAP);
	if (r < 0) {
		g->eof = 1;
		if (g->err == 0)
			g->err = (int)r;
		return;
	}
	if (r == 0)
		g->eof = 1;
	g->ilen = (size_t)r;
}

/* One more input byte into the bit buffer; 0 when there is none. */
static int
pull(struct gz *g)
{
	if (g->ipos == g->ilen) {
		refill(g);
		if (g->ipos == g->ilen)
			return 0;
	}
	g->bits |= (uint64_t)g->in[g->ipos++] << g->nbits;
	g->nbits += 8;
	return 1;
}

static unsigned
getbits(struct gz *g, unsigned k)
{
	unsigned v;

	while (g->nbits < k)
		if (!pull(g)) {
			if (g->err == 0)
				g->err = -ENODATA;
			return 0;
		}
	v = (unsigned)(g->bits & ((1u << k) - 1));
	g->bits >>= k;
	g->nbits -= k;
	return v;
}

static unsigned
rev(unsigned code, unsigned len)
{
	unsigned r = 0;

	while (len-- > 0) {
		r = (r << 1) | (code & 1);
		code >>= 1;
	}
	return r;
}

static int
build(struct huff *h, const unsigned char *len, int n)
{
	short offs[MAXBITS + 1];
	unsigned code = 0, next[MAXBITS + 2];
	int i, left = 1;

	memset(h->count, 0, sizeof(h->count));
	memset(h->fast, 0, sizeof(h->fast));
	for (i = 0; i < n; i++)
		h->count[len[i]]++;
	if (h->count[0] == n)
		return 0;
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
	/* canonical codes, then the table by reversed (LSB-first) code */
	h->count[0] = 0;
	next[1] = 0;
	for (i = 1; i <= MAXBITS; i++) {
		code = (code + (unsigned)h->count[i - 1]) << 1;
		next[i] = code;
	}
	for (i = 0; i < n; i++) {
		unsigned l = len[i], c, r, k;

		if (l == 0)
			continue;
		c = next[l]++;
		if (l > FASTBITS)
			continue;
		r = rev(c, l);
		for (k = r; k < (1u << FASTBITS); k += 1u << l)
			h->fast[k] = (uint16_t)((unsigned)i << 4 | l);
	}
	return 0;
}

static int
decode(struct gz *g, const struct huff *h)
{
	int code = 0, first = 0, index = 0, len, count;
	unsigned e;

	while (g->nbits < FASTBITS && pull(g))
		;
	e = h->fast[g->bits & ((1u << FASTBITS) - 1)];
	if (e != 0 && (e & 15) <= g->nbits) {
		g->bits >>= e & 15;
		g->nbits -= e & 15;
		return (int)(e >> 4);
	}
	for (len = 1; len <= MAXBITS; len++) {
		code |= (int)getbits(g, 1);
		if (g->err)
			return -1;
		count = h->count[len];
		if (code - first < count)
			return h->sym[index + (code - first)];
		index += count;
		first += count;
		first <<= 1;
		code <<= 1;
	}
	g->err = -EBOX_PROTO;
	return -1;
}

/* Hand on what the sink has not had; keep the last WIN bytes. */
static int
flush(struct gz *g)
{
	int rc;

	if (g->wp > g->sent && !g->stop) {
		g->crc = crc_add(g->crc, g->out + g->sent, g->wp - g->sent);
		rc = g->sink(g->kctx, g->out + g->sent, g->wp - g->sent);
		if (rc < 0)
			return g->err = rc;
		if (rc > 0)
			g->stop = 1;
	} else if (g->wp > g->sent) {
		g->crc = crc_add(g->crc, g->out + g->sent, g->wp - g->sent);
	}
	g->sent = g->wp;
	if (g->wp == OUTCAP) {
		memmove(g->out, g->out + WIN, WIN);
		g->wp = g->sent = WIN;
	}
	return 0;
}

/* Nonzero when decoding ends here: the sink failed, or said done. */
static int
put(struct gz *g, unsigned char b)
{
	g->out[g->wp++] = b;
	g->total++;
	if (g->wp == OUTCAP && flush(g) < 0)
		return -1;
	return g->stop;
}

static int
stored(struct gz *g)
{
	unsigned len, nlen;

	getbits(g, g->nbits & 7);	/* to a byte boundary */
	len = getbits(g, 16);
	nlen = getbits(g, 16);
	if (g->err)
		return g->err;
	if (len != (~nlen & 0xffff))
		return g->err = -EBOX_PROTO;
	/* What the bit buffer already holds (whole bytes now), then straight
	 * from the input: an export of incompressible data is all stored
	 * blocks, and a byte at a time through getbits was most of its cost. */
	while (len > 0 && g->nbits >= 8) {
		len--;
		if (put(g, (unsigned char)getbits(g, 8)) != 0)
			return g->err;
	}
	while (len > 0) {
		size_t k;

		if (g->ipos == g->ilen) {
			refill(g);
			if (g->ipos == g->ilen)
				return g->err = g->err ? g->err : -ENODATA;
		}
		k = g->ilen - g->ipos;
		if (k > len)
			k = len;
		if (k > OUTCAP - g->wp)
			k = OUTCAP - g->wp;
		memcpy(g->out + g->wp, g->in + g->ipos, k);
		g->ipos += k;
		g->wp += k;
		g->total += k;
		len -= (unsigned)k;
		if (g->wp == OUTCAP && flush(g) < 0)
			return g->err;
		if (g->stop)
			return 0;	/* the sink said done */
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

static int
codes(struct gz *g)
{
	int sym;
	unsigned len, d;

	for (;;) {
		sym = decode(g, &g->lit);
		if (g->err)
			return g->err;
		if (sym < 256) {
			if (put(g, (unsigned char)sym) != 0)
				return g->err;
			continue;
		}
		if (sym == 256)
			return 0;
		sym -= 257;
		if (sym >= 29)
			return g->err = -EBOX_PROTO;
		len = (unsigned)lbase[sym] + getbits(g, (unsigned)lext[sym]);
		sym = decode(g, &g->dist);
		if (g->err)
			return g->err;
		if (sym >= 30)
			return g->err = -EBOX_PROTO;
		d = (unsigned)dbase[sym] + getbits(g, (unsigned)dext[sym]);
		if (g->err)
			return g->err;
		if (d > g->total || d > WIN)
			return g->err = -EBOX_PROTO;
		while (len-- > 0)
			if (put(g, g->out[g->wp - d]) != 0)
				return g->err;
	}
}

static int
fixed(struct gz *g)
{
	unsigned char l[NLIT + NDIST];
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
	build(&g->lit, l, NLIT);
	build(&g->dist, l + NLIT, NDIST);
	return codes(g);
}

static int
dynamic(struct gz *g)
{
	static const unsigned char order[19] = { 16, 17, 18, 0, 8, 7, 9, 6,
	    10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
	unsigned char l[NLIT + NDIST];
	int nlen, ndist, ncode, i, sym, rep, prev;

	nlen = (int)getbits(g, 5) + 257;
	ndist = (int)getbits(g, 5) + 1;
	ncode = (int)getbits(g, 4) + 4;
	if (g->err)
		return g->err;
	if (nlen > 286 || ndist > 30)
		return g->err = -EBOX_PROTO;
	memset(l, 0, sizeof(l));
	for (i = 0; i < ncode; i++)
		l[order[i]] = (unsigned char)getbits(g, 3);
	if (g->err)
		return g->err;
	if (build(&g->lencode, l, 19) < 0)
		return g->err = -EBOX_PROTO;
	memset(l, 0, sizeof(l));
	for (i = 0; i < nlen + ndist;) {
		sym = decode(g, &g->lencode);
		if (g->err)
			return g->err;
		if (sym < 16) {
			l[i++] = (unsigned char)sym;
			continue;
		}
		prev = 0;
		if (sym == 16) {
			if (i == 0)
				return g->err = -EBOX_PROTO;
			prev = l[i - 1];
			rep = 3 + (int)getbits(g, 2);
		} else if (sym == 17) {
			rep = 3 + (int)getbits(g, 3);
		} else {
			rep = 11 + (int)getbits(g, 7);
		}
		if (g->err)
			return g->err;
		if (i + rep > nlen + ndist)
			return g->err = -EBOX_PROTO;
		while (rep-- > 0)
			l[i++] = (unsigned char)prev;
	}
	if (l[256] == 0)
		return g->err = -EBOX_PROTO;
	if (build(&g->lit, l, nlen) < 0)
		return g->err = -EBOX_PROTO;
	memmove(l, l + nlen, (size_t)ndist);
	if (build(&g->dist, l, ndist) < 0)
		return g->err = -EBOX_PROTO;
	return codes(g);
}

/* Skip a NUL-terminated header field. */
static void
skip_z(struct gz *g)
{
	unsigned long n = 0;

	while (!g->err && getbits(g, 8) != 0)
		if (++n > (1ul << 20))
			g->err = -EBOX_PROTO;
}

static int
header(struct gz *g)
{
	unsigned flg, xlen;

	if (getbits(g, 8) != 0x1f || getbits(g, 8) != 0x8b ||
	    getbits(g, 8) != 8)
		return g->err ? g->err : (g->err = -EBOX_PROTO);
	flg = getbits(g, 8);
	getbits(g, 16);
	getbits(g, 16);			/* MTIME */
	getbits(g, 16);			/* XFL, OS */
	if (flg & 0xe0)
		return g->err = -EBOX_PROTO;
	if (flg & 4) {
		xlen = getbits(g, 16);
		while (!g->err && xlen-- > 0)
			getbits(g, 8);
	}
	if (flg & 8)
		skip_z(g);
	if (flg & 16)
		skip_z(g);
	if (flg & 2)
		getbits(g, 16);
	return g->err;
}

static int
member(struct gz *g)
{
	unsigned last, type, crc, isize;
	int rc;

	if (header(g) < 0)
		return g->err;
	g->crc = 0;
	g->total = 0;
	do {
		last = getbits(g, 1);
		type = getbits(g, 2);
		if (g->err)
			return g->err;
		if (type == 0)
			rc = stored(g);
		else if (type == 1)
			rc = fixed(g);
		else if (type == 2)
			rc = dynamic(g);
		else
			return g->err = -EBOX_PROTO;
		if (rc == -ENODATA && g->partial)
			(void)flush(g);	/* what came out before the cut */
		if (rc < 0)
			return rc;
		if (g->stop)
			return 1;
	} while (!last);
	if (flush(g) < 0)
		return g->err;
	if (g->stop)
		return 1;
	getbits(g, g->nbits & 7);
	crc = getbits(g, 16);
	crc |= getbits(g, 16) << 16;
	isize = getbits(g, 16);
	isize |= getbits(g, 16) << 16;
	if (g->err)
		return g->err;
	if (crc != g->crc || isize != (uint32_t)g->total)
		return g->err = -EBOX_PROTO;
	return 0;
}

/* 1 when more input follows (another member must), 0 at a clean end. */
static int
more(struct gz *g)
{
	if (g->nbits >= 8)
		return 1;
	if (g->ipos < g->ilen)
		return 1;
	refill(g);
	return g->ipos < g->ilen;
}

static int
run(struct gz *g)
{
	int rc;

	crc_init();
	do {
		rc = member(g);
		if (rc != 0)
			return rc;
	} while (more(g));
	return g->err;
}

/* A decoder; an input buffer only for a source (memory is read in place). */
static struct gz *
gz_new(gz_sink sink, void *kctx, size_t inbuf)
{
	struct gz *g = calloc(1, sizeof(*g) + inbuf);

	if (g != NULL) {
		g->sink = sink;
		g->kctx = kctx;
	}
	return g;
}

static int
gz_run_free(struct gz *g)
{
	int rc = run(g);

	free(g);
	return rc;
}

int
gz_stream(gz_source src, void *sctx, gz_sink sink, void *kctx)
{
	struct gz *g = gz_new(sink, kctx, INCAP);

	if (g == NULL)
		return -ENOMEM;
	g->src = src;
	g->sctx = sctx;
	return gz_run_free(g);
}

int
gz_stream_mem(const unsigned char *in, size_t n, gz_sink sink, void *kctx)
{
	struct gz *g = gz_new(sink, kctx, 0);

	if (g == NULL)
		return -ENOMEM;
	g->mem = in;
	g->memn = n;
	return gz_run_free(g);
}

struct prefix {
	unsigned char *out;
	size_t cap, len;
};

/*
 * Stop only once a byte would not fit: output that exactly fills the
 * buffer still has its member's CRC-32 and length checked.
 */
static int
prefix_sink(void *ctx, const unsigned char *p, size_t n)
{
	struct prefix *x = ctx;
	size_t k = x->cap - x->len < n ? x->cap - x->len : n;

	memcpy(x->out + x->len, p, k);
	x->len += k;
	return k < n;
}

long
gz_prefix(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	struct prefix x = { out, cap, 0 };
	struct gz *g;
	int rc;

	if (cap == 0)
		return 0;
	if ((g = gz_new(prefix_sink, &x, 0)) == NULL)
		return -ENOMEM;
	g->mem = in;
	g->memn = n;
	g->partial = 1;
	rc = gz_run_free(g);
	if (rc >= 0 || (rc == -ENODATA && x.len > 0))
		return (long)x.len;
	return rc;
}
