/*
 * doctor.c - the report, the pure parsers and the probes doctor's checks
 * are built from (see doctor.h).  The checks themselves live in
 * doctor_host.c and doctor_box.c.
 */
#include "host/doctor/doctor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/rtnetlink.h>

#include "incus/json.h"
#include "model/ip4text.h"
#include "net/dnsq.h"
#include "net/ip4.h"
#include "net/nl.h"
#include "net/rtnl.h"
#include "util/lines.h"
#include "util/text.h"

/* --- the report ----------------------------------------------------------- */

int
dr_report_init(struct dr_report *r)
{
	memset(r, 0, sizeof(*r));
	r->f = calloc(DR_MAX, sizeof(*r->f));
	return r->f == NULL ? -ENOMEM : 0;
}

void
dr_report_reset(struct dr_report *r)
{
	struct dr_finding *f = r->f;

	memset(r, 0, sizeof(*r));
	r->f = f;
}

void
dr_report_free(struct dr_report *r)
{
	free(r->f);
	r->f = NULL;
}

static int
is_box_subject(const char *subject)
{
	return strncmp(subject, "box ", 4) == 0;
}

/*
 * The slot a new finding of status may take when a cap is reached: the
 * latest finding of lower status (of subject when subject is not NULL),
 * or -1 when there is none.
 */
static int
evictable(const struct dr_report *r, const char *subject, int status)
{
	static const int rank[] = { 0, 0, 1, 2 };	/* PASS INFO WARN FAIL */
	int i;

	for (i = r->n - 1; i >= 0; i--)
		if ((subject == NULL || strcmp(r->f[i].subject, subject) == 0) &&
		    rank[r->f[i].status] < rank[status])
			return i;
	return -1;
}

static void
put(struct dr_report *r, const char *id, const char *subject, int status,
    const char *fix, const char *text)
{
	struct dr_finding *f;
	int i, slot = -1, mine = 0;

	if (status == DR_FAIL)
		r->fails++;
	else if (status == DR_WARN)
		r->warns++;
	if (is_box_subject(subject))
		for (i = 0; i < r->n; i++)
			mine += strcmp(r->f[i].subject, subject) == 0;
	if (mine >= DR_BOX_MAX || r->n >= DR_MAX) {
		if (status == DR_FAIL || status == DR_WARN)
			slot = evictable(r, mine >= DR_BOX_MAX ? subject : NULL,
			    status);
		r->dropped++;
		r->last_kept = 0;
		if (slot < 0)
			return;
		/* the lesser finding goes; later findings keep their order */
		memmove(&r->f[slot], &r->f[slot + 1], (size_t)(r->n - slot - 1) *
		    sizeof(r->f[0]));
		r->n--;
	}
	f = &r->f[r->n++];
	r->last_kept = 1;
	memset(f, 0, sizeof(*f));
	/* Every string a finding shows is escaped here, once (text_shown):
	 * names, values and reports from the daemon or a box among them. */
	text_shown(id, strlen(id), f->id, sizeof(f->id));
	text_shown(subject, strlen(subject), f->subject, sizeof(f->subject));
	f->status = status;
	text_shown(text, strlen(text), f->text, sizeof(f->text));
	if (fix != NULL)
		text_shown(fix, strlen(fix), f->fix, sizeof(f->fix));
}

void
dr_add(struct dr_report *r, const char *id, const char *subject, int status,
    const char *fix, const char *fmt, ...)
{
	char text[sizeof(r->f[0].text)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	put(r, id, subject, status, fix, text);
}

struct dr_finding *
dr_last(struct dr_report *r)
{
	return r->n > 0 && r->last_kept ? &r->f[r->n - 1] : NULL;
}

void
dr_note_fixed(struct dr_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nfixed >= DR_MAX_FIXED)
		return;
	va_start(ap, fmt);
	vsnprintf(r->fixed[r->nfixed], sizeof(r->fixed[0]), fmt, ap);
	va_end(ap);
	text_shown_in(r->fixed[r->nfixed], sizeof(r->fixed[0]));
	r->nfixed++;
}

