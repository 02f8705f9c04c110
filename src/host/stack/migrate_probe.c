/* migrate_probe.c - the probe of a re-homed box (see migrate.h). */
#include "host/stack/migrate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box/life/life.h"
#include "box/narrate.h"
#include "box/life/waits.h"
#include "incus/exec.h"
#include "incus/instance.h"
#include "incus/stream.h"
#include "model/ip4text.h"
#include "net/dnsq.h"
#include "net/ip4.h"
#include "net/netns.h"
#include "util/clock.h"
#include "util/lines.h"
#include "util/text.h"

#define PROBE_OUT	8192
#define PROBE_EXEC_MS	20000
#define DNS_MS		2000

/* --- the in-box probe ---------------------------------------------------- */

static int
parse4(const char *s, uint32_t *a)
{
	struct in_addr ia;

	if (inet_pton(AF_INET, s, &ia) != 1)
		return -1;
	*a = ntohl(ia.s_addr);
	return 0;
}

/* Does the passwd text[0..n) hold user?  Pure and bounded. */
int
migrate_has_user(const char *text, size_t n, const char *user)
{
	size_t ul = strlen(user), i = 0;

	while (i < n) {
		if (n - i > ul && memcmp(text + i, user, ul) == 0 &&
		    text[i + ul] == ':')
			return 1;
		while (i < n && text[i] != '\n')
			i++;
		i++;
	}
	return 0;
}

void
migrate_probe_gather(struct migrate_probe *p, uint32_t gw, const char *name)
{
	struct ip4_picture *w;
	struct box_err e;
	uint32_t a = 0, v;
	size_t i;
	int rc;

	memset(p, 0, sizeof(*p));
	p->name = -1;
	err_clear(&e);
	if (ip4_read(&w, &e) == 0) {
		/* The box's own addresses, loopback left out. */
		for (i = 0; i < w->naddr && p->naddr < MIGRATE_MAX_ADDRS; i++) {
			v = ntohl(w->addr[i].addr.s_addr);
			if ((v >> 24) == 127)
				continue;
			p->addr[p->naddr] = v;
			p->plen[p->naddr] = w->addr[i].prefixlen;
			snprintf(p->dev[p->naddr], sizeof(p->dev[0]), "%s",
			    ip4_ifname(w, w->addr[i].ifindex, "?"));
			p->naddr++;
		}
		ip4_free(w);
	}
	rc = dnsq_ask(gw, MIGRATE_GW_NAME, DNS_MS, &a, p->gw_why,
	    sizeof(p->gw_why));
	p->gw = rc >= 0;
	p->name = dnsq_ask(gw, name, DNS_MS, &p->name_a, p->name_why,
	    sizeof(p->name_why));
}

/*
 * The report is our own line record (util/lines.h), not JSON: it is not
 * Incus's, it has no nesting, and the host reads it with a bounded walk.
 *   migrate-probe 1
 *   addr 10.88.0.7/24 eth0     (one line per address)
 *   gw 1 | gw_why ... | name -1..1 | name_a a.b.c.d | name_why ... | user 0..1
 */
#define PROBE_MAGIC	"migrate-probe"
#define PROBE_VERSION	"1"

int
migrate_probe_print(const struct migrate_probe *p, char **out)
{
	static const size_t cap = 1u << 14;
	struct lines_w w;
	char a[16], *buf = malloc(cap);
	int i;

	*out = NULL;
	if (buf == NULL)
		return -ENOMEM;
	lines_w_init(&w, buf, cap);
	lines_put(&w, PROBE_MAGIC, "%s", PROBE_VERSION);
	for (i = 0; i < p->naddr; i++) {
		ip4_fmt(p->addr[i], a, sizeof(a));
		lines_put(&w, "addr", "%s/%u %s", a, p->plen[i], p->dev[i]);
	}
	lines_put(&w, "gw", "%d", p->gw);
	lines_put(&w, "gw_why", "%s", p->gw_why);
	lines_put(&w, "name", "%d", p->name);
	ip4_fmt(p->name_a, a, sizeof(a));
	lines_put(&w, "name_a", "%s", a);
	lines_put(&w, "name_why", "%s", p->name_why);
	lines_put(&w, "user", "%d", p->user);
	if (lines_w_end(&w) < 0) {
		free(buf);
		return -ENOSPC;
	}
	*out = buf;
	return 0;
}

