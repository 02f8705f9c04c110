/*
 * verify_probe.c - the in-box half of `box verify` (see verify.h).
 *
 * Each probe runs in a child of its own, all at once, so a run costs one
 * timeout, not one per target; a child reports one line ("<verdict>
 * <detail>") through its pipe.  A probe only says what it saw: connect()
 * tells a RST (refused: the packet arrived) from silence (dropped); an
 * echo reply is an answer; a forged frame is only "sent" here, because
 * whether it got past the box's port is seen by the host on the bridge.
 */
#include "box/verify/verify.h"
#include "box/verify/verify_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box/life/life.h"
#include "net/dnsq.h"
#include "util/clock.h"
#include "util/lines.h"
#include "util/text.h"

#define MAXP		96	/* probes in one plan */
#define V6_READ_MAX	(64 << 10)	/* /proc/net/if_inet6, ipv6_route */
#define PLAN_MAX	(32u << 10)
#define DNS_GRACE_MS	6000	/* a name lookup on top of the timeout */

struct probe {
	char id[VERIFY_ID];
	char kind[8];
	char a[64], s[64], n[128], tok[48];
	int port;
	int qid;		/* a name's DNS query id (0: the box's resolver) */
	uint32_t dns;		/* ask this server (host order), 0: the first
				   IPv4 nameserver of /etc/resolv.conf */
	pid_t pid;
	int fd;
	char out[VERIFY_VERDICT];
	size_t len;
};

/* --- the probes (each in its own child) ------------------------------------ */

static void
say(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, cap, fmt, ap);
	va_end(ap);
}

/* connect() with a timeout: connected / refused / dropped / unreachable. */
static void
tcp_sa(const struct sockaddr *sa, socklen_t sl, int ms, char *out, size_t cap)
{
	struct pollfd p;
	int fd, rc, err = 0;
	socklen_t el = sizeof(err);

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		say(out, cap, "error socket: %s", strerror(errno));
		return;
	}
	rc = connect(fd, sa, sl);
	if (rc < 0 && errno == EINPROGRESS) {
		p.fd = fd;
		p.events = POLLOUT;
		rc = poll(&p, 1, ms);
		if (rc == 0) {
			say(out, cap, "dropped (no answer in %d ms)", ms);
			close(fd);
			return;
		}
		(void)getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
	} else if (rc < 0) {
		err = errno;
	}
	close(fd);
	if (err == 0)
		say(out, cap, "connected");
	else if (err == ECONNREFUSED)
		say(out, cap, "refused (a RST came back: the packet arrived)");
	else if (err == EHOSTUNREACH || err == ENETUNREACH)
		say(out, cap, "unreachable (%s)", strerror(err));
	else if (err == ETIMEDOUT)
		say(out, cap, "dropped (timed out)");
	else
		say(out, cap, "error %s", strerror(err));
}

static void
p_tcp(const struct probe *p, int ms, char *out, size_t cap)
{
	struct sockaddr_in s4;
	struct sockaddr_in6 s6;
	char a[64], *pct;

	memset(&s4, 0, sizeof(s4));
	memset(&s6, 0, sizeof(s6));
	if (inet_pton(AF_INET, p->a, &s4.sin_addr) == 1) {
		s4.sin_family = AF_INET;
		s4.sin_port = htons((uint16_t)p->port);
		tcp_sa((struct sockaddr *)&s4, sizeof(s4), ms, out, cap);
		return;
	}
	snprintf(a, sizeof(a), "%s", p->a);
	if ((pct = strchr(a, '%')) != NULL) {
		*pct++ = '\0';
		s6.sin6_scope_id = if_nametoindex(pct);
	}
	if (inet_pton(AF_INET6, a, &s6.sin6_addr) != 1) {
		say(out, cap, "error not an address: %s", p->a);
		return;
	}
	s6.sin6_family = AF_INET6;
	s6.sin6_port = htons((uint16_t)p->port);
	tcp_sa((struct sockaddr *)&s6, sizeof(s6), ms, out, cap);
}