static const char *const status_names[] = { "PASS", "INFO", "WARN", "FAIL" };
static const char *const status_lower[] = { "pass", "info", "warn", "fail" };

const char *
dr_status_name(int s)
{
	return s >= 0 && s <= DR_FAIL ? status_names[s] : "????";
}

int
dr_status_parse(const char *s)
{
	int i;

	for (i = 0; i <= DR_FAIL; i++)
		if (strcmp(s, status_lower[i]) == 0)
			return i;
	return -1;
}

static const char *
verdict_word(const struct dr_report *r)
{
	return r->fails > 0 ? "problems" : r->fresh ? "fresh" : "clean";
}

int
dr_report_json(const struct dr_report *r, char **out)
{
	struct json_w w;
	int i;

	json_w_init(&w, 4u << 20);
	json_w_obj(&w);
	json_w_key(&w, "where");
	json_w_str(&w, r->where == DR_INSIDE ? "inside" : "host");
	json_w_key(&w, "where_text");
	json_w_str(&w, r->where_text);
	json_w_key(&w, "verdict");
	json_w_str(&w, verdict_word(r));
	json_w_key(&w, "problems");
	json_w_int(&w, r->fails);
	json_w_key(&w, "warnings");
	json_w_int(&w, r->warns);
	json_w_key(&w, "checks");
	json_w_arr(&w);
	for (i = 0; i < r->n; i++) {
		json_w_obj(&w);
		json_w_key(&w, "id");
		json_w_str(&w, r->f[i].id);
		json_w_key(&w, "subject");
		json_w_str(&w, r->f[i].subject);
		json_w_key(&w, "status");
		json_w_str(&w, status_lower[r->f[i].status]);
		json_w_key(&w, "text");
		json_w_str(&w, r->f[i].text);
		json_w_key(&w, "fix");
		json_w_str(&w, r->f[i].fix);
		json_w_end(&w, '}');
	}
	json_w_end(&w, ']');
	json_w_key(&w, "not_shown");
	json_w_int(&w, r->dropped);
	json_w_key(&w, "fixed");
	json_w_arr(&w);
	for (i = 0; i < r->nfixed; i++)
		json_w_str(&w, r->fixed[i]);
	json_w_end(&w, ']');
	json_w_end(&w, '}');
	return json_w_finish(&w, out, NULL);
}

/* --- the box's report: a line record ------------------------------------- */

/*
 * What an in-box doctor hands the host: our own format, not Incus's, so a
 * line record (util/lines.h), one check as "c id", "s status", "t text",
 * "f fix", closed by "end <count>" so a record cut short is refused, not
 * read as a box with fewer checks.
 */
#define DR_REC_MAGIC	"box-doctor-report"
#define DR_REC_FORMAT	"1"
#define DR_REC_CAP	(512u << 10)	/* the host pulls at most this */

int
dr_report_lines(const struct dr_report *r, char **out, size_t *len)
{
	struct lines_w w;
	char *buf = malloc(DR_REC_CAP);
	int i;

	if (buf == NULL)
		return -ENOMEM;
	lines_w_init(&w, buf, DR_REC_CAP);
	lines_put(&w, DR_REC_MAGIC, "%s", DR_REC_FORMAT);
	lines_put(&w, "where", "%s", r->where == DR_INSIDE ? "inside" :
	    "host");
	for (i = 0; i < r->n; i++) {
		lines_put(&w, "c", "%s", r->f[i].id);
		lines_put(&w, "s", "%s", status_lower[r->f[i].status]);
		lines_put(&w, "t", "%s", r->f[i].text);
		if (r->f[i].fix[0] != '\0')
			lines_put(&w, "f", "%s", r->f[i].fix);
	}
	lines_put(&w, "end", "%d", r->n);
	if (lines_w_end(&w) < 0) {
		free(buf);
		return -ENOSPC;
	}
	*out = buf;
	*len = w.len;
	return 0;
}

