/*
 * door.c - box's HTTP/1.1 service on the gateway (door.h): the listener,
 * the boxes by source address, the budgets, the route table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "host/door/door_int.h"
#include "host/resolver/resolver.h"
#include "incus/api.h"
#include "util/clock.h"

/* The routes, by path prefix: the first that matches serves. */
static const struct {
	const char *prefix;
	void (*serve)(struct door_req *q);
} routes[] = {
	{ "/s/", door_proxy },
};

struct door_boxrow {
	uint32_t addr;
	char name[64];
	char grants[SECRET_GRANTMAX * (SECRET_NAMEMAX + 1) + 1];
	int conns;			/* open now */
	double tokens;			/* the request bucket */
	long long refill;
};

struct door {
	const struct door_conf *c;
	struct tls_anchors ta;
	pthread_mutex_t mu;
	struct door_boxrow *v;
	size_t n;
	int conns;
	long long read_at;		/* the table's last read */
};

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	stop = 1;
}

static const char *
reason(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	}
	return "Service Unavailable";
}

int
door_send(int fd, const void *p, size_t n, long long deadline)
{
	const char *q = p;
	struct pollfd pf;
	ssize_t w;
	long long left;

	while (n > 0) {
		w = send(fd, q, n, MSG_NOSIGNAL);
		if (w > 0) {
			q += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if ((left = deadline - clock_ms()) <= 0)
			return -ETIMEDOUT;
		pf.fd = fd;
		pf.events = POLLOUT;
		(void)poll(&pf, 1, (int)left);
	}
	return 0;
}

void
door_reply(struct door_req *q, int status, const char *fmt, ...)
{
	char body[512], head[256];
	va_list ap;
	int n, h;

	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(body) - 1)
		n = (int)strlen(body);
	body[n++] = '\n';
	h = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: "
	    "text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
	    status, reason(status), n);
	q->use.status = status;
	if (door_send(q->fd, head, (size_t)h, clock_ms() + 2000) == 0)
		(void)door_send(q->fd, body, (size_t)n, clock_ms() + 2000);
}

/* The boxes and their grants, from the daemon (the resolver's table for
 * the addresses: one fact, one reader). */
struct gather {
	struct door_boxrow *v;
	size_t n;
};

static void
grant_of(const char *box, const char *list, void *ctx)
{
	struct gather *g = ctx;
	size_t i;

	for (i = 0; i < g->n; i++)
		if (strcmp(g->v[i].name, box) == 0)
			snprintf(g->v[i].grants, sizeof(g->v[i].grants), "%s",
			    list);
}

static int
table_read(struct door *d, struct box_err *e)
{
	struct rsv_box *b = NULL;
	struct gather g = { NULL, 0 };
	struct incus c;
	size_t nb = 0, i, k;
	int rc;

	if ((rc = rsv_gather(d->c->bridge, &b, &nb, e)) < 0)
		return rc;
	if ((g.v = calloc(nb + 1, sizeof(*g.v))) == NULL) {
		free(b);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < nb; i++) {
		g.v[i].addr = b[i].addr;
		snprintf(g.v[i].name, sizeof(g.v[i].name), "%s", b[i].name);
	}
	g.n = nb;
	free(b);
	if ((rc = incus_init(&c, e)) == 0) {
		rc = secret_grants_each(&c, grant_of, &g, e);
		incus_close(&c);
	}
	if (rc < 0) {
		free(g.v);
		return rc;
	}
	pthread_mutex_lock(&d->mu);
	for (i = 0; i < g.n; i++)	/* budgets carry over by name */
		for (k = 0; k < d->n; k++)
			if (strcmp(d->v[k].name, g.v[i].name) == 0) {
				g.v[i].conns = d->v[k].conns;
				g.v[i].tokens = d->v[k].tokens;
				g.v[i].refill = d->v[k].refill;
			}
	free(d->v);
	d->v = g.v;
	d->n = g.n;
	d->read_at = clock_ms();
	pthread_mutex_unlock(&d->mu);
	return 0;
}