/*
 * A name, then a connect to its first address.  With a resolver named in
 * the plan (the host's own run: the contract's resolver, the gateway) the
 * question goes there directly with the plan's query id, so the host can
 * read the answer off the wire; else through the box's own resolver.
 */
static void
p_name(const struct probe *p, int ms, char *out, size_t cap)
{
	struct sockaddr_in sa;
	char a[INET_ADDRSTRLEN], v[VERIFY_VERDICT], why[64];
	uint32_t x;
	int rc;

	/* p->dns: the server the plan names, with the query id it will
	 * capture; else resolv.conf's first nameserver */
	rc = p->dns != 0 ? dnsq_ask_id(p->dns, p->n, (uint16_t)p->qid, ms,
	    &x, why, sizeof(why)) : dnsq_resolve(p->n, ms, &x, why,
	    sizeof(why));
	if (rc != 1) {
		say(out, cap, "none (%s does not resolve: %s)", p->n,
		    rc == 0 && p->dns == 0 ? "no address" : why);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)p->port);
	sa.sin_addr.s_addr = htonl(x);
	inet_ntop(AF_INET, &sa.sin_addr, a, sizeof(a));
	tcp_sa((struct sockaddr *)&sa, sizeof(sa), ms, v, sizeof(v));
	say(out, cap, "%s (%s is %s)", v, p->n, a);
}

static uint16_t
csum(const void *data, size_t n)
{
	const uint8_t *b = data;
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((uint16_t)~s);
}

/*
 * The echo reply to id on the raw socket fd, until end: 1 when one came.
 * want: IPv4 (ICMP, the IP header in front), and only from that address;
 * NULL: ICMPv6 from any node, its address into a[0..acap).
 */
static int
echo_wait(int fd, const struct in_addr *want, uint16_t id, long long end,
    char *a, size_t acap)
{
	struct sockaddr_in6 from;	/* room for either family */
	uint8_t buf[512];
	socklen_t fl;
	ssize_t n;
	size_t at;

	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		long long left = end - clock_ms();

		if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
			return 0;
		fl = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		    &fl);
		at = 0;
		if (want != NULL) {
			if (n < 20)
				continue;
			at = (size_t)(buf[0] & 0x0f) * 4;
			if ((size_t)n < at + 8 || ((struct sockaddr_in *)
			    (void *)&from)->sin_addr.s_addr != want->s_addr)
				continue;
		} else if (n < 8)
			continue;
		if (buf[at] != (want != NULL ? ICMP_ECHOREPLY :
		    ICMP6_ECHO_REPLY) ||
		    (uint16_t)(buf[at + 4] << 8 | buf[at + 5]) != id)
			continue;
		if (want == NULL)
			inet_ntop(AF_INET6, &from.sin6_addr, a, acap);
		return 1;
	}
}

/* An echo request; reply only when one from that address came back. */
static void
p_icmp(const struct probe *p, int ms, char *out, size_t cap)
{
	struct sockaddr_in to;
	struct icmphdr h;
	long long end = clock_ms() + ms;
	uint16_t id = p->qid ? (uint16_t)p->qid : (uint16_t)getpid();
	int fd;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	if (inet_pton(AF_INET, p->a, &to.sin_addr) != 1) {
		say(out, cap, "error not an address: %s", p->a);
		return;
	}
	if ((fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)) < 0) {
		say(out, cap, "error raw socket: %s", strerror(errno));
		return;
	}
	memset(&h, 0, sizeof(h));
	h.type = ICMP_ECHO;
	h.un.echo.id = htons(id);
	h.un.echo.sequence = htons(1);
	h.checksum = csum(&h, sizeof(h));
	if (sendto(fd, &h, sizeof(h), 0, (struct sockaddr *)&to,
	    sizeof(to)) < 0) {
		say(out, cap, "unreachable (%s)", strerror(errno));
		close(fd);
		return;
	}
	if (echo_wait(fd, &to.sin_addr, id, end, NULL, 0)) {
		say(out, cap, "reply (an echo reply from %s)", p->a);
		close(fd);
		return;
	}
	close(fd);
	say(out, cap, "dropped (no echo reply in %d ms)", ms);
}

