/*
 * dnsq.c - a DNS client of one question (see dnsq.h).
 */
#include "net/dnsq.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/dns.h"
#include "util/err.h"
#include "util/text.h"

int
dnsq_plain_label(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 63 || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

int
dnsq_build(const char *name, uint16_t id, unsigned char *buf, size_t cap)
{
	size_t o = DNS_HDRLEN, n = strlen(name), i = 0, k;

	if (n == 0 || n > 253 || cap < DNS_HDRLEN + n + 2 + 4)
		return -EINVAL;
	memset(buf, 0, DNS_HDRLEN);
	buf[0] = (unsigned char)(id >> 8);
	buf[1] = (unsigned char)id;
	buf[2] = DNS_F_RD >> 8;		/* recursion desired */
	buf[5] = 1;			/* one question */
	while (i < n) {
		char lab[64];

		k = strcspn(name + i, ".");
		if (k == 0 || k > 63)
			return -EINVAL;
		memcpy(lab, name + i, k);
		lab[k] = '\0';
		if (!dnsq_plain_label(lab))
			return -EINVAL;
		buf[o++] = (unsigned char)k;
		memcpy(buf + o, lab, k);
		o += k;
		i += k + (name[i + k] == '.');
	}
	buf[o++] = 0;
	memcpy(buf + o, "\0\1\0\1", 4);	/* type A, class IN */
	return (int)(o + 4);
}

/*
 * The header, then each question skipped, then the answer records until
 * the first A record: which name owns it is not asked (a CNAME chain
 * ends in it).  Every name goes through dns_name_read (bounded,
 * compression pointers strictly backward).
 */
int
dnsq_reply(const unsigned char *b, size_t n, uint16_t id, uint32_t *a,
    int *rcode)
{
	struct dns_hdr h;
	struct dns_rr rr;
	size_t o = DNS_HDRLEN;
	unsigned i;

	*rcode = -1;
	if (dns_hdr_read(b, n, &h) < 0 || h.id != id || !(h.flags & DNS_F_QR))
		return -EBOX_PROTO;
	*rcode = (int)DNS_RCODE(h.flags);
	for (i = 0; i < h.qd; i++)
		if (dns_name_read(b, n, &o, rr.name, sizeof(rr.name), NULL,
		    NULL, NULL) < 0 || (o += 4) > n)
			return -EBOX_PROTO;
	for (i = 0; i < h.an; i++) {
		if (dns_rr_read(b, n, &o, &rr) < 0)
			return -EBOX_PROTO;
		if (rr.type == DNS_T_A && rr.rdlen == 4) {
			const unsigned char *p = b + rr.rdoff;

			*a = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			    (uint32_t)p[2] << 8 | p[3];
			return 1;
		}
	}
	return 0;
}

struct resolv_ctx {
	char (*ns)[48];
	int max, n;
};

static void
resolv_cb(const char *l, void *arg)
{
	struct resolv_ctx *c = arg;
	char w[16];

	if (sscanf(l, "%15s", w) != 1 || strcmp(w, "nameserver") != 0 ||
	    c->n >= c->max)
		return;
	l += strlen("nameserver");
	l += strspn(l, " \t");
	if (*l == '\0')
		return;
	snprintf(c->ns[c->n], 48, "%.*s", (int)strcspn(l, " \t"), l);
	c->n++;
}

int
dnsq_resolv_parse(const char *text, size_t n, char ns[][48], int max)
{
	struct resolv_ctx c = { ns, max, 0 };

	text_each_line(text, n, resolv_cb, &c);
	return c.n;
}

/*
 * The name the way a program here would look it up over DNS: the first
 * IPv4 nameserver /etc/resolv.conf names, asked with our own query.
 */
int
dnsq_resolve(const char *name, int timeout_ms, uint32_t *a, char *why,
    size_t cap)
{
	char text[4096], ns[4][48];
	struct in_addr in;
	ssize_t n = -1;
	int fd, i, k;

	if ((fd = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(why, cap, "/etc/resolv.conf names no nameserver");
		return -1;
	}
	k = dnsq_resolv_parse(text, (size_t)n, ns, 4);
	for (i = 0; i < k; i++)
		if (inet_pton(AF_INET, ns[i], &in) == 1)
			return dnsq_ask(ntohl(in.s_addr), name, timeout_ms,
			    a, why, cap);
	snprintf(why, cap, "/etc/resolv.conf names no IPv4 nameserver");
	return -1;
}

int
dnsq_ask(uint32_t server, const char *name, int timeout_ms, uint32_t *a,
    char *why, size_t cap)
{
	return dnsq_ask_id(server, name, (uint16_t)(getpid() ^ 0x6472),
	    timeout_ms, a, why, cap);
}

int
dnsq_ask_id(uint32_t server, const char *name, uint16_t id, int timeout_ms,
    uint32_t *a, char *why, size_t cap)
{
	unsigned char q[300], rep[1500];
	struct sockaddr_in sa;
	struct pollfd p;
	ssize_t k;
	int fd, n, rc, rcode;

	n = dnsq_build(name, id, q, sizeof(q));
	if (n < 0) {
		snprintf(why, cap, "not a plain name");
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, cap, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(DNS_PORT);
	sa.sin_addr.s_addr = htonl(server);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    send(fd, q, (size_t)n, 0) != n) {
		snprintf(why, cap, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	p.fd = fd;
	p.events = POLLIN;
	k = poll(&p, 1, timeout_ms) == 1 ? recv(fd, rep, sizeof(rep), 0) : -1;
	close(fd);
	if (k < 0) {
		snprintf(why, cap, "no answer in %d ms", timeout_ms);
		return -1;
	}
	rc = dnsq_reply(rep, (size_t)k, id, a, &rcode);
	if (rc < 0)
		snprintf(why, cap, "a malformed answer");
	else if (rc == 0)
		snprintf(why, cap, "%s", rcode == DNS_R_NXDOMAIN ? "NXDOMAIN" :
		    rcode == DNS_R_REFUSED ? "REFUSED" :
		    rcode == DNS_R_SERVFAIL ? "SERVFAIL" :
		    rcode == DNS_R_NOERROR ? "no address" : "an error answer");
	else
		snprintf(why, cap, "an address");
	return rc < 0 ? -1 : rc;
}