/* "a.b.c.d/plen dev" */
static int
parse_addr(const char *v, struct migrate_probe *p)
{
	char a[16], dev[sizeof(p->dev[0])];
	long plen;
	const char *slash = strchr(v, '/'), *sp;
	char num[4];

	if (slash == NULL || (size_t)(slash - v) >= sizeof(a))
		return -1;
	memcpy(a, v, (size_t)(slash - v));
	a[slash - v] = '\0';
	sp = strchr(slash + 1, ' ');
	if (sp == NULL || (size_t)(sp - slash - 1) >= sizeof(num) ||
	    strlen(sp + 1) >= sizeof(dev))
		return -1;
	memcpy(num, slash + 1, (size_t)(sp - slash - 1));
	num[sp - slash - 1] = '\0';
	if (parse4(a, &p->addr[p->naddr]) < 0 ||
	    text_uint(num, 0, 32, &plen) < 0)
		return -1;
	snprintf(dev, sizeof(dev), "%s", sp + 1);
	text_shown_in(dev, sizeof(dev));
	p->plen[p->naddr] = (unsigned)plen;
	memcpy(p->dev[p->naddr], dev, sizeof(dev));
	p->naddr++;
	return 0;
}

static int
small_int(const char *v, long lo, long hi, int *out)
{
	long x;

	if (v[0] == '-' && v[1] >= '0' && v[1] <= '9' && lo < 0) {
		if (text_uint(v + 1, 0, -lo, &x) < 0)
			return -1;
		*out = (int)-x;
		return 0;
	}
	if (text_uint(v, lo > 0 ? lo : 0, hi, &x) < 0)
		return -1;
	*out = (int)x;
	return 0;
}

/* One line of the report into p; seen[] catches a repeated member. */
static int
take_line(const char *k, const char *v, struct migrate_probe *p,
    unsigned *seen)
{
	static const char *const keys[] = { "gw", "gw_why", "name", "name_a",
	    "name_why", "user" };
	char *why;
	size_t i, n;

	if (strcmp(k, "addr") == 0)
		/* more than we keep are the box's business */
		return p->naddr == MIGRATE_MAX_ADDRS ? 0 : parse_addr(v, p);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(k, keys[i]) == 0)
			break;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return 0;	/* a member a later box may add */
	if (*seen & (1u << i))
		return -1;
	*seen |= 1u << i;
	switch (i) {
	case 0: return small_int(v, 0, 1, &p->gw);
	case 2: return small_int(v, -1, 1, &p->name);
	case 3: return parse4(v, &p->name_a);
	case 5: return small_int(v, 0, 1, &p->user);
	}
	why = i == 1 ? p->gw_why : p->name_why;
	n = strlen(v) < sizeof(p->gw_why) ? strlen(v) : sizeof(p->gw_why) - 1;
	memcpy(why, v, n);	/* a long reason is cut, as before */
	why[n] = '\0';
	text_shown_in(why, sizeof(p->gw_why));
	return 0;
}

int
migrate_probe_parse(const char *txt, size_t n, struct migrate_probe *p,
    struct box_err *e)
{
	char k[16], v[LINES_MAX_LINE];
	struct lines l;
	unsigned seen = 0;
	int rc, bad = 0;

	memset(p, 0, sizeof(*p));
	lines_init(&l, txt, n);
	rc = lines_next(&l, k, sizeof(k), v, sizeof(v));
	if (rc != 1 || strcmp(k, PROBE_MAGIC) != 0)
		return err_set(e, -EBOX_PROTO, "not a probe report");
	if (strcmp(v, PROBE_VERSION) != 0)
		return err_set(e, -EBOX_PROTO, "a probe report of another "
		    "version (%.16s)", v);
	while (!bad && (rc = lines_next(&l, k, sizeof(k), v, sizeof(v))) == 1)
		bad = take_line(k, v, p, &seen) < 0;
	/* gw, name, name_a and user are required */
	if (bad || rc < 0 || (seen & 0x2du) != 0x2du) {
		memset(p, 0, sizeof(*p));
		return err_set(e, -EBOX_PROTO, "a malformed probe report");
	}
	return 0;
}