/* A UDP datagram from a source that is not ours, token in its payload. */
static void
p_forge(const struct probe *p, char *out, size_t cap)
{
	uint8_t pkt[20 + 8 + 64];
	struct sockaddr_in to;
	struct in_addr src;
	size_t tl = strlen(p->tok), n = 28 + tl;
	int fd, one = 1, i;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	if (tl > 64 || inet_pton(AF_INET, p->a, &to.sin_addr) != 1 ||
	    inet_pton(AF_INET, p->s, &src) != 1) {
		say(out, cap, "error a bad forge probe");
		return;
	}
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45;
	pkt[2] = (uint8_t)(n >> 8);
	pkt[3] = (uint8_t)n;
	pkt[8] = 64;
	pkt[9] = IPPROTO_UDP;
	memcpy(pkt + 12, &src, 4);
	memcpy(pkt + 16, &to.sin_addr, 4);
	memcpy(pkt + 10, &(uint16_t){ csum(pkt, 20) }, 2);
	pkt[20] = 0x9c;			/* source port 40000 */
	pkt[21] = 0x40;
	pkt[22] = (uint8_t)(p->port >> 8);
	pkt[23] = (uint8_t)p->port;
	pkt[24] = (uint8_t)((8 + tl) >> 8);
	pkt[25] = (uint8_t)(8 + tl);	/* no UDP checksum: optional in IPv4 */
	memcpy(pkt + 28, p->tok, tl);
	if ((fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW)) < 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)) < 0) {
		say(out, cap, "error raw socket: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	for (i = 0; i < 3; i++)
		if (sendto(fd, pkt, n, 0, (struct sockaddr *)&to,
		    sizeof(to)) < 0) {
			say(out, cap, "error sending: %s", strerror(errno));
			close(fd);
			return;
		}
	close(fd);
	say(out, cap, "sent (from %s to %s:%d)", p->s, p->a, p->port);
}

/*
 * An ARP frame (Ethernet, IPv4) broadcast from mac into f: op 1 a
 * request, 2 a reply; sender address spa, target MAC tha in every byte
 * (0 or 0xff), target address tpa; and into sa the link-layer address
 * that broadcasts it out of interface idx.
 */
static void
arp_frame(uint8_t f[42], struct sockaddr_ll *sa, int idx, const void *mac,
    int op, const struct in_addr *spa, int tha, const struct in_addr *tpa)
{
	memset(f, 0xff, 6);
	memcpy(f + 6, mac, 6);
	f[12] = 0x08, f[13] = 0x06;			/* ARP */
	f[14] = 0, f[15] = 1, f[16] = 0x08, f[17] = 0;	/* Ethernet, IPv4 */
	f[18] = 6, f[19] = 4, f[20] = 0, f[21] = (uint8_t)op;
	memcpy(f + 22, mac, 6);
	memcpy(f + 28, spa, 4);
	memset(f + 32, tha, 6);
	memcpy(f + 38, tpa, 4);
	memset(sa, 0, sizeof(*sa));
	sa->sll_family = AF_PACKET;
	sa->sll_ifindex = idx;
	sa->sll_halen = 6;
	memset(sa->sll_addr, 0xff, 6);
}

/* A gratuitous ARP reply claiming p->a for this box's MAC, broadcast. */
static void
p_arp(const struct probe *p, char *out, size_t cap)
{
	uint8_t f[42];
	struct sockaddr_ll sa;
	struct ifreq ifr;
	struct in_addr ip;
	int fd, i;

	if (inet_pton(AF_INET, p->a, &ip) != 1) {
		say(out, cap, "error not an address: %s", p->a);
		return;
	}
	if ((fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ARP))) < 0) {
		say(out, cap, "error packet socket: %s", strerror(errno));
		return;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", VERIFY_NIC);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0 ||
	    (i = (int)if_nametoindex(VERIFY_NIC)) == 0) {
		say(out, cap, "error no %s: %s", VERIFY_NIC, strerror(errno));
		close(fd);
		return;
	}
	arp_frame(f, &sa, i, ifr.ifr_hwaddr.sa_data, 2, &ip, 0xff, &ip);
	for (i = 0; i < 3; i++)
		if (sendto(fd, f, sizeof(f), 0, (struct sockaddr *)&sa,
		    sizeof(sa)) < 0) {
			say(out, cap, "error sending: %s", strerror(errno));
			close(fd);
			return;
		}
	close(fd);
	say(out, cap, "sent (claiming %s)", p->a);
}

