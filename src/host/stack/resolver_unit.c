/*
 * resolver_unit.c - box's resolver as the host runs it (see resolver_unit.h).
 */
#include "host/stack/resolver_unit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box/embedded.h"
#include "host/stack/sysd.h"
#include "model/ip4text.h"
#include "net/dns.h"
#include "util/clock.h"

#define MAXARG 16

/*
 * q[0..n) to gw:53, the answer with q's id into r[0..cap) within
 * timeout_ms: its length, -ETIMEDOUT (nobody home counts as nobody),
 * -EPROTO (not an answer to q), or -errno.
 */
static ssize_t
exchange(uint32_t gw, const unsigned char *q, size_t n, unsigned char *r,
    size_t cap, int timeout_ms)
{
	struct sockaddr_in to;
	struct pollfd p;
	ssize_t got;
	int fd, rc;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(gw);
	to.sin_port = htons(DNS_PORT);
	if (connect(fd, (void *)&to, sizeof(to)) < 0 ||
	    send(fd, q, n, 0) != (ssize_t)n) {
		rc = -errno;
		close(fd);
		return rc;
	}
	p.fd = fd;
	p.events = POLLIN;
	if ((rc = poll(&p, 1, timeout_ms)) <= 0) {
		rc = rc == 0 ? -ETIMEDOUT : -errno;
		close(fd);
		return rc;
	}
	got = recv(fd, r, cap, 0);
	rc = errno;
	close(fd);
	if (got < 0)
		return rc == ECONNREFUSED ? -ETIMEDOUT : -rc;
	if (got < DNS_HDRLEN || r[0] != q[0] || r[1] != q[1])
		return -EPROTO;
	return got;
}

/* Ask gw:53 for [label.]box.invalid A, EDNS with no options. */
static int
ask(uint32_t gw, const char *label, int timeout_ms, char *why, size_t cap)
{
	static const unsigned char head[] = {
		0x62, 0x78, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1,
	}, tail[] = {
		3, 'b', 'o', 'x', 7, 'i', 'n', 'v', 'a', 'l', 'i', 'd', 0,
		0, 1, 0, 1,
		0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0,
	};
	unsigned char q[sizeof(head) + 64 + sizeof(tail)], r[1024];
	char text[DNS_EDE_TEXTMAX + 1];
	size_t qn = sizeof(head), ln = label != NULL ? strlen(label) : 0;
	ssize_t n;
	int code = -1;

	if (cap > 0)
		why[0] = '\0';
	if (ln > 63)
		return -EINVAL;
	memcpy(q, head, sizeof(head));
	if (ln > 0) {
		q[qn++] = (unsigned char)ln;
		memcpy(q + qn, label, ln);
		qn += ln;
	}
	memcpy(q + qn, tail, sizeof(tail));
	qn += sizeof(tail);
	if ((n = exchange(gw, q, qn, r, sizeof(r), timeout_ms)) == -EPROTO)
		return 0;
	if (n < 0)
		return (int)n;
	if (dns_ede_read(r, (size_t)n, &code, text, sizeof(text)) == 1 &&
	    DNS_RCODE(r[3]) == DNS_R_REFUSED &&
	    strncmp(text, RSVD_HOST_TEXT, strlen(RSVD_HOST_TEXT)) == 0) {
		snprintf(why, cap, "%s", text);
		return 1;
	}
	snprintf(why, cap, "rcode %u%s%s", DNS_RCODE(r[3]),
	    code >= 0 ? ", EDE " : "", code >= 0 ? text : "");
	return 0;
}

/* q[*o...]: the labels of dotted text s; -EINVAL when one is empty,
 * too long, or the name would pass max octets. */
static int
put_labels(unsigned char *q, size_t *o, size_t max, const char *s)
{
	while (*s != '\0') {
		size_t l = strcspn(s, ".");

		if (l == 0 || l > 63 || *o + 1 + l >= max)
			return -EINVAL;
		q[(*o)++] = (unsigned char)l;
		memcpy(q + *o, s, l);
		*o += l;
		s += l + (s[l] == '.');
	}
	return 0;
}

int
rsvd_view(uint32_t gw, unsigned octet, const char *name, int timeout_ms,
    int *rcode, int *ede, char *text, size_t cap)
{
	static const unsigned char head[] = {
		0x76, 0x77, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1,
	}, tail[] = {
		0, 0, 1, 0, 1,
		0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0,
	};
	unsigned char q[sizeof(head) + DNS_NAME_WIRE + sizeof(tail)],
	    r[1024];
	char full[DNS_NAME_WIRE + 32];
	size_t o = sizeof(head);
	ssize_t n;

	*rcode = *ede = -1;
	if (cap > 0)
		text[0] = '\0';
	if ((size_t)snprintf(full, sizeof(full), "%s.%u.%s", name, octet,
	    RSVD_VIEW_SUFFIX) >= sizeof(full))
		return -EINVAL;
	memcpy(q, head, sizeof(head));
	if (put_labels(q, &o, sizeof(head) + DNS_NAME_WIRE, full) < 0)
		return -EINVAL;
	memcpy(q + o, tail, sizeof(tail));
	o += sizeof(tail);
	if ((n = exchange(gw, q, o, r, sizeof(r), timeout_ms)) < 0)
		return (int)n;
	*rcode = DNS_RCODE(r[3]);
	if (dns_ede_read(r, (size_t)n, ede, text, cap) != 1)
		*ede = -1;
	/* the probe's answer: a resolver that knows no view question */
	if (*ede >= 0 && strncmp(text, RSVD_HOST_TEXT,
	    strlen(RSVD_HOST_TEXT)) == 0)
		return -EPROTO;
	return 0;
}

