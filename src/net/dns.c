/*
 * dns.c - the DNS wire format, strictly (see dns.h).
 */
#include "net/dns.h"

#include <errno.h>
#include <string.h>

static uint16_t
rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
rd32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static void
wr16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

int
dns_hdr_read(const unsigned char *m, size_t n, struct dns_hdr *h)
{
	if (m == NULL || n < DNS_HDRLEN)
		return -EBADMSG;
	h->id = rd16(m);
	h->flags = rd16(m + 2);
	h->qd = rd16(m + 4);
	h->an = rd16(m + 6);
	h->ns = rd16(m + 8);
	h->ar = rd16(m + 10);
	return 0;
}

static int
plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
	    c == '_';
}

int
dns_name_read(const unsigned char *m, size_t n, size_t *off, char *out,
    size_t cap, unsigned char *wire, size_t *wlen, int *labels)
{
	size_t p = *off, o = 0, w = 0, end = 0, limit = n;
	int jumps = 0, nl = 0, moved = 0;

	if (cap < 2)
		return -ENOSPC;
	for (;;) {
		unsigned len;

		if (p >= limit)
			return -EBADMSG;
		len = m[p];
		if ((len & 0xc0) == 0xc0) {
			size_t to;

			if (p + 1 >= limit || ++jumps > DNS_MAXJUMP)
				return -EBADMSG;
			to = (size_t)(len & 0x3f) << 8 | m[p + 1];
			if (!moved) {
				end = p + 2;
				moved = 1;
			}
			/* Strictly backward: each jump lands before the
			 * pointer that made it, and the next name part must
			 * end before it too, so no walk revisits a byte. */
			if (to >= p)
				return -EBADMSG;
			limit = p;
			p = to;
			continue;
		}
		if ((len & 0xc0) != 0)
			return -EBADMSG;	/* 0x40/0x80 label types */
		if (w + 1 + len > DNS_NAME_WIRE)
			return -EBADMSG;
		if (len == 0) {
			if (wire != NULL)
				wire[w] = 0;
			w++;
			p++;
			break;
		}
		if (p + 1 + len > limit)
			return -EBADMSG;
		if (wire != NULL)
			memcpy(wire + w, m + p, 1 + len);
		w += 1 + len;
		if (nl++ > 0) {
			if (o + 1 >= cap)
				return -ENOSPC;
			out[o++] = '.';
		}
		for (unsigned i = 1; i <= len; i++) {
			unsigned char c = m[p + i];

			if (c >= 'A' && c <= 'Z')
				c = (unsigned char)(c - 'A' + 'a');
			if (plain(c)) {
				if (o + 1 >= cap)
					return -ENOSPC;
				out[o++] = (char)c;
			} else {
				if (o + 4 >= cap)
					return -ENOSPC;
				out[o++] = '\\';
				out[o++] = (char)('0' + c / 100);
				out[o++] = (char)('0' + c / 10 % 10);
				out[o++] = (char)('0' + c % 10);
			}
		}
		p += 1 + len;
	}
	if (nl == 0)
		out[o++] = '.';
	out[o] = '\0';
	*off = moved ? end : p;
	if (wlen != NULL)
		*wlen = w;
	if (labels != NULL)
		*labels = nl;
	return 0;
}

int
dns_rr_read(const unsigned char *m, size_t n, size_t *off, struct dns_rr *rr)
{
	size_t p = *off;
	int rc;

	if ((rc = dns_name_read(m, n, &p, rr->name, sizeof(rr->name), NULL,
	    NULL, NULL)) < 0)
		return rc == -ENOSPC ? -EBADMSG : rc;
	if (p + 10 > n)
		return -EBADMSG;
	rr->type = rd16(m + p);
	rr->cls = rd16(m + p + 2);
	rr->ttl = rd32(m + p + 4);
	rr->rdlen = rd16(m + p + 8);
	p += 10;
	if (rr->rdlen > n - p)
		return -EBADMSG;
	rr->rdoff = p;
	*off = p + rr->rdlen;
	return 0;
}

