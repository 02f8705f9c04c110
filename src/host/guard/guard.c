/*
 * guard.c - the guard's loop: notifications, the look, the judgement, the
 * heal, failing closed (see guard.h).
 */
#include "host/guard/guard.h"
#include "host/guard/guard_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>

#include "host/stack/contract.h"
#include "host/stack/hostinfo.h"
#include "host/stack/pins.h"
#include "host/stack/stack.h"
#include "incus/api.h"
#include "net/brport.h"
#include "net/nlmon.h"
#include "net/rtnl.h"
#include "util/clock.h"

#define GUARD_MAXLINKS	1024
#define GUARD_PEEK_MS	20	/* the sysctls without a notification */
#define BACKOFF_MIN_MS	250
#define BACKOFF_MAX_MS	30000

struct guard {
	const struct guard_opts *o;
	uint32_t net;
	struct nl_sock *mon[2];		/* nf_tables, links */
	struct pins *pins;		/* as last collected from Incus */
	struct pins_keys *keys, *used;	/* theirs; those the last heal sent */
	int have_keys;
	int refill;			/* this heal refills the bindings */
	int rebind;			/* a heal refilled them: check them */
	long long keys_at;
	long long peek_at;		/* the sysctls' last peek */
	char peeked[3][8];		/* what it read */
	int keys_dirty;			/* a port came or went */
	int rln_want;
	int closed;			/* we took the bridge down */
	int fails;
	int backoff_ms;
	long long retry_at;
	long long event_at;		/* the first notification not judged */
	struct nlmon_sum sum;		/* since the last judgement */
	struct guard_logcap cap;
	struct guard_daemon dmn[GUARD_NDAEMON];
	size_t ndmn;
	long long dmn_at;		/* the daemons' next look */
	struct guard_view *v;
	struct rtnl_link *links;
	struct rtnl_brport *bports;
};

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* The /24 the contract is for: given, else the bridge's own (kept). */
static uint32_t
net_of(struct guard *g)
{
	struct subnet_host *h;
	struct box_err ignore;
	uint32_t net;

	if (g->net != 0)
		return g->net;
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return 0;
	err_clear(&ignore);
	net = host_read(NULL, h, &ignore) == 0 ?
	    host_iface_net(h, g->o->br) : 0;
	free(h);
	return g->net = net;
}

/*
 * The port bindings and the VM doors from Incus: the sources the heal
 * refills from.  A daemon that does not answer keeps what we had.
 */
static void
refresh(struct guard *g, long long now)
{
	struct incus c;
	struct box_err e;
	int doors;

	g->keys_at = now;
	g->keys_dirty = 0;
	err_clear(&e);
	if (net_of(g) == 0 || incus_init(&c, &e) < 0)
		return;
	c.timeout_ms = 3000;
	if (pins_collect(&c, g->o->br, g->net, g->pins, &e) == 0) {
		pins_keys(g->pins, g->keys);
		g->have_keys = 1;
	}
	err_clear(&e);
	doors = stack_vm_doors(&c, &e);
	g->rln_want = doors < 0 ? -1 : doors > 0;
	incus_close(&c);
}

/* The bridge and its ports, from rtnetlink. */
static void
look_links(struct guard *g, struct guard_view *v)
{
	struct nl_sock *s = malloc(sizeof(*s));
	const struct rtnl_link *br;
	struct box_err e;
	int n, i;

	err_clear(&e);
	if (s == NULL || nl_open(s, NETLINK_ROUTE, &e) < 0) {
		free(s);
		return;
	}
	n = rtnl_links(s, g->links, GUARD_MAXLINKS, &e);
	br = n > 0 ? rtnl_link_by_name(g->links, (size_t)n, g->o->br) : NULL;
	if (br != NULL) {
		v->br_index = br->ifindex;
		v->br_up = (br->flags & 1u) != 0;	/* IFF_UP */
		n = rtnl_bridge_ports(s, g->bports, GUARD_MAXLINKS, &e);
		for (i = 0; i < n && v->nports < GUARD_MAXPORT; i++) {
			struct guard_port *p = &v->ports[v->nports];

			if (g->bports[i].master != br->ifindex)
				continue;
			p->ifindex = g->bports[i].ifindex;
			snprintf(p->name, sizeof(p->name), "%s",
			    g->bports[i].name);
			p->isolated = g->bports[i].isolated;
			v->nports++;
		}
	}
	nl_close(s);
	free(s);
}