/* A whole /proc file into buf (NUL-terminated); its length or -1. */
static ssize_t
slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* The box's own kernel: a global IPv6 address, a route beyond the link. */
/* p_v6 with its read buffer (V6_READ_MAX bytes). */
static void
p_v6_in(char *buf, char *out, size_t cap)
{
	char d[96], *l, *save = NULL;

	if (slurp("/proc/net/if_inet6", buf, V6_READ_MAX) >= 0)
		for (l = strtok_r(buf, "\n", &save); l;
		    l = strtok_r(NULL, "\n", &save))
			if (verify_v6_addr_line(l, d, sizeof(d)) == 1) {
				say(out, cap, "reply (a global IPv6 address: "
				    "%s)", d);
				return;
			}
	save = NULL;
	if (slurp("/proc/net/ipv6_route", buf, V6_READ_MAX) >= 0)
		for (l = strtok_r(buf, "\n", &save); l;
		    l = strtok_r(NULL, "\n", &save))
			if (verify_v6_route_line(l, d, sizeof(d)) == 1) {
				say(out, cap, "reply (an IPv6 route beyond "
				    "the link: %s)", d);
				return;
			}
	say(out, cap, "none (no global IPv6 address, no IPv6 route beyond "
	    "the link)");
}

static void
p_v6(char *out, size_t cap)
{
	char *buf = malloc(V6_READ_MAX);

	if (buf == NULL) {
		say(out, cap, "error out of memory");
		return;
	}
	p_v6_in(buf, out, cap);
	free(buf);
}

/*
 * An ICMPv6 echo to every node on the link (ff02::1): the host's
 * link-local and every sibling's would answer if IPv6 reached them.
 */
static void
p_v6ping(int ms, char *out, size_t cap)
{
	struct sockaddr_in6 to;
	struct icmp6_hdr h;
	char a[INET6_ADDRSTRLEN];
	long long end = clock_ms() + ms;
	uint16_t id = (uint16_t)getpid();
	int fd, off = 0;

	memset(&to, 0, sizeof(to));
	to.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "ff02::1", &to.sin6_addr);
	to.sin6_scope_id = if_nametoindex(VERIFY_NIC);
	if ((fd = socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6)) < 0) {
		say(out, cap, "dropped (no IPv6 here: %s)", strerror(errno));
		return;
	}
	/* our own echo of our own request is not an answer */
	(void)setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &off,
	    sizeof(off));
	memset(&h, 0, sizeof(h));
	h.icmp6_type = ICMP6_ECHO_REQUEST;
	h.icmp6_id = htons(id);
	h.icmp6_seq = htons(1);
	if (sendto(fd, &h, sizeof(h), 0, (struct sockaddr *)&to,
	    sizeof(to)) < 0) {
		say(out, cap, "dropped (nothing sent: %s)", strerror(errno));
		close(fd);
		return;
	}
	if (echo_wait(fd, NULL, id, end, a, sizeof(a))) {
		say(out, cap, "reply (an echo reply from %s)", a);
		close(fd);
		return;
	}
	close(fd);
	say(out, cap, "dropped (no node on the link answered in %d ms)", ms);
}

/*
 * For a target on the box's own link: one ARP question for it, from the
 * box's own MAC and address.  A neighbour entry the box's kernel already
 * gave up on sends nothing at all ("unreachable" at once); the question
 * makes the attempt visible on the box's port, where the host judges it.
 */