static int
question_read(const unsigned char *m, size_t n, size_t *off,
    struct dns_question *q)
{
	int rc;

	if ((rc = dns_name_read(m, n, off, q->name, sizeof(q->name), q->wire,
	    &q->wlen, &q->labels)) < 0)
		return rc == -ENOSPC ? -EBADMSG : rc;
	if (*off + 4 > n)
		return -EBADMSG;
	q->type = rd16(m + *off);
	q->cls = rd16(m + *off + 2);
	*off += 4;
	return 0;
}

/* The OPT record rr (already read): its fields into the query. */
static int
opt_take(const struct dns_rr *rr, struct dns_query *q)
{
	if (strcmp(rr->name, ".") != 0 || q->edns)
		return -EBADMSG;
	q->edns = 1;
	q->udp = rr->cls < DNS_UDP_MIN ? DNS_UDP_MIN : rr->cls;
	q->version = (uint8_t)(rr->ttl >> 16);
	q->dnssec_ok = (rr->ttl & 0x8000u) != 0;
	return 0;
}

/* Options of an OPT rdata are well-formed TLVs. */
static int
opt_walk(const unsigned char *m, const struct dns_rr *rr)
{
	size_t p = rr->rdoff, end = rr->rdoff + rr->rdlen;

	while (p < end) {
		uint16_t len;

		if (end - p < 4)
			return -EBADMSG;
		len = rd16(m + p + 2);
		if (len > end - p - 4)
			return -EBADMSG;
		p += 4 + (size_t)len;
	}
	return 0;
}

int
dns_query_parse(const unsigned char *m, size_t n, struct dns_query *q)
{
	struct dns_rr rr;
	size_t off = DNS_HDRLEN;
	unsigned i;
	int rc;

	memset(q, 0, sizeof(*q));
	q->udp = DNS_UDP_MIN;
	if (dns_hdr_read(m, n, &q->h) < 0)
		return -EINVAL;
	if ((q->h.flags & DNS_F_QR) != 0)
		return -EINVAL;		/* an answer: never answered */
	if (q->h.qd != 1 || q->h.an != 0 || q->h.ns != 0 || q->h.ar > 8)
		return -EBADMSG;
	if ((rc = question_read(m, n, &off, &q->q)) < 0)
		return rc;
	for (i = 0; i < q->h.ar; i++) {
		if ((rc = dns_rr_read(m, n, &off, &rr)) < 0)
			return rc;
		if (rr.type == DNS_T_OPT) {
			if ((rc = opt_take(&rr, q)) < 0 ||
			    (rc = opt_walk(m, &rr)) < 0)
				return rc;
		}
	}
	if (off != n)
		return -EBADMSG;
	return 0;
}

/* Wire names equal, ASCII case folded. */
static int
wire_eq(const unsigned char *a, size_t an, const unsigned char *b, size_t bn)
{
	size_t i;

	if (an != bn)
		return 0;
	for (i = 0; i < an; i++) {
		unsigned char x = a[i], y = b[i];

		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (unsigned char)(y - 'A' + 'a');
		if (x != y)
			return 0;
	}
	return 1;
}

/* Is name one of the chain's? */
static int
in_chain(char chain[][DNS_NAME_TEXT], size_t nc, const char *name)
{
	size_t i;

	for (i = 0; i < nc; i++)
		if (strcmp(chain[i], name) == 0)
			return 1;
	return 0;
}