uint32_t
migrate_probe_lease(const struct migrate_probe *p, uint32_t net)
{
	int i;

	for (i = 0; i < p->naddr; i++)
		if ((p->addr[i] & 0xffffff00u) == net &&
		    (p->addr[i] & 0xffu) != 0 && (p->addr[i] & 0xffu) != 255)
			return p->addr[i];
	return 0;
}

/* In a VM, run by the one in-box runner (life_run_inside). */
int
migrate_probe_main(struct box_err *e)
{
	const char *g = getenv("BOX_MIGRATE_GATEWAY");
	const char *n = getenv("BOX_MIGRATE_PROBE_NAME");
	struct migrate_probe *p = malloc(sizeof(*p));
	char *out = NULL, pw[16384];
	ssize_t k = -1;
	uint32_t gw;
	int fd, rc;

	if (p == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if (g == NULL || parse4(g, &gw) < 0) {
		free(p);
		return err_usage(e, "the in-box probe needs "
		    "BOX_MIGRATE_GATEWAY=a.b.c.d");
	}
	migrate_probe_gather(p, gw, n != NULL && *n ? n : "deb.debian.org");
	if ((fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC)) >= 0) {
		k = read(fd, pw, sizeof(pw));
		close(fd);
	}
	p->user = k > 0 && migrate_has_user(pw, (size_t)k, MIGRATE_USER);
	if (migrate_probe_print(p, &out) < 0) {
		free(p);
		return err_set(e, -ENOMEM, "out of memory");
	}
	rc = life_report_write(out, strlen(out), e);
	free(out);
	free(p);
	return rc;
}

/* --- running the probe from the host -------------------------------------- */

const char *
migrate_probe_name(void)
{
	const char *n = getenv("BOX_MIGRATE_PROBE_NAME");

	if (n == NULL || *n == '\0')
		n = getenv("BOX_DOCTOR_PROBE_NAME");
	return n != NULL && *n != '\0' ? n : "deb.debian.org";
}