static void
arp_ask(const char *target)
{
	struct sockaddr_ll sa;
	struct ifreq ifr, ifa;
	struct in_addr ip, self;
	uint8_t f[42];
	int fd, idx;

	if (inet_pton(AF_INET, target, &ip) != 1 ||
	    (fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC,
	    htons(ETH_P_ARP))) < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", VERIFY_NIC);
	ifa = ifr;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0 || ioctl(fd, SIOCGIFADDR,
	    &ifa) < 0 || (idx = (int)if_nametoindex(VERIFY_NIC)) == 0) {
		close(fd);
		return;
	}
	self = ((struct sockaddr_in *)(void *)&ifa.ifr_addr)->sin_addr;
	if ((ntohl(self.s_addr) & 0xffffff00u) !=
	    (ntohl(ip.s_addr) & 0xffffff00u)) {
		close(fd);
		return;		/* not on the link */
	}
	arp_frame(f, &sa, idx, ifr.ifr_hwaddr.sa_data, 1, &self, 0, &ip);
	(void)sendto(fd, f, sizeof(f), 0, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
}

static void
run_one(const struct probe *p, int ms, char *out, size_t cap)
{
	if (strcmp(p->kind, "tcp") == 0 || strcmp(p->kind, "icmp") == 0)
		arp_ask(p->a);
	if (strcmp(p->kind, "tcp") == 0)
		p_tcp(p, ms, out, cap);
	else if (strcmp(p->kind, "name") == 0)
		p_name(p, ms, out, cap);
	else if (strcmp(p->kind, "icmp") == 0)
		p_icmp(p, ms, out, cap);
	else if (strcmp(p->kind, "forge") == 0)
		p_forge(p, out, cap);
	else if (strcmp(p->kind, "arp") == 0)
		p_arp(p, out, cap);
	else if (strcmp(p->kind, "v6") == 0)
		p_v6(out, cap);
	else if (strcmp(p->kind, "v6ping") == 0)
		p_v6ping(ms, out, cap);
	else
		say(out, cap, "error unknown probe %s", p->kind);
}

/* --- the line readers (pure) ------------------------------------------------ */

int
verify_v6_addr_line(const char *line, char *desc, size_t cap)
{
	char hex[33], dev[17];
	unsigned idx, plen, scope, flags;
	uint8_t a[16];
	char txt[INET6_ADDRSTRLEN];
	int i;

	if (strcspn(line, " \t") != 32 ||
	    sscanf(line, "%32s %x %x %x %x %16s", hex, &idx, &plen, &scope,
	    &flags, dev) != 6 || strlen(hex) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		a[i] = (uint8_t)v;
	}
	/* scope 0 is global (ULAs included); 0x10 host, 0x20 link */
	if (scope != 0 || strcmp(dev, "lo") == 0)
		return 0;
	inet_ntop(AF_INET6, a, txt, sizeof(txt));
	snprintf(desc, cap, "%s/%u on %s", txt, plen & 0xff, dev);
	return 1;
}

int
verify_v6_route_line(const char *line, char *desc, size_t cap)
{
	char dst[33], dev[17], src[33], hop[33];
	unsigned dlen, slen, metric, ref, use, flags;
	uint8_t a[16];
	char txt[INET6_ADDRSTRLEN];
	int i;

	if (strcspn(line, " \t") != 32 ||
	    sscanf(line, "%32s %x %32s %x %32s %x %x %x %x %16s", dst, &dlen,
	    src, &slen, hop, &metric, &ref, &use, &flags, dev) != 10 ||
	    strlen(dst) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		unsigned v;

		if (sscanf(dst + 2 * i, "%2x", &v) != 1)
			return -1;
		a[i] = (uint8_t)v;
	}
	if (strcmp(dev, "lo") == 0 || (flags & 0x0200) != 0)
		return 0;	/* local addresses; reject routes */
	if (a[0] == 0xff || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80))
		return 0;	/* multicast, link-local: the link itself */
	inet_ntop(AF_INET6, a, txt, sizeof(txt));
	snprintf(desc, cap, "%s/%u dev %s", txt, dlen & 0xff, dev);
	return 1;
}

