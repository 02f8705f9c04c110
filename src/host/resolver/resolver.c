/*
 * resolver.c - box's own resolver for boxes: one thread answers (epoll
 * over the UDP and TCP listeners, the upstream sockets and the TCP
 * connections), one reads the box table from the daemon (see
 * resolver.h).
 */
#include "host/resolver/resolver.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "host/resolver/answer.h"
#include "host/resolver/feeder.h"
#include "host/stack/resolver_unit.h"
#include "model/ip4text.h"
#include "net/nl.h"
#include "net/rtnl.h"
#include "util/clock.h"

#define NUPSOCK		4		/* upstream sockets (source ports) */
#define RING		65536		/* try deadlines, in order */
#define TCP_QMAX	4096		/* a query over TCP, octets */
#define NCLIENT		258		/* the /24's hosts, the bench, the host */
#define CL_BENCH	256
#define CL_HOST		257		/* the gateway itself: liveness only */
#define LOG_PER_S	20		/* refusal lines a box may cause */
#define EV_UDP		0xffff0001u
#define EV_TCP		0xffff0002u
#define EV_SIG		0xffff0003u
#define EV_FEED		0xffff0004u
#define EV_UP		0xffff0100u	/* + socket */
#define EV_UPTCP	0xffff0200u	/* + upstream TCP connection */

struct client {
	int inflight, tcp, uptcp;
	int64_t tokens;			/* milli-queries */
	uint64_t last_ms;
	uint64_t log_ms;
	int log_n;
	unsigned long suppressed, dropped;
};

/* The box table: boxes and, per host octet, which (-1 none, -2 two). */
struct tab {
	struct rsv_box *v;
	size_t n;
	int idx[256];
	uint32_t kick;		/* the last kick asked before it was read */
	uint32_t host[RSV_MAXHOST];	/* the host's own addresses */
	size_t nhost;
};

/*
 * A kick (RSVD_KICK_NAME, asked by the host after `box egress` changed a
 * policy): answered once a table read after it arrived, so the change
 * holds in the resolver when `box egress` returns.
 */
#define NKICK		4
#define KICK_MS		3000
struct kick {
	int used;
	uint32_t seq;
	uint64_t t;
	struct dns_query q;
	struct sockaddr_in from;
	int conn;
	uint32_t conn_gen;
};

struct pend {
	int used;
	uint32_t gen;
	int cl;				/* client index */
	char box[64];			/* who asked */
	int allow;			/* its policy was allow */
	struct dns_query q;
	int sock, up, tries;
	int mapped;			/* idmap[sock][up_id] names it */
	int uptcp;			/* asked again over TCP: conn + 1 */
	int tc_tried;
	int feeding;			/* answered, held for the feeder */
	uint16_t up_id;
	int conn;			/* -1: UDP to from */
	uint32_t conn_gen;
	struct sockaddr_in from;
};

struct conn {
	int fd;				/* -1: free */
	int cl;
	uint32_t gen;
	struct sockaddr_in peer;
	uint64_t idle, life;
	size_t have;
	unsigned char buf[2 + TCP_QMAX];
};

/* A query from an address no box held when it came: kept until the next
 * table (a box minted since the last read asks at once), at most
 * PARK_MS. */
#define NPARK		64
#define PARK_MS		2000
#define PARK_QMAX	512
struct parked {
	int used;
	uint64_t t;
	uint32_t src;
	struct sockaddr_in from;
	int conn;
	uint32_t conn_gen;
	size_t n;
	unsigned char m[PARK_QMAX];
};

/*
 * A truncated answer (TC) is asked again of the same upstream over TCP
 * (RFC 7766): one connection per query, RSV_UPTCP at once (RSV_UPTCP_BOX
 * per box), within the query's try deadline; the answer is read whole
 * (a two-octet length, at most DNS_MAXMSG) and judged like a UDP one.
 */
struct uptcp {
	int fd;				/* -1: free */
	int slot;			/* the pend */
	uint32_t gen;			/* its gen when asked */
	int sent;			/* the query is written */
	size_t have;
	unsigned char *buf;		/* 2 + DNS_MAXMSG */
};

struct ring_ent {
	uint32_t slot, gen;
	uint64_t deadline;
};

struct rsv {
	const struct rsv_conf *c;
	int ep, udp, tcp, sig, up[NUPSOCK];
	struct client cl[NCLIENT];
	struct pend *pend;
	int *freepend, nfree;
	uint16_t (*idmap)[65536];	/* slot + 1, per socket */
	struct ring_ent *ring;
	size_t rhead, rtail;
	struct conn *conn;
	struct uptcp uptcp[RSV_UPTCP];
	unsigned char *uptcp_mem;
	struct parked park[NPARK];
	int nparked;
	struct tab *tab;
	uint64_t now, last_sweep, last_req;
	uint64_t rng;
	struct rsv_box bench;
	struct rsv_feeder *feeder;	/* NULL: no feed */
	struct dns_query vq;		/* the host's view question's */
	int feed_ev;
	unsigned char fin[DNS_HDRLEN + DNS_NAME_WIRE + 4 + 11 + 6 +
	    DNS_EDE_TEXTMAX];		/* a TC answer of our own */
	/* shared with the refresher */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct tab *next;
	int want, stop, have_next;
	uint32_t kick_seq;		/* kicks asked so far */
	struct kick kick[NKICK];
	unsigned char out[DNS_MAXMSG + 2];
	unsigned char in[DNS_MAXMSG + 2];
};

static void unpark(struct rsv *r, int all);
static void kicks_answer(struct rsv *r, int expired);

static void
tab_free(struct tab *t)
{
	if (t != NULL) {
		free(t->v);
		free(t);
	}
}

static struct tab *
tab_build(const struct rsv_conf *c, struct rsv_box *v, size_t n)
{
	struct tab *t = calloc(1, sizeof(*t));
	size_t i;

	if (t == NULL) {
		free(v);
		return NULL;
	}
	t->v = v;
	t->n = n;
	for (i = 0; i < 256; i++)
		t->idx[i] = -1;
	for (i = 0; i < n; i++) {
		unsigned h = v[i].addr & 255u;

		if ((v[i].addr & 0xffffff00u) != c->net)
			continue;
		/* Two boxes pinned to one address: neither is answered. */
		t->idx[h] = t->idx[h] == -1 ? (int)i : -2;
	}
	return t;
}

/* --- the refresher ------------------------------------------------------ */

