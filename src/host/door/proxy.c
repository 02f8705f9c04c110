/*
 * proxy.c - /s/<secret>/<path>: a granted box's request forwarded to the
 * secret's host over TLS with the host's header (door.h).  Bodies stream
 * both ways through the TLS engine's own buffers and one of DH_LINEMAX:
 * nothing is held whole.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/door/addr.h"
#include "host/door/door_int.h"
#include "net/dnsq.h"
#include "util/clock.h"

/* Headers of the box's that never go upstream: hop-by-hop ones, and
 * Host (the door writes its own). */
static const char *const dropped[] = {
	"Host", "Connection", "Keep-Alive", "Proxy-Connection",
	"Proxy-Authorization", "TE", "Upgrade", "Trailer", NULL
};

struct relay {
	struct door_req *q;
	struct tls_conn *t;
	const struct secret *s;
	struct dh_chunked ck;
	uint64_t body_left;		/* Content-Length left */
	int body_open;			/* more body to come from the box */
	char *rh;			/* the response head, as it arrives */
	size_t rn;
	int head_done;
	long long deadline;
};

/* The name and the rest of "/s/<name>/<rest>": 0 or -1. */
static int
split_target(const struct dh_req *r, char *name, char *rest, size_t cap)
{
	const char *t = r->target + 3;
	size_t n = r->tlen - 3, l;

	if (r->tlen < 4 || memcmp(r->target, "/s/", 3) != 0)
		return -1;
	l = strcspn(t, "/?");
	if (l > n)
		l = n;
	if (l == 0 || l > SECRET_NAMEMAX || n - l >= cap)
		return -1;
	memcpy(name, t, l);
	name[l] = '\0';
	if (l == n || t[l] == '?')
		snprintf(rest, cap, "/%.*s", (int)(n - l), t + l);
	else
		snprintf(rest, cap, "%.*s", (int)(n - l), t + l);
	return secret_name_ok(name) ? 0 : -1;
}

/* The path for the log: no query, '"', '\' and '%' percent-encoded. */
static void
log_path(const char *rest, char *out, size_t cap)
{
	size_t o = 0;

	for (; *rest != '\0' && *rest != '?' && o + 4 < cap; rest++) {
		if (*rest == '"' || *rest == '\\')
			o += (size_t)snprintf(out + o, cap - o, "%%%02X",
			    (unsigned char)*rest);
		else
			out[o++] = *rest;
	}
	out[o] = '\0';
}

static int
connect_to(uint32_t a, unsigned port, long long deadline)
{
	struct sockaddr_in sa;
	struct pollfd pf;
	socklen_t sl = sizeof(int);
	int fd, err = 0, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) < 0)
		return -errno;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(a);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
	    errno != EINPROGRESS) {
		err = -errno;
		close(fd);
		return err;
	}
	pf.fd = fd;
	pf.events = POLLOUT;
	if (poll(&pf, 1, (int)(deadline - clock_ms())) <= 0)
		err = -ETIMEDOUT;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0 ||
	    err != 0)
		err = -(err ? err : errno);
	if (err < 0) {
		close(fd);
		return err;
	}
	return fd;
}

static int
dropped_header(const struct dh_hdr *h, const struct secret *s)
{
	size_t i;

	for (i = 0; dropped[i] != NULL; i++)
		if (dh_hdr_is(h, dropped[i]))
			return 1;
	return dh_hdr_is(h, s->header);
}

/* The head the upstream gets, into buf: its length or -ENOSPC. */
static int
upstream_head(const struct door_req *q, const struct secret *s,
    const char *rest, char *buf, size_t cap)
{
	const struct dh_req *r = &q->r;
	size_t o, i;
	int w;

	w = snprintf(buf, cap, "%.*s %s HTTP/1.1\r\nHost: %s", (int)r->mlen,
	    r->method, rest, s->host);
	if (w < 0 || (size_t)w >= cap)
		return -ENOSPC;
	o = (size_t)w;
	if (s->port != 443)
		o += (size_t)snprintf(buf + o, cap - o, ":%u", s->port);
	for (i = 0; i < r->nh && o < cap; i++) {
		if (dropped_header(&r->h[i], s))
			continue;
		o += (size_t)snprintf(buf + o, cap - o, "\r\n%.*s: %.*s",
		    (int)r->h[i].nlen, r->h[i].name, (int)r->h[i].vlen,
		    r->h[i].value);
	}
	if (o < cap)
		o += (size_t)snprintf(buf + o, cap - o, "\r\nConnection: "
		    "close\r\n");
	if (o < cap) {
		w = secret_header_line(s, buf + o, cap - o);
		if (w < 0)
			return -ENOSPC;
		o += (size_t)w;
	}
	if (o + 5 > cap)
		return -ENOSPC;
	memcpy(buf + o, "\r\n\r\n", 5);
	return (int)(o + 4);
}