/* --- the plan, the children, the report ------------------------------------- */

/* A field of the probe being read: cut to its size, as before. */
static void
field(char *dst, size_t cap, const char *v)
{
	size_t n = strlen(v) < cap ? strlen(v) : cap - 1;

	memcpy(dst, v, n);
	dst[n] = '\0';
}

static void
take_field(struct probe *q, const char *k, const char *v)
{
	long x;

	if (strcmp(k, "k") == 0)
		field(q->kind, sizeof(q->kind), v);
	else if (strcmp(k, "a") == 0)
		field(q->a, sizeof(q->a), v);
	else if (strcmp(k, "s") == 0)
		field(q->s, sizeof(q->s), v);
	else if (strcmp(k, "n") == 0)
		field(q->n, sizeof(q->n), v);
	else if (strcmp(k, "tok") == 0)
		field(q->tok, sizeof(q->tok), v);
	else if (strcmp(k, "port") == 0 && text_uint(v, 1, 65535, &x) == 0)
		q->port = (int)x;
	else if (strcmp(k, "q") == 0 && text_uint(v, 1, 65535, &x) == 0)
		q->qid = (int)x;
}

/* The plan's text into p[0..MAXP): the count, or -EBOX_PROTO. */
static int
plan_parse(const char *s, size_t n, struct probe *p, int *ms)
{
	char k[16], v[LINES_MAX_LINE];
	struct probe *q = NULL;
	struct in_addr ia;
	struct lines l;
	uint32_t dns = 0;
	int np = 0, rc, i;
	long x;

	*ms = 2000;
	lines_init(&l, s, n);
	if (lines_next(&l, k, sizeof(k), v, sizeof(v)) != 1 ||
	    strcmp(k, VERIFY_PLAN_MAGIC) != 0 || strcmp(v, VERIFY_FORMAT))
		return -EBOX_PROTO;
	while ((rc = lines_next(&l, k, sizeof(k), v, sizeof(v))) == 1) {
		if (strcmp(k, "t") == 0) {
			if (text_uint(v, 1, 59999, &x) == 0)
				*ms = (int)x;
		} else if (strcmp(k, "d") == 0 && q == NULL) {
			if (inet_pton(AF_INET, v, &ia) == 1)
				dns = ntohl(ia.s_addr);
		} else if (strcmp(k, "p") == 0) {
			if (np == MAXP) {
				q = NULL;	/* more than we run */
				continue;
			}
			q = &p[np++];
			memset(q, 0, sizeof(*q));
			field(q->id, sizeof(q->id), v);
			q->fd = -1;
		} else if (q != NULL) {
			take_field(q, k, v);
		}
	}
	for (i = 0; i < np; i++)
		p[i].dns = dns;
	return rc < 0 ? rc : np;
}

int
verify_plan_count(const char *txt, size_t n)
{
	struct probe *p = calloc(MAXP, sizeof(*p));
	int ms, rc;

	if (p == NULL)
		return -ENOMEM;
	rc = plan_parse(txt, n, p, &ms);
	free(p);
	return rc;
}

static void
start(struct probe *p, int ms)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0) {
		say(p->out, sizeof(p->out), "error pipe: %s", strerror(errno));
		return;
	}
	p->pid = fork();
	if (p->pid < 0) {
		say(p->out, sizeof(p->out), "error fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (p->pid == 0) {
		char out[VERIFY_VERDICT];

		close(fds[0]);
		run_one(p, ms, out, sizeof(out));
		(void)!write(fds[1], out, strlen(out));
		_exit(0);
	}
	close(fds[1]);
	p->fd = fds[0];
}