/* The host's own IPv4 addresses (no answer may point a box at them):
 * their count, 0 when the kernel would not say. */
static size_t
host_addrs(uint32_t *v, size_t max)
{
	struct rtnl_addr4 a[RSV_MAXHOST];
	struct nl_sock s;
	struct box_err e;
	int n, i;
	size_t k = 0;

	if (nl_open(&s, NETLINK_ROUTE, &e) < 0)
		return 0;
	n = rtnl_addrs4(&s, a, RSV_MAXHOST, &e);
	nl_close(&s);
	for (i = 0; i < n && k < max; i++)
		v[k++] = ntohl(a[i].addr.s_addr);
	return k;
}

static void *
refresher(void *arg)
{
	struct rsv *r = arg;
	struct timespec ts;
	uint32_t kick;
	int failing = 0;

	for (;;) {
		struct rsv_box *v;
		struct box_err e;
		struct tab *t;
		size_t n;

		pthread_mutex_lock(&r->mu);
		while (!r->want && !r->stop) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += RSV_REFRESH_MS / 1000;
			if (pthread_cond_timedwait(&r->cv, &r->mu, &ts) ==
			    ETIMEDOUT)
				break;
		}
		r->want = 0;
		if (r->stop) {
			pthread_mutex_unlock(&r->mu);
			return NULL;
		}
		kick = r->kick_seq;	/* this read starts after these */
		pthread_mutex_unlock(&r->mu);
		err_clear(&e);
		if (rsv_gather(r->c->bridge, &v, &n, &e) < 0) {
			/* Keep the table we have: a daemon restarting does
			 * not take DNS from the boxes it already named. */
			if (!failing)
				fprintf(stderr, "box resolver: reading the boxes "
				    "failed: %s (keeping the last table)\n",
				    e.msg);
			failing = 1;
			continue;
		}
		if (failing)
			fprintf(stderr, "box resolver: the daemon answers "
			    "again (%zu boxes)\n", n);
		failing = 0;
		if ((t = tab_build(r->c, v, n)) == NULL)
			continue;
		t->kick = kick;
		t->nhost = host_addrs(t->host, RSV_MAXHOST);
		pthread_mutex_lock(&r->mu);
		tab_free(r->next);
		r->next = t;
		__atomic_store_n(&r->have_next, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&r->mu);
	}
}

/* Ask for a fresh table, at most once every RSV_REREAD_MS (a kick and
 * SIGHUP clear last_req first: they are the host's, and read at once). */