int
rsvd_probe(uint32_t gw, int timeout_ms, char *why, size_t cap)
{
	return ask(gw, NULL, timeout_ms, why, cap);
}

int
rsvd_kick(uint32_t gw, int timeout_ms, char *why, size_t cap)
{
	char w[DNS_EDE_TEXTMAX + 32];
	int rc = ask(gw, "kick", timeout_ms, w, sizeof(w));

	/* A resolver without kicks answers it as the probe: not read. */
	if (rc == 1 && strstr(w, "read again") == NULL)
		rc = 0;
	snprintf(why, cap, "%s", w);
	return rc;
}

/* argv[1..] of the resolver as the boot copy runs it */
static const char rsvd_words[] = "resolver\0run";

int
rsvd_detached_pid(void)
{
	return sysd_daemon_pid(RSVD_PIDFILE, SYSD_BOOT_BIN, rsvd_words,
	    sizeof(rsvd_words));
}

static void
stop_detached(void)
{
	sysd_stop_daemon(RSVD_PIDFILE, SYSD_BOOT_BIN, rsvd_words,
	    sizeof(rsvd_words));
}

int
rsvd_install(uint32_t gw, const char *const *up, int nup, int *mode,
    int *skipped, struct box_err *e)
{
	const struct embedded_file *f = embedded_find(embedded_host,
	    embedded_host_count, RSVD_UNIT);
	char unit[4096], gws[20], ups[256], why[200];
	char *argv[MAXARG];
	char upv[8][48];
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	char *enable[] = { "systemctl", "enable", RSVD_UNIT, NULL };
	char *restart[] = { "systemctl", "restart", RSVD_UNIT, NULL };
	struct in_addr ia;
	long long end;
	int rc, i, k = 0, a = 0;

	*mode = 0;
	*skipped = 0;
	if (f == NULL || f->len >= sizeof(unit) / 2)
		return err_set(e, -ENOENT, "the resolver unit is not built in");
	ip4_fmt(gw, gws, sizeof(gws));
	ups[0] = '\0';
	for (i = 0; i < nup && k < 4; i++) {
		if (inet_pton(AF_INET, up[i], &ia) != 1) {
			(*skipped)++;	/* IPv6: boxes have no IPv6 anyway */
			continue;
		}
		snprintf(upv[k], sizeof(upv[k]), "%s", up[i]);
		snprintf(ups + strlen(ups), sizeof(ups) - strlen(ups),
		    "%s--upstream %s", k ? " " : "", up[i]);
		k++;
	}
	if (k == 0)
		return err_usage(e, "BOX_DNS names no IPv4 resolver: box's "
		    "resolver forwards over IPv4 only");
	memcpy(unit, f->data, f->len);
	unit[f->len] = '\0';
	if (sysd_fill(unit, sizeof(unit), "@BOX@", SYSD_BOOT_BIN) < 0 ||
	    sysd_fill(unit, sizeof(unit), "@GATEWAY@", gws) < 0 ||
	    sysd_fill(unit, sizeof(unit), "@UPSTREAMS@", ups) < 0)
		return err_set(e, -EINVAL, "the built-in resolver unit lacks "
		    "@BOX@, @GATEWAY@ or @UPSTREAMS@");
	if ((rc = sysd_write_atomic(RSVD_UNIT_PATH, unit, strlen(unit), 0644,
	    e)) < 0)
		return rc;
	if (sysd_present()) {
		stop_detached();
		if ((rc = sysd_run(reload, e)) < 0 ||
		    (rc = sysd_run(enable, e)) < 0 ||
		    (rc = sysd_run(restart, e)) < 0)
			return rc;
		*mode = RSVD_SYSTEMD;
	} else {
		stop_detached();
		argv[a++] = (char *)SYSD_BOOT_BIN;
		argv[a++] = (char *)"resolver";
		argv[a++] = (char *)"run";
		argv[a++] = (char *)"--listen";
		argv[a++] = gws;
		for (i = 0; i < k; i++) {
			argv[a++] = (char *)"--upstream";
			argv[a++] = upv[i];
		}
		argv[a] = NULL;
		if ((rc = sysd_start_daemon(argv, RSVD_PIDFILE, RSVD_LOG,
		    e)) < 0)
			return rc;
		*mode = RSVD_DETACHED;
	}
	end = clock_ms() + 3000;
	do {
		rc = rsvd_probe(gw, 200, why, sizeof(why));
		if (rc == 1)
			return 0;
		if (rc == 0)
			break;
		usleep(50000);
	} while (clock_ms() < end);
	err_set(e, -EBOX_PROTO, "box's resolver does not answer on %s:53 "
	    "(%s)", gws, rc == 0 ? why : "no answer within 3 s");
	err_fix(e, "see %s", *mode == RSVD_SYSTEMD ? "journalctl -u "
	    RSVD_UNIT : RSVD_LOG);
	return -EBOX_PROTO;
}

int
rsvd_remove(struct box_err *e)
{
	char *disable[] = { "systemctl", "disable", "--now", RSVD_UNIT, NULL };
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	struct box_err ignore;

	stop_detached();
	if (access(RSVD_UNIT_PATH, F_OK) != 0)
		return 0;
	err_clear(&ignore);
	if (sysd_present())
		sysd_run(disable, &ignore);
	if (unlink(RSVD_UNIT_PATH) < 0 && errno != ENOENT)
		return err_set(e, -errno, "removing %s: %s", RSVD_UNIT_PATH,
		    strerror(errno));
	if (sysd_present())
		return sysd_run(reload, e);
	return 0;
}