/* Read every child's line until all closed or the deadline. */
static void
collect(struct probe *p, int np, long long deadline)
{
	struct pollfd pf[MAXP];
	int i, k, open_;
	ssize_t n;

	for (;;) {
		for (i = k = 0; i < np; i++)
			if (p[i].fd >= 0) {
				pf[k].fd = p[i].fd;
				pf[k].events = POLLIN;
				k++;
			}
		open_ = k;
		if (open_ == 0 || clock_ms() >= deadline)
			break;
		if (poll(pf, (nfds_t)k, (int)(deadline - clock_ms())) <= 0)
			break;
		for (i = 0; i < np; i++) {
			if (p[i].fd < 0)
				continue;
			for (k = 0; k < open_ && pf[k].fd != p[i].fd; k++)
				;
			if (k == open_ || pf[k].revents == 0)
				continue;
			n = read(p[i].fd, p[i].out + p[i].len,
			    sizeof(p[i].out) - 1 - p[i].len);
			if (n > 0) {
				p[i].len += (size_t)n;
				p[i].out[p[i].len] = '\0';
			}
			if (n <= 0 || p[i].len + 1 >= sizeof(p[i].out)) {
				close(p[i].fd);
				p[i].fd = -1;
			}
		}
	}
	for (i = 0; i < np; i++) {
		if (p[i].fd >= 0) {
			close(p[i].fd);
			p[i].fd = -1;
			/* a lookup nobody answered: the name got nowhere */
			if (p[i].len == 0 && strcmp(p[i].kind, "name") == 0)
				say(p[i].out, sizeof(p[i].out), "none (%s: no "
				    "answer to the lookup in time)", p[i].n);
			else if (p[i].len == 0)
				say(p[i].out, sizeof(p[i].out), "error no "
				    "verdict before the deadline");
		}
		if (p[i].pid > 0) {
			kill(p[i].pid, SIGKILL);
			waitpid(p[i].pid, NULL, 0);
		}
	}
}

/* The report into out[0..cap): its length, or -ENOSPC. */
static ssize_t
render(const struct probe *p, int np, char *out, size_t cap)
{
	struct lines_w w;
	int i;

	lines_w_init(&w, out, cap);
	lines_put(&w, VERIFY_REPORT_MAGIC, "%s", VERIFY_FORMAT);
	for (i = 0; i < np; i++) {
		lines_put(&w, "r", "%s", p[i].id);
		lines_put(&w, "v", "%s", p[i].out[0] ? p[i].out :
		    "error no verdict");
	}
	if (lines_w_end(&w) < 0)
		return -ENOSPC;
	return (ssize_t)w.len;
}

ssize_t
verify_run(const char *plan, size_t n, char *out, size_t cap)
{
	struct probe *p = calloc(MAXP, sizeof(*p));
	int np, ms = 2000, i, names = 0;
	ssize_t rc;

	if (p == NULL)
		return -ENOMEM;
	if ((np = plan_parse(plan, n, p, &ms)) < 0) {
		free(p);
		return np;
	}
	for (i = 0; i < np; i++) {
		names |= strcmp(p[i].kind, "name") == 0;
		start(&p[i], ms);
	}
	collect(p, np, clock_ms() + ms + 1000 + (names ? DNS_GRACE_MS : 0));
	rc = render(p, np, out, cap);
	free(p);
	return rc;
}

int
verify_inside_main(struct box_err *e)
{
	const char *plan = getenv("BOX_VERIFY_PLAN");
	char *out = malloc(VERIFY_REPORT_MAX);
	ssize_t len;
	int rc;

	if (out == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if (plan == NULL || strlen(plan) > PLAN_MAX) {
		free(out);
		return err_usage(e, "verify --inside needs BOX_VERIFY_PLAN");
	}
	len = verify_run(plan, strlen(plan), out, VERIFY_REPORT_MAX);
	if (len < 0) {
		free(out);
		return len == -ENOSPC ? err_set(e, -ENOMEM, "the report did "
		    "not fit") : err_set(e, -EBOX_PROTO, "BOX_VERIFY_PLAN is "
		    "not a plan");
	}
	rc = life_report_write(out, (size_t)len, e);
	free(out);
	return rc;
}