static void *
table_thread(void *arg)
{
	struct door *d = arg;
	struct box_err e;

	while (!stop) {
		err_clear(&e);
		if (table_read(d, &e) < 0)
			fprintf(stderr, "box door: reading the boxes: %s\n",
			    e.msg);
		usleep(DOOR_REFRESH_MS * 1000);
	}
	return NULL;
}

/* Admit a connection from src: its box's name and grants, counted; or
 * the status refusing it. */
static int
admit(struct door *d, struct door_req *q)
{
	const struct door_conf *c = d->c;
	struct door_boxrow *b = NULL;
	long long now = clock_ms();
	size_t i;
	int status = 0;

	if (c->open_plen > 0 && ((q->src ^ c->open_net) & (0xffffffffu <<
	    (32 - c->open_plen))) == 0) {
		snprintf(q->box, sizeof(q->box), "test");
		q->all_granted = 1;
		return 0;
	}
	pthread_mutex_lock(&d->mu);
	for (i = 0; i < d->n; i++)
		if (d->v[i].addr == q->src)
			b = &d->v[i];
	if (b == NULL)
		status = 403;
	else if (b->conns >= DOOR_BOXCONN || d->conns >= DOOR_MAXCONN)
		status = 503;
	else {
		b->tokens += (now - b->refill) * DOOR_RATE / 1000.0;
		if (b->tokens > 2 * DOOR_RATE)
			b->tokens = 2 * DOOR_RATE;
		b->refill = now;
		if (b->tokens < 1)
			status = 429;
		else {
			b->tokens -= 1;
			b->conns++;
			d->conns++;
			snprintf(q->box, sizeof(q->box), "%s", b->name);
			snprintf(q->grants, sizeof(q->grants), "%s",
			    b->grants);
		}
	}
	pthread_mutex_unlock(&d->mu);
	return status;
}

static void
release(struct door *d, struct door_req *q)
{
	size_t i;

	if (q->all_granted)
		return;
	pthread_mutex_lock(&d->mu);
	for (i = 0; i < d->n; i++)
		if (strcmp(d->v[i].name, q->box) == 0 && d->v[i].conns > 0)
			d->v[i].conns--;
	d->conns--;
	pthread_mutex_unlock(&d->mu);
}

/* The head, by DOOR_IDLE_MS: 0, or the status refusing it. */
static int
read_head(struct door_req *q, char *why, size_t cap)
{
	long long deadline = clock_ms() + DOOR_IDLE_MS;
	struct pollfd pf = { q->fd, POLLIN, 0 };
	long end;
	ssize_t r;

	for (;;) {
		end = dh_head_end(q->head, q->have);
		if (end < 0) {
			snprintf(why, cap, "a bare CR or LF, or a line too "
			    "long");
			return 400;
		}
		if (end > 0)
			break;
		if (q->have >= sizeof(q->head))
			return 431;
		if (poll(&pf, 1, (int)(deadline - clock_ms())) <= 0 ||
		    clock_ms() >= deadline)
			return 408;
		r = read(q->fd, q->head + q->have, sizeof(q->head) - q->have);
		if (r <= 0 && !(r < 0 && (errno == EAGAIN || errno == EINTR)))
			return -1;	/* gone: nothing to answer */
		q->have += r > 0 ? (size_t)r : 0;
	}
	if (dh_req_parse(q->head, (size_t)end, &q->r, why, cap) < 0)
		return 400;
	return 0;
}

