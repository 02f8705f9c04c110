/* ptr.c - one PTR question to the gateway's resolver (see ptr.h). */
#include "box/egress/ptr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/err.h"

#define T_PTR 12
#define T_A 1
#define A_MAX 64

int
ptr_build(uint32_t addr, uint16_t id, unsigned char *buf, size_t cap)
{
	char name[40], *p, *dot;
	size_t o = 12, l;

	snprintf(name, sizeof(name), "%u.%u.%u.%u.in-addr.arpa", addr & 255,
	    (addr >> 8) & 255, (addr >> 16) & 255, addr >> 24);
	if (cap < 12 + strlen(name) + 2 + 4)
		return -ENOSPC;
	memset(buf, 0, 12);
	buf[0] = (unsigned char)(id >> 8);
	buf[1] = (unsigned char)id;
	buf[2] = 0x01;		/* RD */
	buf[5] = 1;		/* one question */
	for (p = name; *p != '\0'; p = *dot ? dot + 1 : dot) {
		dot = strchr(p, '.');
		if (dot == NULL)
			dot = p + strlen(p);
		l = (size_t)(dot - p);
		buf[o++] = (unsigned char)l;
		memcpy(buf + o, p, l);
		o += l;
	}
	buf[o++] = 0;
	buf[o++] = 0;
	buf[o++] = T_PTR;
	buf[o++] = 0;
	buf[o++] = 1;		/* IN */
	return (int)o;
}

/* Skip a (possibly compressed) name at *o. */
static int
skip_name(const unsigned char *b, size_t n, size_t *o)
{
	while (*o < n) {
		unsigned l = b[*o];

		if ((l & 0xc0) == 0xc0) {
			if (*o + 2 > n)
				return -EBOX_PROTO;
			*o += 2;
			return 0;
		}
		if (l & 0xc0)
			return -EBOX_PROTO;
		*o += 1 + l;
		if (l == 0)
			return *o <= n ? 0 : -EBOX_PROTO;
	}
	return -EBOX_PROTO;
}

static int
ldh(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
	    c == '_';
}

/* Read a name at o, following at most 16 pointers, into out. */
static int
read_name(const unsigned char *b, size_t n, size_t o, char *out, size_t cap)
{
	size_t w = 0;
	int hops = 0;

	for (;;) {
		unsigned l;

		if (o >= n)
			return -EBOX_PROTO;
		l = b[o];
		if ((l & 0xc0) == 0xc0) {
			if (o + 2 > n || ++hops > 16)
				return -EBOX_PROTO;
			o = (size_t)(l & 0x3f) << 8 | b[o + 1];
			continue;
		}
		if (l & 0xc0)
			return -EBOX_PROTO;
		if (l == 0)
			break;
		if (o + 1 + l > n || w + l + 2 > cap || w + l + 1 > 253)
			return -EBOX_PROTO;
		if (w > 0)
			out[w++] = '.';
		for (size_t i = 0; i < l; i++) {
			unsigned char c = b[o + 1 + i];

			if (c >= 'A' && c <= 'Z')
				c = (unsigned char)(c - 'A' + 'a');
			if (!ldh(c))
				return -EBOX_PROTO;
			out[w++] = (char)c;
		}
		o += 1 + l;
	}
	if (w == 0)
		return -EBOX_PROTO;
	out[w] = '\0';
	return 0;
}

/*
 * A reply's header and question section: our id, the QR bit, at most 4
 * questions and anmax answers.  1 with *o at the first answer and *an
 * their count; 0 for a reply with an error code (no answer); negative
 * when it is not a reply to us.
 */
static int
reply_head(const unsigned char *buf, size_t n, uint16_t id, unsigned anmax,
    size_t *o, unsigned *an)
{
	unsigned qd, i;

	*o = 12;
	if (n < 12 || (buf[0] << 8 | buf[1]) != id || !(buf[2] & 0x80))
		return -EBOX_PROTO;
	qd = (unsigned)buf[4] << 8 | buf[5];
	*an = (unsigned)buf[6] << 8 | buf[7];
	if ((buf[3] & 0x0f) != 0)
		return 0;
	if (qd > 4 || *an > anmax)
		return -EBOX_PROTO;
	for (i = 0; i < qd; i++) {
		if (skip_name(buf, n, o) < 0 || *o + 4 > n)
			return -EBOX_PROTO;
		*o += 4;
	}
	return 1;
}

int
ptr_reply(const unsigned char *buf, size_t n, uint16_t id, char *name,
    size_t cap)
{
	size_t o;
	unsigned an, i;
	int rc;

	if (cap == 0)
		return -EBOX_PROTO;
	name[0] = '\0';
	if ((rc = reply_head(buf, n, id, 64, &o, &an)) <= 0)
		return rc;
	for (i = 0; i < an; i++) {
		unsigned type, rdlen;

		if (skip_name(buf, n, &o) < 0 || o + 10 > n)
			return -EBOX_PROTO;
		type = (unsigned)buf[o] << 8 | buf[o + 1];
		rdlen = (unsigned)buf[o + 8] << 8 | buf[o + 9];
		o += 10;
		if (o + rdlen > n)
			return -EBOX_PROTO;
		if (type == T_PTR)
			return read_name(buf, n, o, name, cap) < 0 ?
			    -EBOX_PROTO : 1;
		o += rdlen;
	}
	return 0;
}