/* One look at the kernel: the rules, the sysctls, the ports. */
static void
look(struct guard *g, struct guard_view *v)
{
	struct box_err e;
	int rc;

	memset(v, 0, sizeof(*v));
	err_clear(&e);
	v->fw_read = fw_read(g->o->br, net_of(g), &v->fw, &e) == 0;
	err_clear(&e);
	rc = fw_arp_sysctls(g->o->br, 0, v->arp_why, sizeof(v->arp_why), &e);
	v->arp = rc < 0 ? -1 : rc;
	v->rln = v->fw_read ? v->fw.route_localnet : -1;
	v->rln_want = g->rln_want;
	look_links(g, v);
}

/* The heal's part of the batch: the port bindings; the test's refusal. */
static int
more(struct nft_batch *bt, void *arg)
{
	struct guard *g = arg;
	int rc = 0;

	/* table bridge box gone took its sets: refill them from the
	 * bindings as last collected (then from Incus, see loop) */
	if (g->have_keys && g->refill) {
		rc = pins_emit(bt, g->keys);
		memcpy(g->used, g->keys, sizeof(*g->used));
		g->rebind = 1;
	}
	if (rc == 0 && g->o->refuse != NULL && access(g->o->refuse, F_OK) == 0) {
		/* a chain no table holds: the kernel refuses the batch */
		nft_rule_begin(bt, NFT_FAM_INET, CONTRACT_NFT_TABLE,
		    "box-guard-test-refused", NULL);
		nft_verdict(bt, NFT_V_DROP, NULL);
		nft_rule_end(bt);
		rc = nft_batch_err(bt);
	}
	return rc;
}

/* Take the bridge down (close) or up (open). */
static int
bridge_set(struct guard *g, int ifindex, int up, struct box_err *e)
{
	struct nl_sock *s = malloc(sizeof(*s));
	int rc;

	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = nl_open(s, NETLINK_ROUTE, e)) == 0) {
		rc = link_set_up(s, ifindex, g->o->br, up, e);
		nl_close(s);
	}
	free(s);
	return rc;
}