static void
serve(struct door_req *q)
{
	char why[160];
	size_t i;
	int st;

	if ((st = read_head(q, why, sizeof(why))) != 0) {
		if (st == 400)
			door_reply(q, 400, "box door: refused: %s", why);
		else if (st > 0)
			door_reply(q, st, "box door: %s", reason(st));
		return;
	}
	snprintf(q->use.method, sizeof(q->use.method), "%.*s",
	    (int)(q->r.mlen < 15 ? q->r.mlen : 15), q->r.method);
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (q->r.tlen >= strlen(routes[i].prefix) &&
		    memcmp(q->r.target, routes[i].prefix,
		    strlen(routes[i].prefix)) == 0) {
			routes[i].serve(q);
			return;
		}
	door_reply(q, 404, "box door: nothing at this path");
}

struct job {
	struct door *d;
	int fd;
	uint32_t src;
};

static void *
conn_thread(void *arg)
{
	struct job *j = arg;
	struct door_req *q = calloc(1, sizeof(*q));
	long long t0 = clock_ms();
	struct timespec ts;
	int st;

	if (q == NULL) {
		close(j->fd);
		free(j);
		return NULL;
	}
	q->conf = j->d->c;
	q->ta = &j->d->ta;
	q->fd = j->fd;
	q->src = j->src;
	if ((st = admit(j->d, q)) != 0) {
		door_reply(q, st, "box door: %s", st == 403 ? "this address "
		    "is no box's" : st == 429 ? "too many requests from this "
		    "box" : "too many connections");
	} else {
		snprintf(q->use.box, sizeof(q->use.box), "%s", q->box);
		serve(q);
		release(j->d, q);
		clock_gettime(CLOCK_REALTIME, &ts);
		q->use.t_ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		q->use.ms = clock_ms() - t0;
		if (q->use.method[0] != '\0')
			(void)secret_log_append(q->conf->store, &q->use);
	}
	close(j->fd);
	explicit_bzero(q, sizeof(*q));
	free(q);
	free(j);
	return NULL;
}

static int
listen_on(const struct door_conf *c, struct box_err *e)
{
	struct sockaddr_in sa;
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return err_set(e, -errno, "door: socket: %s", err_str(-errno));
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	(void)setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(c->port);
	sa.sin_addr.s_addr = htonl(c->listen);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 128) < 0) {
		err_set(e, -errno, "door: binding port %u: %s", c->port,
		    err_str(-errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void
accept_one(struct door *d, int lfd)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	pthread_attr_t at;
	pthread_t th;
	struct job *j;
	int fd, one = 1;

	fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK |
	    SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if ((j = malloc(sizeof(*j))) == NULL) {
		close(fd);
		return;
	}
	/* a streamed event goes on as it comes, not after a delayed ACK */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	j->d = d;
	j->fd = fd;
	j->src = ntohl(sa.sin_addr.s_addr);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 256 * 1024);
	if (pthread_create(&th, &at, conn_thread, j) != 0) {
		close(fd);
		free(j);
	}
	pthread_attr_destroy(&at);
}

int
door_run(const struct door_conf *c, struct box_err *e)
{
	struct rlimit nocore = { 0, 0 };
	struct door d;
	struct pollfd pf;
	pthread_t th;
	int lfd, rc;

	/* the secrets are in this process's memory: no core dump of it */
	(void)setrlimit(RLIMIT_CORE, &nocore);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	memset(&d, 0, sizeof(d));
	d.c = c;
	pthread_mutex_init(&d.mu, NULL);
	if ((rc = secret_store_open(c->store, e)) < 0 ||
	    (rc = tls_anchors_load(c->ca_file, &d.ta, e)) < 0)
		return rc;
	if ((lfd = listen_on(c, e)) < 0) {
		tls_anchors_free(&d.ta);
		return -1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);
	if (c->open_plen == 0 && pthread_create(&th, NULL, table_thread,
	    &d) == 0)
		pthread_detach(th);
	fprintf(stderr, "box door: listening on port %u, %zu trust "
	    "anchors\n", c->port, d.ta.n);
	while (!stop) {
		pf.fd = lfd;
		pf.events = POLLIN;
		if (poll(&pf, 1, 500) > 0)
			accept_one(&d, lfd);
	}
	close(lfd);
	return 0;
}