int
dns_answer_parse(const unsigned char *m, size_t n,
    const struct dns_question *q, uint16_t id, struct dns_answer *a)
{
	/* The chain's names: the question's, then each CNAME's target. */
	char chain[DNS_MAXCHAIN + 1][DNS_NAME_TEXT];
	struct dns_question got;
	struct dns_rr rr;
	size_t off = DNS_HDRLEN, nc = 1, p, anstart;
	unsigned i, total, pass;
	int rc;

	memset(a, 0, sizeof(*a));
	if (dns_hdr_read(m, n, &a->h) < 0)
		return -EBADMSG;
	if ((a->h.flags & DNS_F_QR) == 0 || a->h.id != id || a->h.qd != 1)
		return -EBADMSG;
	if (DNS_OPCODE(a->h.flags) != 0)
		return -EBADMSG;
	if ((rc = question_read(m, n, &off, &got)) < 0)
		return rc;
	if (!wire_eq(got.wire, got.wlen, q->wire, q->wlen) ||
	    got.type != q->type || got.cls != q->cls)
		return -EBADMSG;
	a->rcode = (int)DNS_RCODE(a->h.flags);
	memcpy(chain[0], got.name, sizeof(chain[0]));
	anstart = off;
	/* Two passes over the answer section: the first follows the
	 * CNAMEs (in any order a server wrote them, up to the chain's
	 * bound: a link whose owner comes later is taken on the second),
	 * the second takes the A records of the chain's names. */
	for (pass = 0; pass < 2; pass++) {
		off = anstart;
		for (i = 0; i < a->h.an; i++) {
			if ((rc = dns_rr_read(m, n, &off, &rr)) < 0)
				return rc;
			if (rr.cls != DNS_C_IN || !in_chain(chain, nc, rr.name))
				continue;
			if (rr.type == DNS_T_CNAME) {
				char t[DNS_NAME_TEXT];

				p = rr.rdoff;
				if ((rc = dns_name_read(m, rr.rdoff + rr.rdlen,
				    &p, t, sizeof(t), NULL, NULL, NULL)) < 0 ||
				    p != rr.rdoff + rr.rdlen)
					return -EBADMSG;
				if (!in_chain(chain, nc, t) &&
				    nc <= DNS_MAXCHAIN) {
					memcpy(chain[nc], t, sizeof(t));
					nc++;
				}
			} else if (rr.type == DNS_T_A && pass == 1) {
				if (rr.rdlen != 4)
					return -EBADMSG;
				if (a->naddr < DNS_MAXADDR) {
					a->a[a->naddr].addr = rd32(m + rr.rdoff);
					a->a[a->naddr].ttl = rr.ttl;
					a->naddr++;
				} else {
					a->dropped++;
				}
			}
		}
	}
	total = (unsigned)a->h.ns + a->h.ar;
	for (i = 0; i < total; i++) {
		if ((rc = dns_rr_read(m, n, &off, &rr)) < 0)
			return rc;
		if (rr.type == DNS_T_OPT && i >= a->h.ns) {
			if (strcmp(rr.name, ".") != 0 || a->edns ||
			    opt_walk(m, &rr) < 0)
				return -EBADMSG;
			a->edns = 1;
			a->rcode |= (int)((rr.ttl >> 24) << 4);
		}
	}
	return 0;
}

/* Append an OPT record: payload size, DO, then options opt[0..olen). */
static int
put_opt(unsigned char *out, size_t cap, size_t *o, int dnssec_ok,
    const unsigned char *opt, size_t olen)
{
	unsigned char *p;

	if (*o + 11 + olen > cap)
		return -ENOSPC;
	p = out + *o;
	p[0] = 0;			/* the root */
	wr16(p + 1, DNS_T_OPT);
	wr16(p + 3, DNS_UDP_OURS);
	p[5] = 0;			/* extended rcode */
	p[6] = 0;			/* version */
	wr16(p + 7, dnssec_ok ? 0x8000u : 0);
	wr16(p + 9, (unsigned)olen);
	if (olen)
		memcpy(p + 11, opt, olen);
	*o += 11 + olen;
	return 0;
}

static int
put_question(const struct dns_question *q, unsigned char *out, size_t cap,
    size_t *o)
{
	if (q->wlen == 0 || q->wlen > DNS_NAME_WIRE || *o + q->wlen + 4 > cap)
		return -ENOSPC;
	memcpy(out + *o, q->wire, q->wlen);
	*o += q->wlen;
	wr16(out + *o, q->type);
	wr16(out + *o + 2, q->cls);
	*o += 4;
	return 0;
}