/* Body bytes from the box, p[0..n): how many belong to the body. */
static long
body_take(struct relay *rl, const char *p, size_t n)
{
	long k;

	if (rl->q->r.chunked) {
		if ((k = dh_chunked_feed(&rl->ck, p, n)) < 0)
			return -EINVAL;
		rl->body_open = !rl->ck.done;
		return k;
	}
	k = (long)(n < rl->body_left ? n : rl->body_left);
	rl->body_left -= (uint64_t)k;
	rl->body_open = rl->body_left > 0;
	return k;
}

static int
body_to_upstream(struct relay *rl, const char *p, size_t n)
{
	long k = body_take(rl, p, n);

	if (k < 0)
		return -EINVAL;
	rl->q->use.in += k;
	return k > 0 ? tls_write(rl->t, p, (size_t)k, rl->deadline) : 0;
}

/* Upstream bytes p[0..n) on to the box: the head redacted, then as
 * they come. */
static int
to_box(struct relay *rl, const unsigned char *p, size_t n)
{
	struct dh_resp resp;
	char why[80], *out;
	long end, w;
	int red, rc;

	if (rl->head_done) {
		rl->q->use.out += (long long)n;
		return door_send(rl->q->fd, p, n, clock_ms() + DOOR_STREAM_MS);
	}
	if (n > DH_HEADMAX - rl->rn)
		return -E2BIG;
	memcpy(rl->rh + rl->rn, p, n);
	rl->rn += n;
	if ((end = dh_head_end(rl->rh, rl->rn)) <= 0)
		return end < 0 ? -EINVAL : 0;
	if (dh_resp_parse(rl->rh, (size_t)end, &resp, why, sizeof(why)) < 0)
		return -EINVAL;
	if ((out = malloc(DH_HEADMAX + 64)) == NULL)
		return -ENOMEM;
	w = dh_resp_redact(rl->rh, &resp, rl->s->value, rl->s->vlen, out,
	    DH_HEADMAX + 64, &red);
	rc = w < 0 ? (int)w : door_send(rl->q->fd, out, (size_t)w,
	    clock_ms() + DOOR_IDLE_MS);
	free(out);
	rl->q->use.status = resp.status;
	n = rl->rn - (size_t)end;
	rl->rn = 0;
	rl->head_done = resp.status >= 200;	/* 1xx: another head follows */
	if (rc == 0 && n > 0)
		rc = to_box(rl, (const unsigned char *)rl->rh + end, n);
	return rc;
}

/* Drain what the engine decrypted to the box. */
static int
drain(struct relay *rl)
{
	br_ssl_engine_context *eng = &rl->t->sc.eng;
	unsigned char *b;
	size_t len;
	int rc;

	while (br_ssl_engine_current_state(eng) & BR_SSL_RECVAPP) {
		b = br_ssl_engine_recvapp_buf(eng, &len);
		if ((rc = to_box(rl, b, len)) < 0)
			return rc;
		br_ssl_engine_recvapp_ack(eng, len);
	}
	return 0;
}

/* Both ways at once until the upstream closes. */
static int
relay(struct relay *rl)
{
	struct pollfd pf[2];
	char buf[DH_LINEMAX];
	short want;
	ssize_t r;
	int rc, timeout;

	for (;;) {
		if ((rc = tls_pump(rl->t, &want)) != 0)
			return rc < 0 ? rc : drain(rl);
		if (br_ssl_engine_current_state(&rl->t->sc.eng) &
		    BR_SSL_RECVAPP) {
			if ((rc = drain(rl)) < 0)
				return rc;
			continue;	/* the engine may read again */
		}
		pf[0].fd = rl->q->fd;
		pf[0].events = rl->body_open ? POLLIN : 0;
		pf[1].fd = rl->t->fd;
		pf[1].events = want;
		timeout = rl->head_done ? DOOR_STREAM_MS : DOOR_UP_MS;
		if ((rc = poll(pf, 2, timeout)) == 0)
			return -ETIMEDOUT;
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = read(rl->q->fd, buf, sizeof(buf));
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			return -EPIPE;	/* the box left mid-body */
		if (r > 0 && (rc = body_to_upstream(rl, buf, (size_t)r)) < 0)
			return rc;
	}
}