static void
close_boxes(struct guard *g, const struct guard_view *v, const char *why,
    long long now)
{
	struct box_err e;
	int fd;

	err_clear(&e);
	g->retry_at = now + g->backoff_ms;
	g->backoff_ms = g->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS :
	    g->backoff_ms * 2;
	if (g->closed)
		return;
	if (v->br_index == 0 || bridge_set(g, v->br_index, 0, &e) < 0) {
		guard_log(&g->cap, now, "fail", -1, "", "the contract could "
		    "not be put back and the bridge could not be taken down",
		    e.msg);
		return;
	}
	g->closed = 1;
	if ((fd = open(GUARD_CLOSED, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) >= 0)
		close(fd);
	guard_log(&g->cap, now, "close", -1, "", why, "the bridge is DOWN: "
	    "no box reaches anything until the contract reads back clean");
}

static void
open_boxes(struct guard *g, const struct guard_view *v, long long now)
{
	struct box_err e;

	err_clear(&e);
	if (v->br_index != 0 && bridge_set(g, v->br_index, 1, &e) < 0) {
		guard_log(&g->cap, now, "fail", -1, "", "bringing the bridge "
		    "up again", e.msg);
		return;
	}
	g->closed = 0;
	g->backoff_ms = BACKOFF_MIN_MS;
	unlink(GUARD_CLOSED);
	guard_log(&g->cap, now, "open", -1, "", "the contract reads back "
	    "clean", "the bridge is up again");
}

/* The rules in one batch, twice at most: 0, or the second failure. */
static int
put_rules(struct guard *g, char *said, size_t cap)
{
	struct fw_status *st = malloc(sizeof(*st));
	struct box_err e;
	int rc = -ENOMEM, i;

	for (i = 0; st != NULL && i < 2; i++) {
		err_clear(&e);
		if ((rc = fw_apply_more(g->o->br, net_of(g), more, g, st,
		    &e)) == 0)
			break;
		snprintf(said, cap, "%s", e.msg);
	}
	if (rc == 0)
		snprintf(said, cap, "%u rules in one batch with the saved "
		    "egress policies%s", st->held, g->refill && g->have_keys ?
		    " and the port bindings" : "");
	free(st);
	return rc;
}

/* The sysctls and the port flags (each its own write; none opens). */
static void
put_rest(struct guard *g, const struct guard_view *v, unsigned bits,
    char *said, size_t cap)
{
	struct nl_sock *s;
	struct box_err e;
	char why[200];
	size_t i;

	err_clear(&e);
	if (bits & GD_ARP) {
		(void)fw_arp_sysctls(g->o->br, 1, why, sizeof(why), &e);
		snprintf(said + strlen(said), cap - strlen(said), "%sthe ARP "
		    "sysctls", said[0] ? "; " : "");
	}
	if (bits & GD_RLN) {
		(void)fw_route_localnet_set(g->o->br, g->rln_want == 1, &e);
		snprintf(said + strlen(said), cap - strlen(said), "%s"
		    "route_localnet %s", said[0] ? "; " : "",
		    g->rln_want == 1 ? "on" : "off");
	}
	if (!(bits & GD_PORTS) || (s = malloc(sizeof(*s))) == NULL)
		return;
	if (nl_open(s, NETLINK_ROUTE, &e) == 0) {
		for (i = 0; i < v->nports; i++)
			if (v->ports[i].isolated == 0 && brport_set_isolated(s,
			    v->ports[i].ifindex, v->ports[i].name, 1, &e) == 0)
				snprintf(said + strlen(said), cap -
				    strlen(said), "%sport %s isolated",
				    said[0] ? "; " : "", v->ports[i].name);
		nl_close(s);
	}
	free(s);
}

/* Who changed it, as the kernel's last NEWGEN said (not us). */
static void
changer(const struct guard *g, char *by, size_t cap)
{
	by[0] = '\0';
	if (g->sum.gens == 0 || g->sum.proc_pid == (uint32_t)getpid())
		return;
	snprintf(by, cap, "%s[%u]", g->sum.proc_name[0] ?
	    g->sum.proc_name : "?", g->sum.proc_pid);
}

/*
 * Judge, and put back what differs; fail closed when the rules cannot be.
 * Returns the GD_* bits that still differ.
 */
static unsigned
judge_and_heal(struct guard *g, long long now)
{
	char what[GUARD_TEXT], said[GUARD_TEXT], after[GUARD_TEXT], by[48];
	struct guard_view *v = g->v;
	unsigned bits;
	long window;

	look(g, v);
	bits = guard_judge(v, what, sizeof(what));
	if (bits == 0) {
		if (g->closed)
			open_boxes(g, v, now);
		goto done;
	}
	if (g->closed && now < g->retry_at)
		return bits;
	said[0] = '\0';
	changer(g, by, sizeof(by));
	g->refill = !v->fw.bridge_table;
	if ((bits & GD_RULES) && put_rules(g, said, sizeof(said)) < 0) {
		close_boxes(g, v, said, clock_ms());
		guard_log(&g->cap, clock_ms(), "fail", -1, by, what, said);
		return bits;
	}
	put_rest(g, v, bits, said, sizeof(said));
	look(g, v);
	bits = guard_judge(v, after, sizeof(after));
	window = g->event_at > 0 ? (long)(clock_ms() - g->event_at) : -1;
	guard_log(&g->cap, clock_ms(), "heal", window, by, what, said);
	if (bits == 0 && g->closed)
		open_boxes(g, v, clock_ms());
	if (g->rebind)
		g->keys_dirty = 1;	/* the bindings from their source */
done:
	g->event_at = 0;
	memset(&g->sum, 0, sizeof(g->sum));
	return bits;
}

static int
open_monitors(struct guard *g, struct box_err *e)
{
	static const unsigned nftg[] = { NFNLGRP_NFTABLES };
	static const unsigned rtg[] = { RTNLGRP_LINK };
	int rc;

	if ((g->mon[0] = malloc(sizeof(*g->mon[0]))) == NULL ||
	    (g->mon[1] = malloc(sizeof(*g->mon[1]))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	g->mon[0]->fd = g->mon[1]->fd = -1;
	if ((rc = nlmon_open(g->mon[0], NETLINK_NETFILTER, nftg, 1, e)) < 0 ||
	    (rc = nlmon_open(g->mon[1], NETLINK_ROUTE, rtg, 1, e)) < 0)
		return rc;
	return 0;
}

/* Read what waits on both; 1 when anything (or an overrun) came. */
static int
drain(struct guard *g)
{
	int i, got = 0, rc;

	for (i = 0; i < 2; i++) {
		unsigned links = g->sum.links;

		rc = nlmon_drain(g->mon[i], CONTRACT_NFT_TABLE, &g->sum);
		if (rc != 0)
			got = 1;
		if (g->sum.links != links)
			g->keys_dirty = 1;
	}
	return got;
}

/*
 * After a heal refilled the bindings from what was last collected: from
 * Incus again, and sent again when they moved meanwhile.
 */
static void
rebind(struct guard *g, long long now)
{
	char said[GUARD_TEXT];

	refresh(g, now);
	if (!g->rebind || !g->have_keys)
		return;
	g->rebind = 0;
	if (memcmp(g->keys, g->used, sizeof(*g->keys)) == 0)
		return;
	g->refill = 1;
	if (put_rules(g, said, sizeof(said)) == 0)
		guard_log(&g->cap, clock_ms(), "heal", -1, "", "the port "
		    "bindings moved since they were last collected", said);
	g->rebind = 0;
}

/*
 * The sysctls no notification reports (route_localnet, the ARP pair),
 * peeked every GUARD_PEEK_MS: three reads of /proc.  1 when one changed.
 */
static int
peek(struct guard *g, long long now)
{
	static const char *const names[3] = {
		"route_localnet", "arp_ignore", "arp_announce"
	};
	char key[96], v[8];
	struct box_err ignore;
	int i, changed = 0;

	if (now < g->peek_at + GUARD_PEEK_MS)
		return 0;
	g->peek_at = now;
	for (i = 0; i < 3; i++) {
		err_clear(&ignore);
		snprintf(key, sizeof(key), "net/ipv4/conf/%s/%s", g->o->br,
		    names[i]);
		if (rtnl_sysctl_get(key, v, sizeof(v), &ignore) < 0)
			v[0] = '\0';
		if (strcmp(v, g->peeked[i]) != 0)
			changed = 1;
		memcpy(g->peeked[i], v, sizeof(v));
	}
	return changed;
}

static int
wait_ms(const struct guard *g, long long now, long long next)
{
	long long t = next;

	if (g->peek_at + GUARD_PEEK_MS < t)
		t = g->peek_at + GUARD_PEEK_MS;

	if (g->closed && g->retry_at < t)
		t = g->retry_at;
	if (g->keys_dirty && g->keys_at + 2000 < t)
		t = g->keys_at + 2000;
	if (g->dmn_at < t)
		t = g->dmn_at;
	t -= now;
	return t < 0 ? 0 : t > GUARD_PERIOD_MS ? GUARD_PERIOD_MS : (int)t;
}

static void
loop(struct guard *g)
{
	long long now = clock_ms(), next = now;
	struct pollfd p[2];

	while (!stop) {
		p[0].fd = g->mon[0]->fd;
		p[1].fd = g->mon[1]->fd;
		p[0].events = p[1].events = POLLIN;
		(void)poll(p, 2, wait_ms(g, now, next));
		now = clock_ms();
		if (drain(g) && g->event_at == 0)
			g->event_at = now;
		if ((g->keys_dirty && now >= g->keys_at + 2000) ||
		    now >= g->keys_at + GUARD_REFRESH_MS)
			rebind(g, now);
		if (g->event_at != 0 || now >= next ||
		    (g->closed && now >= g->retry_at)) {
			judge_and_heal(g, now);
			now = clock_ms();
			next = now + GUARD_PERIOD_MS;
		}
		if (peek(g, now))
			g->event_at = now;
		if (now >= g->dmn_at)
			g->dmn_at = guard_daemons_tick(g->dmn, g->ndmn,
			    &g->cap, now);
		if (g->o->once)
			break;
	}
}

static void
guard_free(struct guard *g)
{
	int i;

	for (i = 0; i < 2; i++)
		if (g->mon[i] != NULL) {
			if (g->mon[i]->fd >= 0)
				nl_close(g->mon[i]);
			free(g->mon[i]);
		}
	free(g->pins);
	free(g->keys);
	free(g->used);
	free(g->v);
	free(g->links);
	free(g->bports);
	free(g);
}

int
guard_run(const struct guard_opts *o, struct box_err *e)
{
	struct guard *g = calloc(1, sizeof(*g));
	int rc;

	if (g == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	g->o = o;
	g->net = o->net;
	g->rln_want = -1;
	g->backoff_ms = BACKOFF_MIN_MS;
	g->ndmn = guard_daemons_init(g->dmn, GUARD_NDAEMON);
	g->closed = access(GUARD_CLOSED, F_OK) == 0;
	g->pins = malloc(sizeof(*g->pins));
	g->keys = calloc(1, sizeof(*g->keys));
	g->used = calloc(1, sizeof(*g->used));
	g->v = malloc(sizeof(*g->v));
	g->links = malloc(GUARD_MAXLINKS * sizeof(*g->links));
	g->bports = malloc(GUARD_MAXLINKS * sizeof(*g->bports));
	if (g->pins == NULL || g->keys == NULL || g->used == NULL ||
	    g->v == NULL || g->links == NULL || g->bports == NULL) {
		guard_free(g);
		return err_set(e, -ENOMEM, "out of memory");
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	/* subscribe first: nothing that changes from here on is missed */
	if ((rc = open_monitors(g, e)) == 0) {
		refresh(g, clock_ms());
		memcpy(g->used, g->keys, sizeof(*g->used));
		guard_log(&g->cap, clock_ms(), "start", -1, "", "watching the "
		    "kernel's nf_tables and link notifications", "");
		loop(g);
	}
	guard_free(g);
	return rc;
}