int
dns_build_query(const struct dns_query *q, uint16_t id, unsigned char *out,
    size_t cap)
{
	size_t o = DNS_HDRLEN;
	int rc;

	if (cap < DNS_HDRLEN)
		return -ENOSPC;
	memset(out, 0, DNS_HDRLEN);
	wr16(out, id);
	wr16(out + 2, DNS_F_RD | (q->h.flags & DNS_F_CD));
	wr16(out + 4, 1);
	wr16(out + 10, 1);
	if ((rc = put_question(&q->q, out, cap, &o)) < 0 ||
	    (rc = put_opt(out, cap, &o, q->dnssec_ok, NULL, 0)) < 0)
		return rc;
	return (int)o;
}

int
dns_build_reply(const struct dns_query *q, int with_q, unsigned flags,
    int rcode, int ede, const char *text, unsigned char *out, size_t cap)
{
	unsigned char opt[4 + 2 + DNS_EDE_TEXTMAX];
	size_t o = DNS_HDRLEN, tl = text != NULL ? strlen(text) : 0, olen = 0;
	unsigned f;
	int rc;

	if (tl > DNS_EDE_TEXTMAX || rcode < 0 || rcode > 15)
		return -EINVAL;
	if (cap < DNS_HDRLEN)
		return -ENOSPC;
	memset(out, 0, DNS_HDRLEN);
	f = DNS_F_QR | DNS_F_RA | (q->h.flags & (0x7800u | DNS_F_RD)) |
	    (flags & (DNS_F_TC | DNS_F_AA)) | (unsigned)rcode;
	wr16(out, q->h.id);
	wr16(out + 2, f);
	if (with_q) {
		wr16(out + 4, 1);
		if ((rc = put_question(&q->q, out, cap, &o)) < 0)
			return rc;
	}
	if (q->edns) {
		if (ede >= 0) {
			wr16(opt, DNS_OPT_EDE);
			wr16(opt + 2, (unsigned)(2 + tl));
			wr16(opt + 4, (unsigned)ede);
			if (tl)
				memcpy(opt + 6, text, tl);
			olen = 6 + tl;
		}
		wr16(out + 10, 1);
		if ((rc = put_opt(out, cap, &o, q->dnssec_ok, opt, olen)) < 0)
			return rc;
	}
	return (int)o;
}

int
dns_ede_read(const unsigned char *m, size_t n, int *code, char *text,
    size_t cap)
{
	struct dns_hdr h;
	struct dns_rr rr;
	size_t off = DNS_HDRLEN, p, end;
	unsigned i, skip;
	int rc;

	if (cap == 0 || dns_hdr_read(m, n, &h) < 0)
		return -EBADMSG;
	text[0] = '\0';
	for (i = 0; i < h.qd; i++) {
		struct dns_question q;

		if ((rc = question_read(m, n, &off, &q)) < 0)
			return rc;
	}
	skip = (unsigned)h.an + h.ns;
	for (i = 0; i < skip + h.ar; i++) {
		if ((rc = dns_rr_read(m, n, &off, &rr)) < 0)
			return rc;
		if (i < skip || rr.type != DNS_T_OPT)
			continue;
		if (opt_walk(m, &rr) < 0)
			return -EBADMSG;
		p = rr.rdoff;
		end = rr.rdoff + rr.rdlen;
		while (p < end) {
			uint16_t oc = rd16(m + p), ol = rd16(m + p + 2);
			size_t k, t = 0;

			if (oc == DNS_OPT_EDE && ol >= 2) {
				*code = rd16(m + p + 4);
				for (k = 0; k < (size_t)ol - 2 && t + 1 < cap;
				    k++) {
					unsigned char c = m[p + 6 + k];

					text[t++] = (c >= 0x20 && c < 0x7f) ?
					    (char)c : '?';
				}
				text[t] = '\0';
				return 1;
			}
			p += 4 + (size_t)ol;
		}
	}
	return 0;
}