static void
want_refresh(struct rsv *r)
{
	if (r->now - r->last_req < RSV_REREAD_MS && r->last_req != 0)
		return;
	r->last_req = r->now;
	pthread_mutex_lock(&r->mu);
	r->want = 1;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

static int
pol_same(const struct egress *a, const struct egress *b)
{
	int i;

	if (a->mode != b->mode || a->n != b->n)
		return 0;
	for (i = 0; i < a->n && i < EGRESS_MAXPAT; i++)
		if (strcmp(a->pat[i], b->pat[i]) != 0)
			return 0;
	return 1;
}

/*
 * A new table: a box whose policy, MAC or address changed loses its
 * mirror; a table read for a kick (`box egress` replaced the sets)
 * loses every box's.
 */
static void
mirrors_check(struct rsv *r, const struct tab *o, const struct tab *t)
{
	int h;

	if (o == NULL || t->kick != o->kick) {
		rsv_feeder_forget(r->feeder, -1);
		return;
	}
	for (h = 0; h < 256; h++) {
		const struct rsv_box *a, *b;

		if (o->idx[h] < 0)
			continue;
		a = &o->v[o->idx[h]];
		b = t->idx[h] >= 0 ? &t->v[t->idx[h]] : NULL;
		if (b == NULL || strcmp(a->name, b->name) != 0 ||
		    memcmp(a->mac, b->mac, 6) != 0 || a->addr != b->addr ||
		    !pol_same(&a->pol, &b->pol))
			rsv_feeder_forget(r->feeder, h);
	}
}

static void
take_table(struct rsv *r)
{
	struct tab *t;

	if (!__atomic_load_n(&r->have_next, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&r->mu);
	t = r->next;
	r->next = NULL;
	r->have_next = 0;
	pthread_mutex_unlock(&r->mu);
	if (t != NULL) {
		if (r->feeder != NULL)
			mirrors_check(r, r->tab, t);
		tab_free(r->tab);
		r->tab = t;
		unpark(r, 1);
		kicks_answer(r, 0);
	}
}

/* --- small things --------------------------------------------------------- */

static uint64_t
rnd(struct rsv *r)
{
	/* xorshift64*, seeded from getrandom: ids and source sockets an
	 * off-path spoofer cannot predict from our earlier queries. */
	r->rng ^= r->rng >> 12;
	r->rng ^= r->rng << 25;
	r->rng ^= r->rng >> 27;
	return r->rng * 0x2545f4914f6cdd1dull;
}

/* The client index of a source, or -1 (never answered). */
static int
client_of(const struct rsv *r, uint32_t src)
{
	unsigned h = src & 255u;

	if (src == r->c->listen)
		return CL_HOST;
	if ((src & 0xffffff00u) == r->c->net)
		return h == 0 || h == 255 ? -1 : (int)h;
	if (r->c->open_plen > 0 && ((src ^ r->c->open_net) &
	    (0xffffffffu << (32 - r->c->open_plen))) == 0)
		return CL_BENCH;
	return -1;
}

static const struct rsv_box *
box_of(const struct rsv *r, int cl)
{
	if (cl == CL_BENCH)
		return &r->bench;
	if (r->tab == NULL || r->tab->idx[cl] < 0)
		return NULL;
	return &r->tab->v[r->tab->idx[cl]];
}

/* One token of cl's bucket: 1 taken, 0 over its rate. */
static int
take_token(struct rsv *r, struct client *k)
{
	int64_t cap = (int64_t)r->c->qps * 2000;

	if (r->c->qps <= 0)
		return 1;
	if (k->last_ms == 0)
		k->tokens = cap;
	else
		k->tokens += (int64_t)(r->now - k->last_ms) * r->c->qps;
	k->last_ms = r->now;
	if (k->tokens > cap)
		k->tokens = cap;
	if (k->tokens < 1000)
		return 0;
	k->tokens -= 1000;
	return 1;
}

static void
log_refusal(struct rsv *r, int cl, const struct rsv_box *b,
    uint32_t src, const struct dns_query *q, const char *why)
{
	struct client *k = &r->cl[cl];
	char ip[20];

	if (r->now - k->log_ms >= 1000) {
		if (k->suppressed)
			fprintf(stderr, "box resolver: %lu more refusals "
			    "for %s not logged\n", k->suppressed,
			    b != NULL ? b->name : "that source");
		k->log_ms = r->now;
		k->log_n = 0;
		k->suppressed = 0;
	}
	if (k->log_n++ >= LOG_PER_S) {
		k->suppressed++;
		return;
	}
	ip4_fmt(src, ip, sizeof(ip));
	fprintf(stderr, "box resolver: refused box=%s addr=%s name=%s "
	    "type=%u class=%u: %s\n", b != NULL ? b->name : "-", ip,
	    q->q.name, q->q.type, q->q.cls, why);
}

/* --- sending to a client ---------------------------------------------------- */

static void conn_close(struct rsv *r, int i);

static void
send_client(struct rsv *r, int conn, uint32_t conn_gen,
    const struct sockaddr_in *to, const unsigned char *m, size_t n)
{
	if (conn < 0) {
		(void)sendto(r->udp, m, n, MSG_DONTWAIT, (const void *)to,
		    sizeof(*to));
		return;
	}
	{
		struct conn *k = &r->conn[conn];
		unsigned char len[2] = { (unsigned char)(n >> 8),
		    (unsigned char)n };
		ssize_t w;

		if (k->fd < 0 || k->gen != conn_gen)
			return;		/* gone meanwhile */
		/* The length and the message in one write; a client that
		 * does not read its answers loses its connection. */
		memmove(r->out + 2, m, n);
		memcpy(r->out, len, 2);
		w = send(k->fd, r->out, n + 2, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w != (ssize_t)(n + 2))
			conn_close(r, conn);
	}
}

/* --- upstream ------------------------------------------------------------------ */

static void
ring_push(struct rsv *r, int slot)
{
	struct ring_ent *e = &r->ring[r->rtail % RING];

	e->slot = (uint32_t)slot;
	e->gen = r->pend[slot].gen;
	e->deadline = r->now + RSV_TRY_MS;	/* a try's, or a feed's */
	r->rtail++;
}

static void
uptcp_close(struct rsv *r, int i)
{
	struct uptcp *t = &r->uptcp[i];
	struct pend *p;

	if (t->fd < 0)
		return;
	epoll_ctl(r->ep, EPOLL_CTL_DEL, t->fd, NULL);
	close(t->fd);
	t->fd = -1;
	p = &r->pend[t->slot];
	if (p->used && p->gen == t->gen && p->uptcp == i + 1) {
		p->uptcp = 0;
		r->cl[p->cl].uptcp--;
	}
}

static void
unmap(struct rsv *r, struct pend *p)
{
	if (p->mapped)
		r->idmap[p->sock][p->up_id] = 0;
	p->mapped = 0;
}

static void
pend_free(struct rsv *r, int slot)
{
	struct pend *p = &r->pend[slot];

	if (!p->used)
		return;
	unmap(r, p);
	if (p->uptcp > 0)
		uptcp_close(r, p->uptcp - 1);
	r->cl[p->cl].inflight--;
	p->used = 0;
	p->feeding = 0;
	p->gen++;
	r->freepend[r->nfree++] = slot;
}

/* Send p's query to its upstream: 0, or -1 (nothing sent). */
static int
send_up(struct rsv *r, int slot)
{
	struct pend *p = &r->pend[slot];
	unsigned char q[DNS_HDRLEN + DNS_NAME_WIRE + 4 + 11];
	struct sockaddr_in to;
	int len, tries;
	uint16_t id;

	if (r->rtail - r->rhead >= RING)
		return -1;
	p->sock = (int)(rnd(r) % NUPSOCK);
	for (tries = 0; tries < 64; tries++) {
		id = (uint16_t)rnd(r);
		if (r->idmap[p->sock][id] == 0)
			break;
	}
	if (tries == 64)
		return -1;
	p->up_id = id;
	if ((len = dns_build_query(&p->q, id, q, sizeof(q))) < 0)
		return -1;
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(r->c->up[p->up]);
	to.sin_port = htons(r->c->up_port[p->up]);
	r->idmap[p->sock][id] = (uint16_t)(slot + 1);
	p->mapped = 1;
	(void)sendto(r->up[p->sock], q, (size_t)len, MSG_DONTWAIT,
	    (const void *)&to, sizeof(to));
	ring_push(r, slot);
	return 0;
}

static void
reply_own(struct rsv *r, const struct dns_query *q, int with_q,
    unsigned flags, int rcode, int ede, const char *text, int conn,
    uint32_t conn_gen, const struct sockaddr_in *to)
{
	unsigned char m[DNS_HDRLEN + DNS_NAME_WIRE + 4 + 11 + 6 +
	    DNS_EDE_TEXTMAX];
	int len;

	len = dns_build_reply(q, with_q, flags, rcode, ede, text, m,
	    sizeof(m));
	if (len > 0)
		send_client(r, conn, conn_gen, to, m, (size_t)len);
}

/* Remove the OPT record of an answer (the last of the additional
 * section, where every server puts it) for a client that sent none. */
static size_t
strip_opt(unsigned char *m, size_t n)
{
	struct dns_hdr h;
	struct dns_rr rr;
	size_t off = DNS_HDRLEN, start = 0;
	unsigned i, total;

	if (dns_hdr_read(m, n, &h) < 0 || h.ar == 0)
		return n;
	for (i = 0; i < h.qd; i++) {
		char t[DNS_NAME_TEXT];

		if (dns_name_read(m, n, &off, t, sizeof(t), NULL, NULL,
		    NULL) < 0 || off + 4 > n)
			return n;
		off += 4;
	}
	total = (unsigned)h.an + h.ns + h.ar;
	for (i = 0; i < total; i++) {
		start = off;
		if (dns_rr_read(m, n, &off, &rr) < 0)
			return n;
	}
	if (rr.type != DNS_T_OPT || off != n)
		return n;
	h.ar--;
	m[10] = (unsigned char)(h.ar >> 8);
	m[11] = (unsigned char)h.ar;
	return start;
}

/* The box a pend's answer feeds, as the table has it now (its policy
 * may have changed since the query left), or NULL: nothing to feed. */
static const struct rsv_box *
feeds(const struct rsv *r, const struct pend *p, const struct dns_answer *a)
{
	const struct rsv_box *b;
	int i;

	if (!p->allow || (r->feeder == NULL && r->c->feed_inline == NULL) ||
	    a->naddr == 0 || a->rcode != 0 ||
	    p->cl == CL_BENCH || r->tab == NULL ||
	    (i = r->tab->idx[p->cl]) < 0)
		return NULL;
	b = &r->tab->v[i];
	if (strcmp(b->name, p->box) != 0 || !rsv_allowed(b, p->q.q.name))
		return NULL;
	return b;
}

/* An answer naming an address the box may not reach: refused (1), or
 * its TTLs normalised (0), or malformed (-1: SERVFAIL sent). */
static int
fenced(struct rsv *r, int slot, unsigned char *m, size_t n)
{
	struct pend *p = &r->pend[slot];
	struct rsv_fence f;
	const char *what = NULL;
	uint32_t bad;
	char ip[IP4_TEXT_MAX], text[DNS_EDE_TEXTMAX + 1];
	int rc;

	memset(&f, 0, sizeof(f));
	f.net = r->c->net;
	if (r->tab != NULL) {
		memcpy(f.host, r->tab->host, sizeof(f.host));
		f.nhost = r->tab->nhost;
	}
	rc = rsv_answer_fix(m, n, r->c->view ? &f : NULL, RSV_TTL, &bad,
	    &what);
	if (rc == 0)
		return 0;
	if (rc < 0) {
		reply_own(r, &p->q, 1, 0, DNS_R_SERVFAIL, -1, NULL, p->conn,
		    p->conn_gen, &p->from);
		return -1;
	}
	ip4_fmt(bad, ip, sizeof(ip));
	snprintf(text, sizeof(text), "the answer points %.90s at %s, %s: "
	    "boxes are never pointed at an address they may not reach",
	    p->q.q.name, ip, what);
	reply_own(r, &p->q, 1, 0, DNS_R_NXDOMAIN, DNS_EDE_BLOCKED, text,
	    p->conn, p->conn_gen, &p->from);
	log_refusal(r, p->cl, box_of(r, p->cl), ntohl(p->from.sin_addr.s_addr),
	    &p->q, "rebinding");
	return 1;
}

static int uptcp_start(struct rsv *r, int slot);

/* An answer a has been parsed for pend slot from m[0..n): judged, its
 * TTLs normalised, given the client's id; then sent to its client and
 * the slot freed, or held for the feeder (answered later, in fed()). */
static void
answered(struct rsv *r, int slot, unsigned char *m, size_t n,
    const struct dns_answer *a)
{
	struct pend *p = &r->pend[slot];
	const struct rsv_box *b;
	size_t cap;
	int len, rc;

	if (fenced(r, slot, m, n) != 0) {
		pend_free(r, slot);
		return;
	}
	m[0] = (unsigned char)(p->q.h.id >> 8);
	m[1] = (unsigned char)p->q.h.id;
	if (!p->q.edns)
		n = strip_opt(m, n);
	cap = p->conn < 0 ? p->q.udp : DNS_MAXMSG;
	if (n > cap) {
		len = dns_build_reply(&p->q, 1, DNS_F_TC, a->rcode & 15, -1,
		    NULL, r->fin, sizeof(r->fin));
		if (len <= 0) {
			pend_free(r, slot);
			return;
		}
		m = r->fin;
		n = (size_t)len;
	}
	if ((b = feeds(r, p, a)) != NULL && r->c->feed_inline != NULL) {
		(void)r->c->feed_inline(b, p->q.q.name, a->a, a->naddr);
	} else if (b != NULL) {
		p->gen++;	/* the try's deadline is void: the feed's */
		rc = rsv_feeder_put(r->feeder, p->cl, b, p->q.q.name, a->a,
		    a->naddr, m, n, slot, p->gen, r->now);
		if (rc == 1) {
			p->feeding = 1;
			unmap(r, p);
			ring_push(r, slot);
			return;
		}
		if (rc < 0) {
			/* Over the box's feed queue: dropped unanswered,
			 * as any query over its budget. */
			r->cl[p->cl].dropped++;
			pend_free(r, slot);
			return;
		}
	}
	send_client(r, p->conn, p->conn_gen, &p->from, m, n);
	pend_free(r, slot);
}

/* The feeder's finished jobs: each held answer sent (SERVFAIL when its
 * addresses could not be fed), its query freed. */
static void
fed(struct rsv *r)
{
	const unsigned char *m;
	struct rsv_fed d;
	struct pend *p;
	size_t n;

	while (rsv_feeder_done(r->feeder, &d, &m, &n, r->now) == 1) {
		p = &r->pend[d.slot];
		if (!p->used || p->gen != d.gen || !p->feeding)
			continue;	/* timed out meanwhile */
		if (d.ok)
			send_client(r, p->conn, p->conn_gen, &p->from, m, n);
		else
			reply_own(r, &p->q, 1, 0, DNS_R_SERVFAIL, -1, NULL,
			    p->conn, p->conn_gen, &p->from);
		pend_free(r, d.slot);
	}
}

static void
upstream_answer(struct rsv *r, int sock, unsigned char *m, size_t n,
    const struct sockaddr_in *from)
{
	struct dns_answer a;
	struct pend *p;
	uint16_t id;
	int slot;

	if (n < DNS_HDRLEN)
		return;
	id = (uint16_t)(m[0] << 8 | m[1]);
	if ((slot = (int)r->idmap[sock][id] - 1) < 0)
		return;
	p = &r->pend[slot];
	if (!p->used || p->sock != sock || p->uptcp > 0 ||
	    from->sin_addr.s_addr != htonl(r->c->up[p->up]) ||
	    from->sin_port != htons(r->c->up_port[p->up]))
		return;
	if (dns_answer_parse(m, n, &p->q.q, id, &a) < 0)
		return;		/* not the answer: keep waiting */
	/* Truncated: the whole answer over TCP, once; with no connection
	 * to spare, the client is told TC and asks over TCP itself. */
	if ((a.h.flags & DNS_F_TC) && r->c->tcp_retry && !p->tc_tried &&
	    uptcp_start(r, slot) == 0)
		return;
	answered(r, slot, m, n, &a);
}

/* Ask pend slot's query of its upstream over TCP: 0, or -1 (nothing
 * changed). */
static int
uptcp_start(struct rsv *r, int slot)
{
	struct pend *p = &r->pend[slot];
	struct sockaddr_in to;
	struct epoll_event ev;
	struct uptcp *t;
	int i, fd, len, tries;
	uint16_t id;

	if (r->cl[p->cl].uptcp >= RSV_UPTCP_BOX)
		return -1;
	for (i = 0; i < RSV_UPTCP; i++)
		if (r->uptcp[i].fd < 0)
			break;
	if (i == RSV_UPTCP || r->rtail - r->rhead >= RING)
		return -1;
	t = &r->uptcp[i];
	for (tries = 0, id = 0; tries < 64; tries++) {
		id = (uint16_t)rnd(r);
		if (id != p->up_id)
			break;
	}
	if ((len = dns_build_query(&p->q, id, t->buf + 2, DNS_MAXMSG)) < 0)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(r->c->up[p->up]);
	to.sin_port = htons(r->c->up_port[p->up]);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLOUT;
	ev.data.u32 = EV_UPTCP + (uint32_t)i;
	if ((connect(fd, (void *)&to, sizeof(to)) < 0 &&
	    errno != EINPROGRESS) ||
	    epoll_ctl(r->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		return -1;
	}
	t->buf[0] = (unsigned char)(len >> 8);
	t->buf[1] = (unsigned char)len;
	t->have = (size_t)len + 2;	/* to send, until sent */
	t->sent = 0;
	t->fd = fd;
	unmap(r, p);		/* a late UDP copy is no longer ours */
	p->up_id = id;
	p->gen++;		/* the UDP try's deadline is void */
	p->tc_tried = 1;
	p->uptcp = i + 1;
	r->cl[p->cl].uptcp++;
	t->slot = slot;
	t->gen = p->gen;
	ring_push(r, slot);	/* this try's deadline */
	return 0;
}

/* The TCP connection i is ready: the query written, or answer octets in. */
static void
uptcp_in(struct rsv *r, int i)
{
	struct uptcp *t = &r->uptcp[i];
	struct pend *p = &r->pend[t->slot];
	struct dns_answer a;
	struct epoll_event ev;
	socklen_t sl = sizeof(int);
	size_t len;
	ssize_t n;
	int err = 0, slot = t->slot;

	if (!p->used || p->gen != t->gen) {
		uptcp_close(r, i);
		return;
	}
	if (!t->sent) {
		if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0 ||
		    err != 0 || send(t->fd, t->buf, t->have, MSG_DONTWAIT |
		    MSG_NOSIGNAL) != (ssize_t)t->have)
			goto fail;
		t->sent = 1;
		t->have = 0;
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.u32 = EV_UPTCP + (uint32_t)i;
		if (epoll_ctl(r->ep, EPOLL_CTL_MOD, t->fd, &ev) < 0)
			goto fail;
		return;
	}
	n = recv(t->fd, t->buf + t->have, 2 + DNS_MAXMSG - t->have,
	    MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0)
		goto fail;
	t->have += (size_t)n;
	if (t->have < 2)
		return;
	len = (size_t)t->buf[0] << 8 | t->buf[1];
	if (len < DNS_HDRLEN || len > DNS_MAXMSG)
		goto fail;
	if (t->have < 2 + len)
		return;
	if (t->have != 2 + len ||
	    dns_answer_parse(t->buf + 2, len, &p->q.q, p->up_id, &a) < 0)
		goto fail;
	uptcp_close(r, i);
	answered(r, slot, t->buf + 2, len, &a);
	return;
fail:
	uptcp_close(r, i);
	reply_own(r, &p->q, 1, 0, DNS_R_SERVFAIL, -1, NULL, p->conn,
	    p->conn_gen, &p->from);
	pend_free(r, slot);
}

static void
expire(struct rsv *r)
{
	while (r->rhead != r->rtail) {
		struct ring_ent *e = &r->ring[r->rhead % RING];
		struct pend *p = &r->pend[e->slot];
		int slot = (int)e->slot;

		if (p->used && p->gen == e->gen && e->deadline > r->now)
			break;
		r->rhead++;
		if (!p->used || p->gen != e->gen)
			continue;	/* answered meanwhile */
		unmap(r, p);
		if (!p->feeding && p->uptcp == 0 && ++p->tries < RSV_TRIES) {
			p->up = (p->up + 1) % r->c->nup;
			p->gen++;
			if (send_up(r, slot) == 0)
				continue;
		}
		reply_own(r, &p->q, 1, 0, DNS_R_SERVFAIL, -1, NULL, p->conn,
		    p->conn_gen, &p->from);
		pend_free(r, slot);
	}
}

/* --- a query ------------------------------------------------------------------ */

/* Keep a query from an unknown source for the next table: 1 kept. */
static int
park(struct rsv *r, const unsigned char *m, size_t n, uint32_t src,
    const struct sockaddr_in *from, int conn, uint32_t cgen)
{
	int i;

	if (n > PARK_QMAX)
		return 0;
	for (i = 0; i < NPARK; i++)
		if (!r->park[i].used)
			break;
	if (i == NPARK)
		return 0;
	r->park[i].used = 1;
	r->park[i].t = r->now;
	r->park[i].src = src;
	if (from != NULL)
		r->park[i].from = *from;
	r->park[i].conn = conn;
	r->park[i].conn_gen = cgen;
	r->park[i].n = n;
	memcpy(r->park[i].m, m, n);
	r->nparked++;
	return 1;
}

static void query_as(struct rsv *r, const unsigned char *m, size_t n,
    uint32_t src, const struct sockaddr_in *from, int conn, int replay);

/* A new table came (all), or time passed (only the expired): answer the
 * parked queries; a source still unknown is refused now. */
static void
unpark(struct rsv *r, int all)
{
	int i;

	for (i = 0; i < NPARK && r->nparked > 0; i++) {
		struct parked *k = &r->park[i];

		if (!k->used || (!all && r->now - k->t < PARK_MS))
			continue;
		k->used = 0;
		r->nparked--;
		if (k->conn >= 0 && (r->conn[k->conn].fd < 0 ||
		    r->conn[k->conn].gen != k->conn_gen))
			continue;
		query_as(r, k->m, k->n, k->src, &k->from, k->conn, 1);
	}
}

/* Park the host's kick and ask for a table read after it. */
static void
kick_park(struct rsv *r, const struct dns_query *q,
    const struct sockaddr_in *from, int conn, uint32_t cgen)
{
	struct kick *k = NULL;
	int i;

	for (i = 0; i < NKICK && k == NULL; i++)
		if (!r->kick[i].used)
			k = &r->kick[i];
	if (k == NULL) {
		reply_own(r, q, 1, 0, DNS_R_SERVFAIL, -1, NULL, conn, cgen,
		    from);
		return;
	}
	k->used = 1;
	k->t = r->now;
	k->q = *q;
	k->conn = conn;
	k->conn_gen = cgen;
	memset(&k->from, 0, sizeof(k->from));
	if (from != NULL)
		k->from = *from;
	pthread_mutex_lock(&r->mu);
	k->seq = ++r->kick_seq;
	pthread_mutex_unlock(&r->mu);
	r->last_req = 0;
	want_refresh(r);
}

/* Answer the kicks the table covers (REFUSED, the host's usual, with
 * the text saying it was read), and, with expired, SERVFAIL the ones
 * no read covered within KICK_MS (the daemon did not answer). */
static void
kicks_answer(struct rsv *r, int expired)
{
	int i;

	for (i = 0; i < NKICK; i++) {
		struct kick *k = &r->kick[i];
		int done = r->tab != NULL &&
		    (int32_t)(r->tab->kick - k->seq) >= 0;

		if (!k->used || (!done && !(expired &&
		    r->now - k->t >= KICK_MS)))
			continue;
		k->used = 0;
		if (k->conn >= 0 && (r->conn[k->conn].fd < 0 ||
		    r->conn[k->conn].gen != k->conn_gen))
			continue;
		reply_own(r, &k->q, 1, 0, done ? DNS_R_REFUSED :
		    DNS_R_SERVFAIL, DNS_EDE_PROHIBITED, done ? RSVD_HOST_TEXT
		    "; the boxes were read again" : RSVD_HOST_TEXT "; the "
		    "boxes could not be read", k->conn, k->conn_gen,
		    k->from.sin_family != 0 ? &k->from : NULL);
	}
}

/*
 * The host's view question (view.h, rsv_view_ask): the verdict the box
 * at that octet would get for the name, as the table has it now; never
 * asked upstream (a forward is said in an EDE).  Only the gateway's own
 * address asks it, so no box can answer it in the resolver's place (as
 * it could a question asked from inside its namespace).  1 answered.
 */
static int
host_view(struct rsv *r, const struct dns_query *q,
    const struct sockaddr_in *from, int conn, uint32_t cgen)
{
	struct dns_query *vq = &r->vq;
	const struct rsv_box *b;
	struct rsv_verdict v;
	const char *s;
	unsigned o;

	if (rsv_view_ask(q->q.name, &o, vq->q.name, sizeof(vq->q.name)) < 0)
		return 0;
	vq->h = q->h;
	vq->q.type = q->q.type;
	vq->q.cls = q->q.cls;
	for (vq->q.labels = 1, s = vq->q.name; *s != '\0'; s++)
		vq->q.labels += *s == '.';
	b = box_of(r, (int)o);
	if (b == NULL || r->c->view) {
		rsv_view(b, vq, &v);
	} else {
		memset(&v, 0, sizeof(v));
		v.act = RSV_FORWARD;
	}
	if (v.act == RSV_FORWARD) {
		v.ede = DNS_EDE_OTHER;
		snprintf(v.text, sizeof(v.text), "box %s: forwarded to the "
		    "upstreams", b->name);
	}
	reply_own(r, q, 1, 0, v.rcode, v.ede, v.text, conn, cgen, from);
	return 1;
}

static void
query(struct rsv *r, const unsigned char *m, size_t n, uint32_t src,
    const struct sockaddr_in *from, int conn)
{
	query_as(r, m, n, src, from, conn, 0);
}

static void
query_as(struct rsv *r, const unsigned char *m, size_t n, uint32_t src,
    const struct sockaddr_in *from, int conn, int replay)
{
	const struct rsv_box *b;
	struct rsv_verdict v;
	struct client *k;
	struct pend *p;
	uint32_t cgen = conn >= 0 ? r->conn[conn].gen : 0;
	int cl, rc, slot;

	if ((cl = client_of(r, src)) < 0)
		return;
	k = &r->cl[cl];
	if (!replay && !take_token(r, k)) {
		k->dropped++;
		return;
	}
	/* p->q is filled in place: no query is copied twice. */
	if (r->nfree == 0 || k->inflight >= r->c->inflight) {
		k->dropped++;
		return;
	}
	slot = r->freepend[r->nfree - 1];
	p = &r->pend[slot];
	rc = dns_query_parse(m, n, &p->q);
	if (rc == -EINVAL)
		return;
	if (rc < 0) {
		reply_own(r, &p->q, 0, 0, DNS_R_FORMERR, -1, NULL, conn, cgen,
		    from);
		return;
	}
	if (cl == CL_HOST && strcasecmp(p->q.q.name, RSVD_KICK_NAME) == 0) {
		kick_park(r, &p->q, from, conn, cgen);
		return;
	}
	if (cl == CL_HOST && host_view(r, &p->q, from, conn, cgen))
		return;
	if (cl == CL_HOST) {
		/* The host asks only whether we answer (unit.h's probe):
		 * it gets no names, so nothing of the boxes' views leaks
		 * to it either. */
		reply_own(r, &p->q, 1, 0, DNS_R_REFUSED, DNS_EDE_PROHIBITED,
		    RSVD_HOST_TEXT "; the host gets no names", conn, cgen,
		    from);
		return;
	}
	b = box_of(r, cl);
	if (b == NULL && !replay) {
		want_refresh(r);
		if (park(r, m, n, src, from, conn, cgen))
			return;
	}
	if (b == NULL || r->c->view)
		rsv_view(b, &p->q, &v);
	else
		v.act = RSV_FORWARD;
	if (v.act == RSV_REFUSE) {
		reply_own(r, &p->q, 1, 0, v.rcode, v.ede, v.text, conn, cgen,
		    from);
		log_refusal(r, cl, b, src, &p->q, v.why);
		if (strcmp(v.why, "not-allowed") == 0)
			want_refresh(r);	/* a policy just widened? */
		return;
	}
	r->nfree--;
	p->used = 1;
	p->cl = cl;
	snprintf(p->box, sizeof(p->box), "%s", b->name);
	p->allow = b->pol.mode == EGRESS_ALLOW;
	p->up = 0;
	p->tries = 0;
	p->mapped = 0;
	p->uptcp = 0;
	p->tc_tried = 0;
	p->feeding = 0;
	p->conn = conn;
	p->conn_gen = cgen;
	if (from != NULL)
		p->from = *from;
	k->inflight++;
	if (send_up(r, slot) < 0) {
		reply_own(r, &p->q, 1, 0, DNS_R_SERVFAIL, -1, NULL, conn, cgen,
		    from);
		pend_free(r, slot);
	}
}

/* --- sockets ------------------------------------------------------------------- */

static int
ep_add(struct rsv *r, int fd, uint32_t tag)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u32 = tag;
	return epoll_ctl(r->ep, EPOLL_CTL_ADD, fd, &ev);
}

static void
udp_in(struct rsv *r)
{
	struct sockaddr_in from;
	socklen_t fl;
	ssize_t n;
	int i;

	for (i = 0; i < 64; i++) {
		fl = sizeof(from);
		n = recvfrom(r->udp, r->in, DNS_MAXMSG, MSG_DONTWAIT,
		    (void *)&from, &fl);
		if (n < 0)
			return;
		if (fl != sizeof(from) || from.sin_family != AF_INET ||
		    ntohs(from.sin_port) == 0)
			continue;
		query(r, r->in, (size_t)n, ntohl(from.sin_addr.s_addr), &from,
		    -1);
	}
}

static void
up_in(struct rsv *r, int sock)
{
	struct sockaddr_in from;
	socklen_t fl;
	ssize_t n;
	int i;

	for (i = 0; i < 64; i++) {
		fl = sizeof(from);
		n = recvfrom(r->up[sock], r->in, DNS_MAXMSG, MSG_DONTWAIT,
		    (void *)&from, &fl);
		if (n < 0)
			return;
		if (fl != sizeof(from))
			continue;
		upstream_answer(r, sock, r->in, (size_t)n, &from);
	}
}

static void
conn_close(struct rsv *r, int i)
{
	struct conn *k = &r->conn[i];

	if (k->fd < 0)
		return;
	epoll_ctl(r->ep, EPOLL_CTL_DEL, k->fd, NULL);
	close(k->fd);
	k->fd = -1;
	k->gen++;
	r->cl[k->cl].tcp--;
}

static void
tcp_accept(struct rsv *r)
{
	struct sockaddr_in from;
	socklen_t fl;
	int fd, i, cl, slot;

	for (i = 0; i < 16; i++) {
		fl = sizeof(from);
		fd = accept4(r->tcp, (void *)&from, &fl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		cl = fl == sizeof(from) ? client_of(r,
		    ntohl(from.sin_addr.s_addr)) : -1;
		if (cl < 0 || r->cl[cl].tcp >= r->c->tcp) {
			if (cl >= 0)
				r->cl[cl].dropped++;
			close(fd);
			continue;
		}
		for (slot = 0; slot < RSV_MAXCONN; slot++)
			if (r->conn[slot].fd < 0)
				break;
		if (slot == RSV_MAXCONN ||
		    ep_add(r, fd, (uint32_t)slot) < 0) {
			close(fd);
			continue;
		}
		r->conn[slot].fd = fd;
		r->conn[slot].cl = cl;
		r->conn[slot].peer = from;
		r->conn[slot].have = 0;
		r->conn[slot].idle = r->now + RSV_TCP_IDLE_MS;
		r->conn[slot].life = r->now + RSV_TCP_LIFE_MS;
		r->cl[cl].tcp++;
	}
}

static void
conn_in(struct rsv *r, int i)
{
	struct conn *k = &r->conn[i];
	ssize_t n;
	size_t len;

	n = recv(k->fd, k->buf + k->have, sizeof(k->buf) - k->have,
	    MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(r, i);
		return;
	}
	k->have += (size_t)n;
	while (k->fd >= 0 && k->have >= 2) {
		len = (size_t)k->buf[0] << 8 | k->buf[1];
		if (len < DNS_HDRLEN || len > TCP_QMAX) {
			conn_close(r, i);
			return;
		}
		if (k->have < 2 + len)
			break;
		k->idle = r->now + RSV_TCP_IDLE_MS;
		query(r, k->buf + 2, len, ntohl(k->peer.sin_addr.s_addr),
		    &k->peer, i);
		if (k->fd < 0)
			return;
		memmove(k->buf, k->buf + 2 + len, k->have - 2 - len);
		k->have -= 2 + len;
	}
}

static void
sweep_conns(struct rsv *r)
{
	int i;

	for (i = 0; i < RSV_MAXCONN; i++)
		if (r->conn[i].fd >= 0 && (r->conn[i].idle <= r->now ||
		    r->conn[i].life <= r->now))
			conn_close(r, i);
}

static int
bound_socket(int type, uint32_t addr, uint16_t port, struct box_err *e)
{
	struct sockaddr_in sa;
	int fd, one = 1;

	fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(e, -errno, "socket: %s", strerror(errno));
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* The gateway's address may not exist yet (the unit starts
	 * before Incus makes the bridge). */
	if (addr != INADDR_ANY)
		(void)setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one,
		    sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(addr);
	sa.sin_port = htons(port);
	if (bind(fd, (void *)&sa, sizeof(sa)) < 0) {
		char ip[20];
		int rc = -errno;

		ip4_fmt(addr, ip, sizeof(ip));
		close(fd);
		err_set(e, rc, "binding %s %s:%u: %s", type == SOCK_DGRAM ?
		    "udp" : "tcp", ip, port, strerror(-rc));
		if (rc == -EADDRINUSE)
			err_fix(e, "something else serves DNS there (Incus's "
			    "dnsmasq without port=0?)");
		return rc;
	}
	if (type == SOCK_STREAM && listen(fd, 128) < 0) {
		int rc = -errno;

		close(fd);
		return err_set(e, rc, "listen: %s", strerror(-rc));
	}
	return fd;
}

static int
setup(struct rsv *r, struct box_err *e)
{
	sigset_t ss;
	size_t i;
	int rc;

	r->ep = r->udp = r->tcp = r->sig = -1;
	for (i = 0; i < NUPSOCK; i++)
		r->up[i] = -1;
	r->pend = calloc(RSV_MAXPEND, sizeof(*r->pend));
	r->freepend = calloc(RSV_MAXPEND, sizeof(*r->freepend));
	r->idmap = calloc(NUPSOCK, sizeof(*r->idmap));
	r->ring = calloc(RING, sizeof(*r->ring));
	r->conn = calloc(RSV_MAXCONN, sizeof(*r->conn));
	r->uptcp_mem = calloc(RSV_UPTCP, 2 + DNS_MAXMSG);
	if (r->pend == NULL || r->freepend == NULL || r->idmap == NULL ||
	    r->ring == NULL || r->conn == NULL || r->uptcp_mem == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < RSV_UPTCP; i++) {
		r->uptcp[i].fd = -1;
		r->uptcp[i].buf = r->uptcp_mem + i * (2 + DNS_MAXMSG);
	}
	for (i = 0; i < RSV_MAXPEND; i++)
		r->freepend[i] = RSV_MAXPEND - 1 - (int)i;
	r->nfree = RSV_MAXPEND;
	for (i = 0; i < RSV_MAXCONN; i++)
		r->conn[i].fd = -1;
	if (getrandom(&r->rng, sizeof(r->rng), 0) != sizeof(r->rng) ||
	    r->rng == 0)
		r->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	snprintf(r->bench.name, sizeof(r->bench.name), "bench");
	r->bench.pol.mode = EGRESS_OPEN;
	if ((r->ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return err_set(e, -errno, "epoll: %s", strerror(errno));
	if ((rc = r->udp = bound_socket(SOCK_DGRAM, r->c->listen, r->c->port,
	    e)) < 0 || (rc = r->tcp = bound_socket(SOCK_STREAM, r->c->listen,
	    r->c->port, e)) < 0)
		return rc;
	for (i = 0; i < NUPSOCK; i++)
		if ((rc = r->up[i] = bound_socket(SOCK_DGRAM, INADDR_ANY, 0,
		    e)) < 0 || ep_add(r, r->up[i], EV_UP + (uint32_t)i) < 0)
			return rc < 0 ? rc : err_set(e, -errno, "epoll: %s",
			    strerror(errno));
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGPIPE);
	if (pthread_sigmask(SIG_BLOCK, &ss, NULL) != 0 ||
	    (r->sig = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		return err_set(e, -errno, "signalfd: %s", strerror(errno));
	if (ep_add(r, r->udp, EV_UDP) < 0 || ep_add(r, r->tcp, EV_TCP) < 0 ||
	    ep_add(r, r->sig, EV_SIG) < 0)
		return err_set(e, -errno, "epoll: %s", strerror(errno));
	return 0;
}

static void
teardown(struct rsv *r)
{
	size_t i;

	if (r->conn != NULL)
		for (i = 0; i < RSV_MAXCONN; i++)
			conn_close(r, (int)i);
	for (i = 0; i < RSV_UPTCP; i++)
		if (r->uptcp[i].fd >= 0)
			close(r->uptcp[i].fd);
	for (i = 0; i < NUPSOCK; i++)
		if (r->up[i] >= 0)
			close(r->up[i]);
	if (r->udp >= 0)
		close(r->udp);
	if (r->tcp >= 0)
		close(r->tcp);
	if (r->sig >= 0)
		close(r->sig);
	if (r->ep >= 0)
		close(r->ep);
	free(r->pend);
	free(r->freepend);
	free(r->idmap);
	free(r->ring);
	free(r->conn);
	free(r->uptcp_mem);
	tab_free(r->tab);
	tab_free(r->next);
}

/* Returns 1 to stop. */
static int
signal_in(struct rsv *r)
{
	struct signalfd_siginfo si;

	while (read(r->sig, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			r->last_req = 0;
			want_refresh(r);	/* box egress changed a policy */
		} else if (si.ssi_signo != SIGPIPE) {
			return 1;
		}
	}
	return 0;
}

int
resolver_run(const struct rsv_conf *c, struct box_err *e)
{
	struct epoll_event ev[64];
	struct rsv *r;
	pthread_t th;
	int rc, n, i, started = 0, stop = 0;

	if (c->nup < 1 || c->nup > RSV_MAXUP)
		return err_usage(e, "the resolver needs 1 to %d upstreams",
		    RSV_MAXUP);
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	r->c = c;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->now = clock_ms();
	if ((rc = setup(r, e)) < 0)
		goto out;
	r->want = 1;
	if (pthread_create(&th, NULL, refresher, r) != 0) {
		rc = err_set(e, -EAGAIN, "starting the box reader failed");
		goto out;
	}
	started = 1;
	if (c->feed != NULL && ((rc = rsv_feeder_start(&r->feeder, c,
	    &r->feed_ev)) < 0 || ep_add(r, r->feed_ev, EV_FEED) < 0)) {
		rc = err_set(e, rc < 0 ? rc : -errno, "starting the feeder "
		    "failed");
		goto out;
	}
	fprintf(stderr, "box resolver: answering on port %u (view %s)\n",
	    c->port, c->view ? "per box" : "OFF");
	while (!stop) {
		uint64_t wait = 100;

		take_table(r);
		r->now = clock_ms();
		if (r->rhead != r->rtail) {
			uint64_t d = r->ring[r->rhead % RING].deadline;

			wait = d <= r->now ? 0 : d - r->now < wait ?
			    d - r->now : wait;
		}
		n = epoll_wait(r->ep, ev, 64, (int)wait);
		r->now = clock_ms();
		for (i = 0; i < n; i++) {
			uint32_t t = ev[i].data.u32;

			if (t == EV_UDP)
				udp_in(r);
			else if (t == EV_TCP)
				tcp_accept(r);
			else if (t == EV_SIG)
				stop = signal_in(r);
			else if (t == EV_FEED)
				fed(r);
			else if (t >= EV_UP && t < EV_UP + NUPSOCK)
				up_in(r, (int)(t - EV_UP));
			else if (t >= EV_UPTCP && t < EV_UPTCP + RSV_UPTCP &&
			    r->uptcp[t - EV_UPTCP].fd >= 0)
				uptcp_in(r, (int)(t - EV_UPTCP));
			else if (t < RSV_MAXCONN && r->conn[t].fd >= 0)
				conn_in(r, (int)t);
		}
		expire(r);
		if (r->nparked > 0)
			unpark(r, 0);
		if (r->now - r->last_sweep >= 100) {
			sweep_conns(r);
			kicks_answer(r, 1);
			r->last_sweep = r->now;
		}
	}
	rc = 0;
out:
	/* Port 53 let go at once: the box reader may be inside a slow
	 * daemon read (up to its timeout), and a successor must not find
	 * this one still answering beside it. */
	if (r->udp >= 0)
		close(r->udp);
	if (r->tcp >= 0)
		close(r->tcp);
	r->udp = r->tcp = -1;
	if (started) {
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(th, NULL);
	}
	rsv_feeder_stop(r->feeder);
	teardown(r);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
	return rc;
}