/* The secret's host: its address, judged.  0, or the door answered. */
static int
resolve(struct door_req *q, const struct secret *s, uint32_t *a)
{
	const char *what;
	char why[120];

	if (q->conf->pin_host != NULL && strcmp(q->conf->pin_host, s->host) ==
	    0)
		*a = q->conf->pin_addr;
	else if (dnsq_ask(q->conf->dns, s->host, 2000, a, why,
	    sizeof(why)) != 1) {
		door_reply(q, 502, "box door: %s does not resolve", s->host);
		return -1;
	}
	if (q->conf->check_addr && (what = door_addr_refused(*a,
	    q->conf->net)) != NULL) {
		struct in_addr ia = { htonl(*a) };
		char ab[20];

		inet_ntop(AF_INET, &ia, ab, sizeof(ab));
		door_reply(q, 403, "box door: %s resolves to %s (%s); the "
		    "door goes only to public addresses", s->host, ab, what);
		return -1;
	}
	return 0;
}

static void
forward(struct door_req *q, const struct secret *s, const char *rest)
{
	struct relay rl;
	struct tls_conn *t;
	char why[160], *head;
	uint32_t a;
	int fd, n, rc;

	if (resolve(q, s, &a) < 0)
		return;
	memset(&rl, 0, sizeof(rl));
	rl.deadline = clock_ms() + DOOR_UP_MS;
	if ((fd = connect_to(a, s->port, rl.deadline)) < 0) {
		door_reply(q, 502, "box door: %s did not answer", s->host);
		return;
	}
	t = malloc(sizeof(*t));
	head = malloc(DH_HEADMAX + 1024);
	rl.rh = malloc(DH_HEADMAX);
	if (t == NULL || head == NULL || rl.rh == NULL) {
		door_reply(q, 503, "box door: out of memory");
		goto out;
	}
	if (tls_start(t, fd, q->ta, s->host, rl.deadline, why,
	    sizeof(why)) < 0) {
		door_reply(q, 502, "box door: %s", why);
		goto out;
	}
	rl.q = q;
	rl.t = t;
	rl.s = s;
	rl.body_left = q->r.has_len ? q->r.len : 0;
	rl.body_open = q->r.chunked || rl.body_left > 0;
	n = upstream_head(q, s, rest, head, DH_HEADMAX + 1024);
	rc = n < 0 ? n : tls_write(t, head, (size_t)n, rl.deadline);
	explicit_bzero(head, DH_HEADMAX + 1024);
	if (rc == 0 && q->have > q->r.head_len)
		rc = body_to_upstream(&rl, q->head + q->r.head_len,
		    q->have - q->r.head_len);
	if (rc == 0)
		rc = relay(&rl);
	if (rc < 0 && !rl.head_done && q->use.status == 0)
		door_reply(q, 502, "box door: the exchange with %s failed (%s)",
		    s->host, err_str(rc));
out:
	close(fd);
	if (t != NULL)
		explicit_bzero(t, sizeof(*t));	/* the session's keys */
	free(t);
	free(head);
	free(rl.rh);
}

void
door_proxy(struct door_req *q)
{
	char name[SECRET_NAMEMAX + 1], rest[DH_LINEMAX + 2];
	struct secret *s;
	struct box_err le;

	if (split_target(&q->r, name, rest, sizeof(rest)) < 0) {
		door_reply(q, 404, "box door: /s/<secret>/<path>");
		return;
	}
	snprintf(q->use.secret, sizeof(q->use.secret), "%s", name);
	log_path(rest, q->use.path, sizeof(q->use.path));
	if (!q->all_granted && !secret_grants_has(q->grants, name)) {
		door_reply(q, 403, "box door: %s is not granted %s (on the "
		    "host: box secret grant %s %s)", q->box, name, q->box,
		    name);
		return;
	}
	if ((s = malloc(sizeof(*s))) == NULL) {
		door_reply(q, 503, "box door: out of memory");
		return;
	}
	err_clear(&le);
	if (secret_load(q->conf->store, name, s, &le) < 0) {
		door_reply(q, 404, "box door: no secret %s on the host", name);
	} else {
		snprintf(q->use.host, sizeof(q->use.host), "%s", s->host);
		forward(q, s, rest);
	}
	explicit_bzero(s, sizeof(*s));
	free(s);
}
