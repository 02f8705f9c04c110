/*
 * answer.c - TTLs normalised, rebinding refused (see answer.h).
 */
#include "host/resolver/answer.h"

#include <errno.h>

#include "net/dns.h"

static const struct {
	uint32_t net, mask;
	const char *what;
} fenced[] = {
	{ 0x00000000u, 0xff000000u, "this network (0/8)" },
	{ 0x0a000000u, 0xff000000u, "private (10/8)" },
	{ 0x64400000u, 0xffc00000u, "CGNAT (100.64/10)" },
	{ 0x7f000000u, 0xff000000u, "loopback (127/8)" },
	{ 0xa9fe0000u, 0xffff0000u, "link-local (169.254/16)" },
	{ 0xac100000u, 0xfff00000u, "private (172.16/12)" },
	{ 0xc0000000u, 0xffffff00u, "IETF protocol (192.0.0/24)" },
	{ 0xc0a80000u, 0xffff0000u, "private (192.168/16)" },
	{ 0xc6120000u, 0xfffe0000u, "benchmarking (198.18/15)" },
	{ 0xe0000000u, 0xf0000000u, "multicast (224/4)" },
	{ 0xf0000000u, 0xf0000000u, "reserved (240/4)" },
};

int
rsv_fenced(const struct rsv_fence *f, uint32_t a, const char **what)
{
	const char *w = NULL;
	size_t i;

	for (i = 0; i < sizeof(fenced) / sizeof(fenced[0]) && w == NULL; i++)
		if ((a & fenced[i].mask) == fenced[i].net)
			w = fenced[i].what;
	if (w == NULL && f != NULL && (a & 0xffffff00u) == f->net)
		w = "the boxes' network";
	for (i = 0; w == NULL && f != NULL && i < f->nhost &&
	    i < RSV_MAXHOST; i++)
		if (a == f->host[i])
			w = "the host's own address";
	if (what != NULL)
		*what = w;
	return w != NULL;
}

static uint32_t
rd32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* Walk the records; fix 0: judge only, 1: set the TTLs. */
static int
walk(unsigned char *m, size_t n, const struct rsv_fence *f, uint32_t ttl,
    int fix, uint32_t *bad, const char **what)
{
	struct dns_hdr h;
	struct dns_rr rr;
	size_t off = DNS_HDRLEN;
	unsigned i, total;
	int rc;

	if ((rc = dns_hdr_read(m, n, &h)) < 0)
		return rc;
	for (i = 0; i < h.qd; i++) {
		char t[DNS_NAME_TEXT];

		if (dns_name_read(m, n, &off, t, sizeof(t), NULL, NULL,
		    NULL) < 0 || off + 4 > n)
			return -EBADMSG;
		off += 4;
	}
	total = (unsigned)h.an + h.ns + h.ar;
	for (i = 0; i < total; i++) {
		if (dns_rr_read(m, n, &off, &rr) < 0)
			return -EBADMSG;
		if (rr.type == DNS_T_OPT)
			continue;	/* its "TTL" is EDNS flags */
		if (!fix && f != NULL && rr.type == DNS_T_A && rr.cls == DNS_C_IN &&
		    rr.rdlen == 4 && rsv_fenced(f, rd32(m + rr.rdoff), what)) {
			*bad = rd32(m + rr.rdoff);
			return 1;
		}
		if (fix) {
			m[rr.rdoff - 6] = (unsigned char)(ttl >> 24);
			m[rr.rdoff - 5] = (unsigned char)(ttl >> 16);
			m[rr.rdoff - 4] = (unsigned char)(ttl >> 8);
			m[rr.rdoff - 3] = (unsigned char)ttl;
		}
	}
	return 0;
}

int
rsv_answer_fix(unsigned char *m, size_t n, const struct rsv_fence *f,
    uint32_t ttl, uint32_t *bad, const char **what)
{
	int rc;

	*bad = 0;
	if (what != NULL)
		*what = NULL;
	if ((rc = walk(m, n, f, ttl, 0, bad, what)) != 0)
		return rc;
	return walk(m, n, f, ttl, 1, bad, what);
}