/* A VM: the probe run in the guest by the one in-box runner. */
static int
probe_guest(struct incus *c, const char *name, uint32_t gw,
    struct migrate_probe *p, struct box_err *e)
{
	char eg[48], en[200], g[16];
	const char *args[] = { "migrate-host", "--probe-inside", NULL };
	const char *env[] = { "BOX_MIGRATE_INSIDE=1", eg, en,
	    "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	struct life_inside in = { "migrate", args, env, PROBE_EXEC_MS };
	struct exec_buf rep = { NULL, PROBE_OUT, 0, 0 };
	struct exec_status st;
	int rc;

	if ((rep.p = malloc(PROBE_OUT)) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	ip4_fmt(gw, g, sizeof(g));
	snprintf(eg, sizeof(eg), "BOX_MIGRATE_GATEWAY=%s", g);
	snprintf(en, sizeof(en), "BOX_MIGRATE_PROBE_NAME=%s",
	    migrate_probe_name());
	rc = life_run_inside(c, name, &in, &rep, &st, e);
	if (rc == 0 && (st.err[0] != '\0' || st.code != 0))
		rc = err_set(e, -EIO, "the in-box probe did not finish (exit "
		    "%d%s%.200s)", st.code, st.err[0] ? ": " : "", st.err);
	if (rc == 0)
		rc = migrate_probe_parse(rep.p, rep.len, p, e);
	free(rep.p);
	return rc;
}

/* What the child in the container's namespace measures (our own code). */
struct ns_ask {
	uint32_t gw;
	const char *name;
};

static ssize_t
ns_gather(void *arg, char *out, size_t cap)
{
	const struct ns_ask *a = arg;

	if (cap < sizeof(struct migrate_probe))
		return -1;
	migrate_probe_gather((struct migrate_probe *)(void *)out, a->gw,
	    a->name);
	return (ssize_t)sizeof(struct migrate_probe);
}

/*
 * A container: its addresses read and the gateway asked by this host's
 * own process in the box's network namespace (net/netns.h: nothing put
 * into it, no box process involved); whether it has the legacy user from
 * its /etc/passwd read through the daemon's files API.
 */
static int
probe_netns(struct incus *c, const char *name, long long pid, uint32_t gw,
    struct migrate_probe *p, struct box_err *e)
{
	struct exec_buf pw = { NULL, 16384, 0, 0 };
	struct ns_ask a = { gw, migrate_probe_name() };
	struct box_err pe;
	struct netns ns;
	int rc, i;

	if ((rc = netns_open(&ns, (pid_t)pid, e)) < 0) {
		err_context(e, "entering the network of %s", name);
		return rc;
	}
	rc = netns_run(&ns, ns_gather, &a, (char *)p, sizeof(*p),
	    PROBE_EXEC_MS, e);
	netns_close(&ns);
	if (rc >= 0 && rc != (int)sizeof(*p))
		rc = err_set(e, -EIO, "the probe in %s's network gave a short "
		    "answer", name);
	if (rc < 0)
		return rc;
	/* our child's own struct: bounded all the same */
	if (p->naddr < 0 || p->naddr > MIGRATE_MAX_ADDRS)
		p->naddr = 0;
	for (i = 0; i < p->naddr; i++)
		p->dev[i][sizeof(p->dev[0]) - 1] = '\0';
	p->gw_why[sizeof(p->gw_why) - 1] = '\0';
	p->name_why[sizeof(p->name_why) - 1] = '\0';
	p->user = 0;
	err_clear(&pe);
	if ((pw.p = malloc(pw.cap)) != NULL &&
	    life_pull_file(c, name, "/etc/passwd", &pw, &pe) == 0)
		p->user = migrate_has_user(pw.p, pw.len, MIGRATE_USER);
	free(pw.p);
	return 0;
}

/*
 * Until the box holds a lease on net and the gateway's DNS answers it;
 * or the deadline.
 */
int
migrate_verify_inside(struct incus *c, const char *name, uint32_t net,
    long long deadline, struct migrate_probe *p, struct box_err *e)
{
	struct incus_instance in;
	char got[200] = "", a[16];
	uint32_t gw = net | 1;
	long long pid = 0;
	int rc, i, vm;

	if ((rc = life_wait_agent(c, name, deadline, NULL, e)) < 0)
		return rc;
	memset(&in, 0, sizeof(in));
	if ((rc = incus_instance_get(c, name, INCUS_INST_STATE, &in, e)) < 0)
		return rc;
	vm = strcmp(in.type, "virtual-machine") == 0;
	pid = in.state.pid;
	incus_instance_free(&in);
	if (!vm && pid <= 0)
		return err_set(e, -ESRCH, "the daemon names no init process "
		    "for %s", name);
	for (;;) {
		if (life_interrupted()) {
			rc = err_set(e, -EINTR, "interrupted");
			break;
		}
		rc = vm ? probe_guest(c, name, gw, p, e) :
		    probe_netns(c, name, pid, gw, p, e);
		if (rc == 0 && migrate_probe_lease(p, net) != 0 && p->gw)
			break;
		if (clock_ms() >= deadline) {
			if (rc == 0) {
				for (i = 0; i < p->naddr; i++) {
					ip4_fmt(p->addr[i], a, sizeof(a));
					snprintf(got + strlen(got), sizeof(got) -
					    strlen(got), "%s%s/%u on %s",
					    i ? ", " : "", a, p->plen[i],
					    p->dev[i]);
				}
				ip4_fmt(net, a, sizeof(a));
				rc = migrate_probe_lease(p, net) == 0 ?
				    err_set(e, -ETIMEDOUT, "no lease in %s/24 "
				    "inside %s before the time ran out (it "
				    "holds %s)", a, name, got[0] ? got :
				    "no IPv4 address") :
				    err_set(e, -ETIMEDOUT, "the gateway's DNS "
				    "did not answer %s (%s)", name, p->gw_why);
			}
			break;
		}
		nanosleep(&(struct timespec){ 1, 0 }, NULL);
	}
	return rc;
}