/* One check being read: which of its lines were seen. */
struct dr_rec_check {
	char id[40], text[400], fix[256];
	int status, seen_s, seen_t, seen_f;
};

/* A value from inside a box, cut to fit (escaped where a finding
 * takes it: put). */
static void
take_val(char *buf, size_t cap, const char *v)
{
	size_t n = strnlen(v, cap - 1);

	memcpy(buf, v, n);
	buf[n] = '\0';
}

/* A check's own line into c: 1 taken, 0 not one of its lines, -1 bad. */
static int
check_line(struct dr_rec_check *c, const char *k, const char *v)
{
	if (strcmp(k, "s") == 0 && !c->seen_s) {
		c->seen_s = 1;
		c->status = dr_status_parse(v);
		return c->status < 0 ? -1 : 1;
	}
	if (strcmp(k, "t") == 0 && !c->seen_t) {
		c->seen_t = c->seen_s;	/* status first: order is checked */
		take_val(c->text, sizeof(c->text), v);
		return c->seen_t ? 1 : -1;
	}
	if (strcmp(k, "f") == 0 && !c->seen_f) {
		c->seen_f = c->seen_s;
		take_val(c->fix, sizeof(c->fix), v);
		return c->seen_f ? 1 : -1;
	}
	return 0;
}