/*
 * A query's ID: random, so an answer must have seen the question (an ID a
 * sender could guess would let it answer first); the PID only when the
 * kernel gives no random bytes.
 */
static uint16_t
query_id(uint32_t salt)
{
	uint16_t id;

	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id))
		id = (uint16_t)(getpid() ^ salt);
	return id;
}

int
ptr_ask(uint32_t server, uint32_t addr, int timeout_ms, char *name,
    size_t cap)
{
	unsigned char q[128], a[1500];
	struct sockaddr_in sa;
	struct pollfd pfd;
	uint16_t id = query_id(addr);
	int fd, len, rc = 0;
	ssize_t got;

	name[0] = '\0';
	if ((len = ptr_build(addr, id, q, sizeof(q))) < 0)
		return 0;
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(53);
	sa.sin_addr.s_addr = htonl(server);
	if (sendto(fd, q, (size_t)len, 0, (struct sockaddr *)&sa,
	    sizeof(sa)) == len) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout_ms) == 1 &&
		    (got = recv(fd, a, sizeof(a), 0)) > 0)
			rc = ptr_reply(a, (size_t)got, id, name, cap) == 1;
	}
	close(fd);
	if (!rc)
		name[0] = '\0';
	return rc;
}

int
ptr_build_a(const char *name, uint16_t id, unsigned char *buf, size_t cap)
{
	size_t o = 12, l, n = strlen(name);
	const char *p, *dot;

	if (n == 0 || n > 253)
		return -EINVAL;
	if (cap < 12 + n + 2 + 4)
		return -ENOSPC;
	memset(buf, 0, 12);
	buf[0] = (unsigned char)(id >> 8);
	buf[1] = (unsigned char)id;
	buf[2] = 0x01;		/* RD */
	buf[5] = 1;
	for (p = name; *p != '\0'; p = *dot ? dot + 1 : dot) {
		dot = strchr(p, '.');
		if (dot == NULL)
			dot = p + strlen(p);
		l = (size_t)(dot - p);
		if (l == 0 || l > 63)
			return -EINVAL;
		buf[o++] = (unsigned char)l;
		memcpy(buf + o, p, l);
		o += l;
	}
	buf[o++] = 0;
	buf[o++] = 0;
	buf[o++] = T_A;
	buf[o++] = 0;
	buf[o++] = 1;
	return (int)o;
}

int
ptr_a_reply(const unsigned char *buf, size_t n, uint16_t id, uint32_t *addr,
    uint32_t *ttl, size_t max)
{
	size_t o, k = 0;
	unsigned an, i;
	int rc;

	if ((rc = reply_head(buf, n, id, 256, &o, &an)) <= 0)
		return rc;
	for (i = 0; i < an; i++) {
		unsigned type, cls, rdlen;

		if (skip_name(buf, n, &o) < 0 || o + 10 > n)
			return -EBOX_PROTO;
		type = (unsigned)buf[o] << 8 | buf[o + 1];
		cls = (unsigned)buf[o + 2] << 8 | buf[o + 3];
		rdlen = (unsigned)buf[o + 8] << 8 | buf[o + 9];
		if (o + 10 + rdlen > n)
			return -EBOX_PROTO;
		if (type == T_A && cls == 1) {
			if (rdlen != 4)
				return -EBOX_PROTO;
			if (k < max) {
				addr[k] = (uint32_t)buf[o + 10] << 24 |
				    (uint32_t)buf[o + 11] << 16 |
				    (uint32_t)buf[o + 12] << 8 | buf[o + 13];
				if (ttl != NULL)
					ttl[k] = (uint32_t)buf[o + 4] << 24 |
					    (uint32_t)buf[o + 5] << 16 |
					    (uint32_t)buf[o + 6] << 8 |
					    buf[o + 7];
				k++;
			}
		}
		o += 10 + rdlen;
	}
	return (int)k;
}

/* One UDP question to server:53, its answer into a[0..cap). */
static ssize_t
ask(uint32_t server, const unsigned char *q, int len, int timeout_ms,
    unsigned char *a, size_t cap)
{
	struct sockaddr_in sa;
	struct pollfd pfd;
	ssize_t got = -1;
	int fd;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(53);
	sa.sin_addr.s_addr = htonl(server);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    send(fd, q, (size_t)len, 0) == len) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout_ms) == 1)
			got = recv(fd, a, cap, 0);
	}
	close(fd);
	return got;
}

int
ptr_ask_a(uint32_t server, const char *name, int timeout_ms, uint32_t *addr,
    uint32_t *ttl, size_t max)
{
	unsigned char q[300], a[1500];
	uint16_t id = query_id((uint32_t)name[0] * 40503u);
	ssize_t got;
	int len, k;

	if ((len = ptr_build_a(name, id, q, sizeof(q))) < 0)
		return 0;
	got = ask(server, q, len, timeout_ms, a, sizeof(a));
	if (got <= 0)
		return 0;
	k = ptr_a_reply(a, (size_t)got, id, addr, ttl, max);
	return k > 0 ? k : 0;
}

int
ptr_confirmed(uint32_t server, uint32_t addr, int timeout_ms, char *name,
    size_t cap)
{
	uint32_t fw[A_MAX];
	int i, k;

	if (!ptr_ask(server, addr, timeout_ms, name, cap))
		return 0;
	k = ptr_ask_a(server, name, timeout_ms, fw, NULL, A_MAX);
	for (i = 0; i < k; i++)
		if (fw[i] == addr)
			return 1;
	return 0;
}
