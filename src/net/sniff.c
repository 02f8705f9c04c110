/* sniff.c - a listener on a bridge device (see sniff.h). */
#include "net/sniff.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RCVBUF	(8 << 20)	/* a probe run's worth of a busy bridge */

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

int
sniff_open(struct sniff *s, const char *ifname, struct box_err *e)
{
	struct sockaddr_ll sa;
	unsigned idx = if_nametoindex(ifname);
	int sz = RCVBUF;

	s->fd = -1;
	if (idx == 0)
		return err_set(e, -ENODEV, "no interface %s to listen on",
		    ifname);
	s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    htons(ETH_P_ALL));
	if (s->fd < 0)
		return err_set(e, -errno, "listening on %s (AF_PACKET): %s",
		    ifname, strerror(errno));
	/* FORCE: past rmem_max (root); the plain one is the fallback */
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	memset(&sa, 0, sizeof(sa));
	sa.sll_family = AF_PACKET;
	sa.sll_protocol = htons(ETH_P_ALL);
	sa.sll_ifindex = (int)idx;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int rc = -errno;

		close(s->fd);
		s->fd = -1;
		return err_set(e, rc, "listening on %s: %s", ifname,
		    strerror(-rc));
	}
	return 0;
}

int
sniff_next_any(struct sniff *s, uint8_t *buf, size_t cap, size_t *len,
    int *out)
{
	struct sockaddr_ll from;
	socklen_t fl;
	ssize_t n;

	for (;;) {
		fl = sizeof(from);
		n = recvfrom(s->fd, buf, cap, MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fl);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		*out = from.sll_pkttype == PACKET_OUTGOING;
		*len = (size_t)n;
		return 1;
	}
}

int
sniff_next(struct sniff *s, uint8_t *buf, size_t cap, size_t *len)
{
	struct sockaddr_ll from;
	socklen_t fl;
	ssize_t n;

	for (;;) {
		fl = sizeof(from);
		n = recvfrom(s->fd, buf, cap, MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fl);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;	/* the host's own frames */
		*len = (size_t)n;
		return 1;
	}
}

void
sniff_close(struct sniff *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static int
parse_arp(const uint8_t *p, size_t n, struct sniff_frame *o)
{
	if (n < 28)
		return -EBOX_PROTO;
	/* Ethernet hardware, IPv4 protocol, 6- and 4-byte addresses */
	if (be16(p) != 1 || be16(p + 2) != ETH_P_IP || p[4] != 6 || p[5] != 4)
		return 0;
	o->kind = SNIFF_ARP;
	o->op = be16(p + 6);
	memcpy(o->sha, p + 8, 6);
	o->spa = be32(p + 14);
	o->tpa = be32(p + 24);
	return 1;
}

static int
parse_ip4(const uint8_t *p, size_t n, struct sniff_frame *o)
{
	size_t ihl, tot, ulen;
	const uint8_t *l4;

	if (n < 20 || p[0] >> 4 != 4)
		return -EBOX_PROTO;
	ihl = (size_t)(p[0] & 0x0f) * 4;
	tot = be16(p + 2);
	if (ihl < 20 || tot < ihl || tot > n)
		return -EBOX_PROTO;
	if ((be16(p + 6) & 0x1fff) != 0)
		return 0;	/* a later fragment */
	o->saddr = be32(p + 12);
	o->daddr = be32(p + 16);
	l4 = p + ihl;
	switch (p[9]) {
	case IPPROTO_UDP:
		if (tot - ihl < 8)
			return -EBOX_PROTO;
		ulen = be16(l4 + 4);
		if (ulen < 8 || ulen > tot - ihl)
			return -EBOX_PROTO;
		o->kind = SNIFF_UDP4;
		o->sport = be16(l4);
		o->dport = be16(l4 + 2);
		o->payload = l4 + 8;
		o->plen = ulen - 8;
		return 1;
	case IPPROTO_TCP:
		if (tot - ihl < 20)
			return -EBOX_PROTO;
		o->kind = SNIFF_TCP4;
		o->sport = be16(l4);
		o->dport = be16(l4 + 2);
		o->tcpflags = l4[13];
		return 1;
	case IPPROTO_ICMP:
		if (tot - ihl < 8)
			return -EBOX_PROTO;
		o->kind = SNIFF_ICMP4;
		o->icmptype = l4[0];
		o->icmpid = be16(l4 + 4);
		return 1;
	}
	return 0;
}

/* ICMPv6 right after the fixed header (no extension headers). */
static int
parse_ip6(const uint8_t *p, size_t n, struct sniff_frame *o)
{
	size_t plen;

	if (n < 40 || p[0] >> 4 != 6)
		return -EBOX_PROTO;
	plen = be16(p + 4);
	if (plen > n - 40)
		return -EBOX_PROTO;
	if (p[6] != 58)
		return 0;
	if (plen < 8)
		return -EBOX_PROTO;
	o->kind = SNIFF_ICMP6;
	o->icmptype = p[40];
	o->icmpid = be16(p + 44);
	return 1;
}

int
sniff_parse(const uint8_t *f, size_t n, struct sniff_frame *o)
{
	uint16_t type;
	size_t off = 14;

	memset(o, 0, sizeof(*o));
	if (n < 14)
		return -EBOX_PROTO;
	memcpy(o->src, f + 6, 6);
	type = be16(f + 12);
	if (type == ETH_P_8021Q) {	/* one VLAN tag, looked through */
		if (n < 18)
			return -EBOX_PROTO;
		type = be16(f + 16);
		off = 18;
	}
	if (type == ETH_P_ARP)
		return parse_arp(f + off, n - off, o);
	if (type == ETH_P_IP)
		return parse_ip4(f + off, n - off, o);
	if (type == ETH_P_IPV6)
		return parse_ip6(f + off, n - off, o);
	return 0;
}

int
sniff_has_token(const uint8_t *p, size_t n, const char *tok)
{
	size_t t = strlen(tok), i;

	if (t == 0 || t > n)
		return 0;
	for (i = 0; i + t <= n; i++)
		if (memcmp(p + i, tok, t) == 0)
			return 1;
	return 0;
}