/* A check id: what our own checks are named, nothing else. */
static int
id_ok(const char *v)
{
	size_t n = strlen(v);

	return n > 0 && n < sizeof(((struct dr_rec_check *)0)->id) &&
	    strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

typedef void dr_rec_fn(void *arg, const struct dr_rec_check *c);

/* "end <count>", and nothing after it. */
static int
rec_end(struct lines *l, const char *v, int count)
{
	char k[8], rest[8];
	char *endp;
	long want;

	want = strtol(v, &endp, 10);
	if (*v < '0' || *v > '9' || *endp != '\0' || want != count)
		return -EBOX_PROTO;
	return lines_next(l, k, sizeof(k), rest, sizeof(rest)) == 0 ? 0 :
	    -EBOX_PROTO;
}

/*
 * Walk a record: each whole check to fn (when not NULL), the box's view
 * into where.  0, -ENOMSG when it is not a doctor report of this
 * version, -ENODATA when it stops before its "end", -EBOX_PROTO when
 * anything else in it is not ours.
 */
static int
rec_walk(const char *txt, size_t n, char *where, size_t wcap, dr_rec_fn *fn,
    void *arg)
{
	char k[24], v[LINES_MAX_LINE];
	struct dr_rec_check c;
	struct lines l;
	int rc, open = 0, count = 0, wseen = 0;

	where[0] = '\0';
	lines_init(&l, txt, n);
	if (lines_next(&l, k, sizeof(k), v, sizeof(v)) != 1 ||
	    strcmp(k, DR_REC_MAGIC) != 0 || strcmp(v, DR_REC_FORMAT) != 0)
		return -ENOMSG;
	for (;;) {
		rc = lines_next(&l, k, sizeof(k), v, sizeof(v));
		if (rc <= 0)
			return rc < 0 ? rc : -ENODATA;
		if (open && (rc = check_line(&c, k, v)) != 0) {
			if (rc < 0)
				return -EBOX_PROTO;
			continue;
		}
		if (open && !c.seen_s)
			return -EBOX_PROTO;
		if (open && fn != NULL)
			fn(arg, &c);
		count += open;
		open = 0;
		if (strcmp(k, "c") == 0 && id_ok(v)) {
			memset(&c, 0, sizeof(c));
			memcpy(c.id, v, strlen(v) + 1);
			open = 1;
		} else if (strcmp(k, "where") == 0 && !wseen && count == 0) {
			take_val(where, wcap, v);
			wseen = 1;
		} else if (strcmp(k, "end") == 0) {
			return rec_end(&l, v, count);
		} else {
			return -EBOX_PROTO;
		}
	}
}

struct merge_ctx {
	struct dr_report *r;
	const char *subject;
};

static void
merge_one(void *arg, const struct dr_rec_check *c)
{
	struct merge_ctx *m = arg;
	char fullid[48];

	snprintf(fullid, sizeof(fullid), "box.%s", c->id);
	put(m->r, fullid, m->subject, c->status, c->fix, c->text);
}

int
dr_merge_box(struct dr_report *r, const char *subject, const char *txt,
    size_t n, char *where, size_t wcap, struct box_err *e)
{
	struct merge_ctx m = { r, subject };
	int rc;

	/* judged whole first: a bad record adds nothing to the report */
	rc = rec_walk(txt, n, where, wcap, NULL, NULL);
	if (rc == -ENODATA)
		return err_set(e, -EBOX_PROTO, "the box's report was cut "
		    "short");
	if (rc == -ENOMSG)
		return err_set(e, -EBOX_PROTO, "the box's report is not a "
		    "doctor report of this version");
	if (rc < 0)
		return err_set(e, -EBOX_PROTO, "the box's report has a "
		    "malformed check");
	return rec_walk(txt, n, where, wcap, merge_one, &m);
}

/* --- the network picture -------------------------------------------------- */

/* The first connected route on the uplink device that another device
 * also holds: 1 and its index pair, else 0. */
static int
dup_uplink(const struct dr_net *n, int *a, int *b)
{
	int i, j;

	for (i = 0; i < n->nconn; i++) {
		if (strcmp(n->conn[i].dev, n->gw_dev) != 0)
			continue;
		for (j = 0; j < n->nconn; j++)
			if (j != i && n->conn[j].net == n->conn[i].net &&
			    n->conn[j].plen == n->conn[i].plen &&
			    strcmp(n->conn[j].dev, n->gw_dev) != 0) {
				*a = i;
				*b = j;
				return 1;
			}
	}
	return 0;
}

int
dr_net_judge(const struct dr_net *n, char *why, size_t cap)
{
	char gw[16], net[16];
	size_t o = 0;
	int i, a, b, bits = 0;

	why[0] = '\0';
	if (!n->has_gw) {
		snprintf(why, cap, "no IPv4 default route: nothing to judge");
		return 0;
	}
	ip4_fmt(n->gw, gw, sizeof(gw));
	for (i = 0; i < n->nlocal; i++)
		if (n->local[i].a == n->gw) {
			bits |= DR_SIG_GW_LOCAL;
			o = (size_t)snprintf(why, cap, "the default gateway %s "
			    "is held as a LOCAL address (on %s)", gw,
			    n->local[i].dev);
			break;
		}
	if (dup_uplink(n, &a, &b)) {
		bits |= DR_SIG_DUP_ROUTE;
		ip4_fmt(n->conn[a].net, net, sizeof(net));
		if (o < cap)
			snprintf(why + o, cap - o, "%sthe uplink subnet %s/%u "
			    "has connected routes on %s and %s", o ? "; " : "",
			    net, n->conn[a].plen, n->conn[a].dev,
			    n->conn[b].dev);
	}
	if (bits == 0)
		snprintf(why, cap, "default route via %s on %s; the gateway "
		    "is not a local address and the uplink subnet has one "
		    "route", gw, n->gw_dev);
	return bits;
}

static void
link_name(const struct ip4_picture *w, int idx, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", ip4_ifname(w, idx, "?"));
}

static void
net_fill(struct dr_net *n, const struct ip4_picture *w)
{
	const struct rtnl_route4 *def = ip4_default_route(w);
	size_t i;

	if (def != NULL && def->has_gw) {
		n->has_gw = 1;
		n->gw = ntohl(def->gw.s_addr);
		link_name(w, def->oif, n->gw_dev, sizeof(n->gw_dev));
	}
	for (i = 0; i < w->naddr && n->nlocal < DR_NET_MAX; i++) {
		n->local[n->nlocal].a = ntohl(w->addr[i].addr.s_addr);
		n->local[n->nlocal].plen = w->addr[i].prefixlen;
		link_name(w, w->addr[i].ifindex, n->local[n->nlocal].dev,
		    sizeof(n->local[0].dev));
		n->nlocal++;
	}
	for (i = 0; i < w->nroute && n->nconn < DR_NET_MAX; i++) {
		const struct rtnl_route4 *r = &w->route[i];

		if (r->protocol != RTPROT_KERNEL || r->scope != RT_SCOPE_LINK ||
		    r->has_gw || r->dst_len == 0)
			continue;
		n->conn[n->nconn].net = ntohl(r->dst.s_addr);
		n->conn[n->nconn].plen = r->dst_len;
		link_name(w, r->oif, n->conn[n->nconn].dev,
		    sizeof(n->conn[0].dev));
		n->nconn++;
	}
}

int
dr_net_read(struct dr_net *n, struct box_err *e)
{
	struct ip4_picture *w;
	int rc;

	memset(n, 0, sizeof(*n));
	rc = ip4_read(&w, e);
	if (rc < 0)
		return rc;
	net_fill(n, w);
	ip4_free(w);
	return 0;
}

/* --- parsers -------------------------------------------------------------- */

/* Copy the value of arg after prefix into buf when arg starts with it. */
static int
arg_value(const char *arg, const char *prefix, char *buf, size_t cap)
{
	size_t k = strlen(prefix);

	if (strncmp(arg, prefix, k) != 0)
		return 0;
	if (buf != NULL && cap > 0)
		snprintf(buf, cap, "%s", arg + k);
	return 1;
}

int
dr_dnsmasq_argv(const char *buf, size_t n, const char *br,
    struct dr_dnsmasq *d)
{
	char arg[512], want[64];
	const char *base;
	size_t i = 0, k;
	int argi = 0, serves = 0, isdns = 0;

	memset(d, 0, sizeof(*d));
	snprintf(want, sizeof(want), "--interface=%s", br);
	while (i < n) {
		for (k = 0; i + k < n && buf[i + k] != '\0'; k++)
			;
		if (k < sizeof(arg)) {
			memcpy(arg, buf + i, k);
			arg[k] = '\0';
			if (argi == 0) {
				base = strrchr(arg, '/');
				isdns = strcmp(base != NULL ? base + 1 : arg,
				    "dnsmasq") == 0;
			} else if (strcmp(arg, want) == 0) {
				serves = 1;
			} else if (!arg_value(arg, "--conf-file=", d->conf,
			    sizeof(d->conf)) && !arg_value(arg,
			    "--listen-address=", d->listen,
			    sizeof(d->listen))) {
				arg_value(arg, "--dhcp-leasefile=", d->leases,
				    sizeof(d->leases));
			}
		}
		argi++;
		i += k + 1;
	}
	if (!(isdns && serves))
		memset(d, 0, sizeof(*d));
	return isdns && serves;
}

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

static void
dns_line(const char *l, struct dr_dns *d)
{
	char v[64];

	if (strcmp(l, "no-resolv") == 0) {
		d->no_resolv = 1;
	} else if (strcmp(l, "dhcp-ignore-names") == 0) {
		d->ignore_names = 1;
	} else if (strcmp(l, "domain-needed") == 0) {
		d->domain_needed = 1;
	} else if (arg_value(l, "server=", v, sizeof(v))) {
		if (d->nserver < DR_DNS_MAX)
			snprintf(d->server[d->nserver++], sizeof(d->server[0]),
			    "%s", v);
		else
			d->more++;
	} else if (strncmp(l, "dhcp-option", 11) == 0 &&
	    (strstr(l, "option:dns-server") != NULL ||
	    strstr(l, "=6,") != NULL)) {
		/* 0.0.0.0 alone is dnsmasq's own address, the gateway:
		 * what setup-host names with box's resolver (port=0) */
		if (!ends_with(l, "option:dns-server,0.0.0.0") &&
		    !ends_with(l, "=6,0.0.0.0"))
			d->dhcp_dns = 1;
	}
}

static void
dns_cb(const char *l, void *arg)
{
	dns_line(l, arg);
}

void
dr_dns_parse(const char *text, size_t n, struct dr_dns *d)
{
	memset(d, 0, sizeof(*d));
	text_each_line(text, n, dns_cb, d);
}

struct leases_ctx {
	char (*names)[64];
	int max, n;
};

static void
leases_cb(const char *l, void *arg)
{
	struct leases_ctx *c = arg;
	char exp[24], mac[64], ip[64], name[80];

	if (c->n >= c->max || sscanf(l, "%23s %63s %63s %79s", exp, mac, ip,
	    name) != 4 || !dnsq_plain_label(name))
		return;
	snprintf(c->names[c->n++], 64, "%.63s", name);
}

int
dr_leases_names(const char *text, size_t n, char names[][64], int max)
{
	struct leases_ctx c = { names, max, 0 };

	text_each_line(text, n, leases_cb, &c);
	return c.n;
}

struct inet6_ctx {
	char *dev;
	size_t cap;
	int found;
};

static void
inet6_cb(const char *l, void *arg)
{
	struct inet6_ctx *c = arg;
	char addr[40], name[32];
	unsigned idx, plen, scope, flags;

	if (c->found || sscanf(l, "%39s %x %x %x %x %31s", addr, &idx, &plen,
	    &scope, &flags, name) != 6)
		return;
	if (scope != 0 || strcmp(name, "lo") == 0)
		return;
	c->found = 1;
	snprintf(c->dev, c->cap, "%s", name);
}

int
dr_inet6_global(const char *text, size_t n, char *dev, size_t cap)
{
	struct inet6_ctx c = { dev, cap, 0 };

	if (cap > 0)
		dev[0] = '\0';
	text_each_line(text, n, inet6_cb, &c);
	return c.found;
}

/* --- probes --------------------------------------------------------------- */

static const char *const verdict_names[] = { "connected", "refused",
    "dropped", "error" };

const char *
dr_verdict_name(int v)
{
	return v >= 0 && v <= DR_ERROR ? verdict_names[v] : "?";
}

static int
errno_verdict(int err, char *why, size_t cap)
{
	snprintf(why, cap, "%s", strerror(err));
	if (err == ECONNREFUSED)
		return DR_REFUSED;
	if (err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH ||
	    err == EHOSTDOWN)
		return DR_DROPPED;
	return DR_ERROR;
}

int
dr_tcp_probe(uint32_t addr, int port, int timeout_ms, char *why, size_t cap)
{
	struct sockaddr_in sa;
	struct pollfd p;
	socklen_t sl = sizeof(int);
	int fd, err = 0, v;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, cap, "socket: %s", strerror(errno));
		return DR_ERROR;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		snprintf(why, cap, "connected");
		return DR_CONNECTED;
	}
	if (errno != EINPROGRESS) {
		v = errno_verdict(errno, why, cap);
		close(fd);
		return v;
	}
	p.fd = fd;
	p.events = POLLOUT;
	if (poll(&p, 1, timeout_ms) == 0) {
		close(fd);
		snprintf(why, cap, "no answer in %d ms", timeout_ms);
		return DR_DROPPED;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
		err = errno;
	close(fd);
	if (err == 0) {
		snprintf(why, cap, "connected");
		return DR_CONNECTED;
	}
	return errno_verdict(err, why, cap);
}
