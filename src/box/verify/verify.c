/*
 * verify.c - the host half of `box verify` (see verify.h): the targets,
 * the run inside the box, the listener on the bridge, the verdicts.
 *
 * A verdict is only ever what was observed: the box's own connect(),
 * echo or lookup for what it sends to a target; the host's listener on
 * the bridge for the forged frames.  No clause is judged from
 * configuration.  An isolation verdict ("dropped") means something only
 * when the box demonstrably has a network: the egress baseline (the
 * internet, or an allowed name) must connect first, else every isolation
 * clause is "unjudged".
 *
 * Every target that is not this host's own can be replaced by environment
 * (BOX_VERIFY_*), so tests aim them at namespaces of their own.
 */
#include "box/verify/verify.h"
#include "box/verify/verify_steer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "box/box.h"
#include "box/egress/egress.h"
#include "box/egress/egress_fw.h"
#include "box/life/life.h"
#include "box/life/waits.h"
#include "incus/exec.h"
#include "incus/json.h"
#include "incus/network.h"
#include "model/names.h"
#include "net/dnsq.h"
#include "net/neigh.h"
#include "net/netns.h"
#include "net/nl.h"
#include "net/rtnl.h"
#include "net/sniff.h"
#include "util/clock.h"
#include "util/lines.h"
#include "util/text.h"

#define MAXT		96
#define MAX_SIB		16
#define MAX_ADDRS	64
#define DEF_MS		2000
#define DNS_GRACE_MS	6000

enum { OBS_BOX, OBS_UDP, OBS_ARP };
enum { R_HELD, R_BREACH, R_FAILED, R_UNJUDGED };
static const char *const rword[] = { "held", "BREACH", "FAILED",
    "unjudged" };

struct target {
	char id[VERIFY_ID];
	const char *clause;
	char what[128];
	char kind[8];
	char a[64], s[64], n[128], tok[48];
	int port;
	int reach;		/* 1: must connect; 0: must not arrive */
	int obs;		/* OBS_*: who observes */
	uint32_t claim, src, dst;	/* OBS_ARP / OBS_UDP, host order */
	char saw[VERIFY_VERDICT];
	int result;
	/* what the host saw on the box's own port (its host-side veth) */
	int qid;		/* the probe's DNS query / ICMP echo id */
	uint32_t to;		/* tcp, icmp: the target; name: its answer */
	int left;		/* the probe's packet left the box */
	int answered;		/* 1 an answer (RST, reply) went into the box;
				   2 a SYN-ACK */
	int dns_left, dns_seen, dns_has;	/* name: the question, the
						   answer, an address in it */
	int boxsays;		/* only the box's own state says it */
};

struct plan {
	struct target t[MAXT];
	int n, ms, baseline;	/* baseline: index of the egress probe */
	char name[BOX_NAME_MAX], self[16], gw[16], policy[512];
	uint8_t mac[6];
	int allow;
	char lan_note[160];
	char veth[16];		/* the host side of the box's eth0 */
	long long pid;		/* its init, on this host */
	int vm;			/* a VM: the probes run in the guest */
	uint32_t self_a, gw_a;
	uint32_t names;		/* the host's name server for the boxes'
				   names (host order), 0: none */
	int steered;		/* the box's namespace holds routing of its
				   own (verify_steer.h): >0 entries, <0
				   unreadable */
	char steer[200];	/* what, named */
};

/* --- small things -------------------------------------------------------- */

static const char *
env_or(const char *k, const char *def)
{
	const char *v = getenv(k);

	return v != NULL && *v != '\0' ? v : def;
}

/* "host[:port]" -> host, port (def when absent): 0, or -EINVAL. */
static int
split_hp(const char *s, char *host, size_t cap, int *port, int def)
{
	const char *c = strrchr(s, ':');
	char *end;
	long p;

	*port = def;
	if (c == NULL) {
		if (strlen(s) >= cap)
			return -EINVAL;
		snprintf(host, cap, "%s", s);
	} else {
		if ((size_t)(c - s) >= cap)
			return -EINVAL;
		snprintf(host, cap, "%.*s", (int)(c - s), s);
		p = strtol(c + 1, &end, 10);
		if (*end != '\0' || p < 1 || p > 65535)
			return -EINVAL;
		*port = (int)p;
	}
	return host[0] ? 0 : -EINVAL;
}

static int
parse4h(const char *s, uint32_t *a)
{
	struct in_addr ia;

	if (inet_pton(AF_INET, s, &ia) != 1)
		return -EINVAL;
	*a = ntohl(ia.s_addr);
	return 0;
}

static void
fmt4h(uint32_t a, char *buf, size_t cap)
{
	struct in_addr ia = { htonl(a) };

	inet_ntop(AF_INET, &ia, buf, (socklen_t)cap);
}

static struct target *
add(struct plan *p, const char *id, const char *clause, const char *kind,
    int reach, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static struct target *
add(struct plan *p, const char *id, const char *clause, const char *kind,
    int reach, const char *fmt, ...)
{
	struct target *t;
	va_list ap;

	if (p->n >= MAXT)
		return NULL;
	t = &p->t[p->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", id);
	t->clause = clause;
	snprintf(t->kind, sizeof(t->kind), "%s", kind);
	t->reach = reach;
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
	return t;
}

int
verify_policy_read(const char *v, char *allow, size_t cap)
{
	struct egress pol;
	char why[160];
	size_t k = 0;
	int i, n;

	allow[0] = '\0';
	if (egress_parse(v, &pol, why, sizeof(why)) < 0)
		return -EINVAL;
	if (pol.mode != EGRESS_ALLOW)
		return 0;
	for (i = 0; i < pol.n; i++) {
		n = snprintf(allow + k, cap - k, "%s%s", i ? "," : "",
		    pol.pat[i]);
		if (n < 0 || (size_t)n >= cap - k)
			return -EINVAL;
		k += (size_t)n;
	}
	return 1;
}

/* The first pattern of the list that names one host (no wildcard). */
static int
first_literal(const char *list, char *out, size_t cap)
{
	const char *s = list;
	size_t n;

	while (*s) {
		n = strcspn(s, ",");
		if (n > 0 && n < cap && memchr(s, '*', n) == NULL) {
			snprintf(out, cap, "%.*s", (int)n, s);
			return 0;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return -ENOENT;
}

/* --- the targets --------------------------------------------------------- */

static int
plan_egress(struct plan *p, struct box_err *e)
{
	uint32_t x, g = 0;
	char a[16], why[96];
	char h[128], ref[128];
	int port;
	struct target *t;

	if (!p->allow) {
		if (split_hp(env_or("BOX_VERIFY_INET_ADDR", "1.1.1.1:443"), h,
		    sizeof(h), &port, 443) < 0)
			return err_usage(e, "BOX_VERIFY_INET_ADDR is not "
			    "a.b.c.d[:port]");
		p->baseline = p->n;
		t = add(p, "inet", "egress", "tcp", 1, "the internet by "
		    "address, %s:%d (policy open)", h, port);
		snprintf(t->a, sizeof(t->a), "%.63s", h);
		t->port = port;
		if (split_hp(env_or("BOX_VERIFY_INET_NAME",
		    "deb.debian.org:443"), h, sizeof(h), &port, 443) < 0)
			return err_usage(e, "BOX_VERIFY_INET_NAME is not "
			    "name[:port]");
		t = add(p, "inetname", "egress", "name", 1, "the internet by "
		    "name, %s:%d (policy open)", h, port);
		snprintf(t->n, sizeof(t->n), "%s", h);
		t->port = port;
		return 0;
	}
	if (first_literal(p->policy, ref, sizeof(ref)) < 0)
		snprintf(ref, sizeof(ref), "%s", "");
	if (split_hp(env_or("BOX_VERIFY_ALLOWED", ref), h, sizeof(h), &port,
	    443) < 0)
		return err_usage(e, "the policy allows only wildcards: name "
		    "an allowed host with BOX_VERIFY_ALLOWED=name[:port]");
	p->baseline = p->n;
	t = add(p, "allowed", "egress", "name", 1, "an allowed name, %s:%d "
	    "(policy allow:%s)", h, port, p->policy);
	snprintf(t->n, sizeof(t->n), "%s", h);
	t->port = port;
	if (split_hp(env_or("BOX_VERIFY_REFUSED", "example.com:443"), h,
	    sizeof(h), &port, 443) < 0)
		return err_usage(e, "BOX_VERIFY_REFUSED is not name[:port]");
	t = add(p, "refused", "egress", "name", 0, "a name the policy does "
	    "not allow, %s:%d", h, port);
	snprintf(t->n, sizeof(t->n), "%s", h);
	t->port = port;
	/* Box's resolver does not name it to the box (the view), so the
	 * kernel's layer is probed by its address, asked by this host of
	 * the name server it uses for the boxes' names. */
	if (p->names != 0 && parse4h(p->gw, &g) == 0 && p->names != g &&
	    dnsq_ask(p->names, h, 1500, &x, why, sizeof(why)) == 1) {
		fmt4h(x, a, sizeof(a));
		t = add(p, "refusedaddr", "egress", "tcp", 0, "that name's "
		    "address, %s:%d (the view aside)", a, port);
		snprintf(t->a, sizeof(t->a), "%s", a);
		t->port = port;
	}
	return 0;
}

/* The host: the gateway and every address of this host, over rtnetlink. */
static int
plan_host(struct plan *p, struct rtnl_addr4 *ad, int nad, struct box_err *e)
{
	const char *hp = env_or("BOX_VERIFY_HOST_PORT", "22");
	char a[16], id[VERIFY_ID];
	struct target *t;
	int port = atoi(hp), i, k = 0;

	if (port < 1 || port > 65535)
		return err_usage(e, "BOX_VERIFY_HOST_PORT is not a port");
	t = add(p, "gw", "host", "tcp", 0, "the host at the gateway %s:%d",
	    p->gw, port);
	snprintf(t->a, sizeof(t->a), "%s", p->gw);
	t->port = port;
	t = add(p, "gwicmp", "host", "icmp", 0, "the host at the gateway %s, "
	    "ICMP echo", p->gw);
	snprintf(t->a, sizeof(t->a), "%s", p->gw);
	for (i = 0; i < nad; i++) {
		uint32_t h = ntohl(ad[i].addr.s_addr);

		fmt4h(h, a, sizeof(a));
		if ((h >> 24) == 127 || strcmp(a, p->gw) == 0)
			continue;	/* 127/8: the box's own loopback */
		k++;
		snprintf(id, sizeof(id), "h%d", k);
		t = add(p, id, "host", "tcp", 0, "the host at %s:%d (%s)", a,
		    port, ad[i].label[0] ? ad[i].label : "an address");
		if (t == NULL)
			break;
		snprintf(t->a, sizeof(t->a), "%s", a);
		t->port = port;
		snprintf(id, sizeof(id), "h%dd", k);
		t = add(p, id, "host", "tcp", 0, "the host's DNS port at %s:53 "
		    "(a box asks only the gateway)", a);
		if (t == NULL)
			break;
		snprintf(t->a, sizeof(t->a), "%s", a);
		t->port = 53;
	}
	return 0;
}

/* The host's LAN: its default gateway and an address of its subnet. */
static int
plan_lan(struct plan *p, struct rtnl_addr4 *ad, int nad,
    struct rtnl_route4 *rt, int nrt, struct box_err *e)
{
	const struct rtnl_route4 *d = rtnl_default_route4(rt, (size_t)nrt);
	char gw[64] = "", sub[64] = "", h[64];
	uint32_t g, net, m, x;
	int port, i;
	struct target *t;

	if (d != NULL && d->has_gw) {
		fmt4h(ntohl(d->gw.s_addr), gw, sizeof(gw));
		g = ntohl(d->gw.s_addr);
		for (i = 0; i < nad && sub[0] == '\0'; i++) {
			if (ad[i].ifindex != d->oif || ad[i].prefixlen == 0 ||
			    ad[i].prefixlen > 30)
				continue;
			m = 0xffffffffu << (32 - ad[i].prefixlen);
			net = ntohl(ad[i].addr.s_addr) & m;
			/* the first address that is neither the gateway nor
			 * this host */
			for (x = net + 1; x < net + 4; x++)
				if (x != g && x != ntohl(ad[i].addr.s_addr))
					break;
			fmt4h(x, sub, sizeof(sub));
		}
	}
	if (split_hp(env_or("BOX_VERIFY_LAN_GATEWAY", gw), h, sizeof(h),
	    &port, 80) == 0 && parse4h(h, &g) == 0) {
		t = add(p, "langw", "lan", "tcp", 0, "the host's LAN, its "
		    "default gateway %s:%d", h, port);
		snprintf(t->a, sizeof(t->a), "%.63s", h);
		t->port = port;
	} else if (getenv("BOX_VERIFY_LAN_GATEWAY") != NULL) {
		return err_usage(e, "BOX_VERIFY_LAN_GATEWAY is not "
		    "a.b.c.d[:port]");
	} else {
		snprintf(p->lan_note, sizeof(p->lan_note), "this host has no "
		    "IPv4 default route: no LAN to probe");
	}
	if (split_hp(env_or("BOX_VERIFY_LAN_ADDR", sub), h, sizeof(h), &port,
	    22) == 0 && parse4h(h, &g) == 0) {
		t = add(p, "lanaddr", "lan", "tcp", 0, "the host's LAN, %s:%d "
		    "in its subnet", h, port);
		snprintf(t->a, sizeof(t->a), "%.63s", h);
		t->port = port;
	} else if (getenv("BOX_VERIFY_LAN_ADDR") != NULL) {
		return err_usage(e, "BOX_VERIFY_LAN_ADDR is not "
		    "a.b.c.d[:port]");
	}
	return 0;
}

/*
 * The siblings: every other address the box network's records hold
 * (GET /1.0/networks/<bridge>/leases), the first one also claimed by the
 * forged ARP and source.
 */
static int
plan_siblings(struct incus *c, struct plan *p, char *first, size_t cap,
    struct box_err *e)
{
	struct incus_leases l;
	char a[64], who[64], id[VERIFY_ID];
	const char *sp = env_or("BOX_VERIFY_SIBLING_PORT", "22");
	/* whose address the forged frames claim: else the first sibling */
	const char *claim = getenv("BOX_VERIFY_SIBLING");
	struct target *t;
	int k = 0, port = atoi(sp), rc;
	size_t i;

	first[0] = '\0';
	if (port < 1 || port > 65535)
		return err_usage(e, "BOX_VERIFY_SIBLING_PORT is not a port");
	rc = incus_network_leases(c, CONTRACT_BRIDGE, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n && k < MAX_SIB; i++) {
		const struct incus_lease *ls = &l.v[i];
		uint32_t x;

		if (ls->address == NULL || strlen(ls->address) >= sizeof(a))
			continue;
		snprintf(a, sizeof(a), "%s", ls->address);
		if (parse4h(a, &x) < 0 || strcmp(a, p->self) == 0 ||
		    strcmp(a, p->gw) == 0)
			continue;
		snprintf(who, sizeof(who), "%s", ls->hostname ? ls->hostname :
		    "");
		/* dhcp-ignore-names: dnsmasq knows no names; the MAC, then */
		if (who[0] == '\0' || strcmp(who, "*") == 0)
			snprintf(who, sizeof(who), "%s", ls->hwaddr ?
			    ls->hwaddr : "?");
		text_shown_in(who, sizeof(who));
		if (first[0] == '\0' && (claim == NULL || *claim == '\0' ||
		    strcmp(claim, a) == 0))
			snprintf(first, cap, "%s", a);
		k++;
		snprintf(id, sizeof(id), "s%d", k);
		t = add(p, id, "sibling", "tcp", 0, "sibling %s at %s:%d", who,
		    a, port);
		if (t == NULL)
			break;
		snprintf(t->a, sizeof(t->a), "%s", a);
		t->port = port;
		snprintf(id, sizeof(id), "s%di", k);
		t = add(p, id, "sibling", "icmp", 0, "sibling %s at %s, ICMP "
		    "echo", who, a);
		if (t == NULL)
			break;
		snprintf(t->a, sizeof(t->a), "%s", a);
	}
	incus_leases_free(&l);
	if (claim != NULL && *claim != '\0' && first[0] == '\0')
		return err_usage(e, "BOX_VERIFY_SIBLING=%.40s is no sibling's "
		    "address in %s's leases", claim, CONTRACT_BRIDGE);
	return 0;
}

static int
plan_forged(struct plan *p, const char *sib, struct box_err *e)
{
	char inet[64], tokbase[32];
	const char *fs = env_or("BOX_VERIFY_FORGE_SRC", "198.18.0.99");
	int port, fport = atoi(env_or("BOX_VERIFY_FORGE_PORT", "9"));
	unsigned rnd = 0;
	struct target *t;
	uint32_t x;

	if (fport < 1 || fport > 65535)
		return err_usage(e, "BOX_VERIFY_FORGE_PORT is not a port");
	if (parse4h(fs, &x) < 0)
		return err_usage(e, "BOX_VERIFY_FORGE_SRC is not a.b.c.d");
	if (split_hp(env_or("BOX_VERIFY_INET_ADDR", "1.1.1.1:443"), inet,
	    sizeof(inet), &port, 443) < 0 || parse4h(inet, &x) < 0)
		return err_usage(e, "BOX_VERIFY_INET_ADDR is not "
		    "a.b.c.d[:port]");
	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd = (unsigned)clock_ms();
	snprintf(tokbase, sizeof(tokbase), "box-verify-%08x", rnd);
	t = add(p, "forge", "forged", "forge", 0, "a forged source %s -> "
	    "%s:%d, seen past the box's port?", fs, inet, fport);
	snprintf(t->a, sizeof(t->a), "%s", inet);
	snprintf(t->s, sizeof(t->s), "%s", fs);
	snprintf(t->tok, sizeof(t->tok), "%s-f", tokbase);
	t->port = fport;
	t->obs = OBS_UDP;
	parse4h(fs, &t->src);
	parse4h(inet, &t->dst);
	if (sib[0]) {
		t = add(p, "forgesib", "forged", "forge", 0, "a sibling's "
		    "source %s -> %s:%d, seen past the box's port?", sib, inet,
		    fport);
		snprintf(t->a, sizeof(t->a), "%s", inet);
		snprintf(t->s, sizeof(t->s), "%s", sib);
		snprintf(t->tok, sizeof(t->tok), "%s-s", tokbase);
		t->port = fport;
		t->obs = OBS_UDP;
		parse4h(sib, &t->src);
		parse4h(inet, &t->dst);
	}
	t = add(p, "arpgw", "arp", "arp", 0, "a forged ARP claiming the "
	    "gateway %s, seen past the box's port?", p->gw);
	snprintf(t->a, sizeof(t->a), "%s", p->gw);
	t->obs = OBS_ARP;
	parse4h(p->gw, &t->claim);
	if (sib[0]) {
		t = add(p, "arpsib", "arp", "arp", 0, "a forged ARP claiming "
		    "sibling %s, seen past the box's port?", sib);
		snprintf(t->a, sizeof(t->a), "%s", sib);
		t->obs = OBS_ARP;
		parse4h(sib, &t->claim);
	}
	return 0;
}

static void
plan_v6(struct plan *p)
{
	struct target *t = add(p, "v6", "ipv6", "v6", 0, "IPv6: a global "
	    "address or a route in the box");

	if (t != NULL)
		t->boxsays = 1;	/* its own namespace's state: the box's word */
	add(p, "v6ping", "ipv6", "v6ping", 0, "IPv6: an echo to every node "
	    "on the link (the host's link-local, the siblings')");
}

static int
parse_mac(const char *s, uint8_t m[6])
{
	unsigned v[6];
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x", &v[0], &v[1], &v[2], &v[3],
	    &v[4], &v[5]) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
	return 0;
}

/* The box: running, its policy, its MAC, its address; the gateway. */
static int
plan_box(struct incus *c, const char *name, struct plan *p,
    struct box_err *e)
{
	struct incus_instance in;
	struct incus_network net;
	struct box_info bi;
	char v[600], mac[32];
	int rc;

	if ((rc = box_get(c, name, INCUS_INST_STATE, &in, &bi, e)) < 0)
		return rc;
	if (!bi.running) {
		incus_instance_free(&in);
		err_set(e, -EAGAIN, "box %s is %s: verify probes from inside "
		    "a running box", name, bi.status);
		err_fix(e, "box start %s", name);
		return -EAGAIN;
	}
	snprintf(v, sizeof(v), "%s", incus_kv_or(&in.config, "user.box.egress",
	    ""));
	snprintf(mac, sizeof(mac), "%s", incus_kv_or(&in.config,
	    "volatile." CONTRACT_NIC ".hwaddr", ""));
	p->vm = strcmp(in.type, "virtual-machine") == 0;
	p->pid = in.state.pid;
	{
		const struct incus_nic_state *ns = incus_state_nic(&in.state,
		    CONTRACT_NIC);

		if (ns != NULL && strlen(ns->host_name) < sizeof(p->veth))
			snprintf(p->veth, sizeof(p->veth), "%s", ns->host_name);
	}
	incus_instance_free(&in);
	if (p->veth[0] == '\0')
		return err_set(e, -EAGAIN, "box %s: the daemon names no host "
		    "side of its %s: its port cannot be watched", name,
		    CONTRACT_NIC);
	p->allow = verify_policy_read(v, p->policy, sizeof(p->policy));
	if (p->allow < 0) {
		/* raw: the error printer escapes it, once (text_shown) */
		return err_set(e, -EINVAL, "box %s has an egress policy verify "
		    "cannot read (user.box.egress=%.100s)", name, v);
	}
	if (parse_mac(mac, p->mac) < 0)
		return err_set(e, -EINVAL, "box %s has no MAC on %s "
		    "(volatile.%s.hwaddr)", name, CONTRACT_NIC, CONTRACT_NIC);
	if ((rc = incus_network_get(c, CONTRACT_BRIDGE, &net, e)) < 0)
		return rc;
	snprintf(v, sizeof(v), "%s", incus_kv_or(&net.config, "ipv4.address",
	    ""));
	incus_network_free(&net);
	v[strcspn(v, "/")] = '\0';
	if (parse4h(v, &(uint32_t){ 0 }) < 0)
		return err_set(e, -EINVAL, "%s has no IPv4 gateway address",
		    CONTRACT_BRIDGE);
	snprintf(p->gw, sizeof(p->gw), "%.15s", v);
	return life_wait_address(c, name, clock_ms() + 15000, NULL, p->self,
	    sizeof(p->self), e);
}

/* Each probe's own query/echo id, and the addresses the host matches. */
static void
plan_ids(struct plan *p)
{
	uint16_t base = 0;
	int k;

	if (getrandom(&base, sizeof(base), 0) != (ssize_t)sizeof(base))
		base = (uint16_t)clock_ms();
	parse4h(p->self, &p->self_a);
	parse4h(p->gw, &p->gw_a);
	for (k = 0; k < p->n; k++) {
		struct target *t = &p->t[k];

		t->qid = (uint16_t)(base + k) ? (uint16_t)(base + k) : 1;
		if (strcmp(t->kind, "tcp") == 0 || strcmp(t->kind, "icmp") == 0)
			parse4h(t->a, &t->to);
	}
}

static int
plan_build(struct incus *c, const char *name, uint32_t names,
    struct plan *p, struct box_err *e)
{
	struct rtnl_addr4 *ad = calloc(MAX_ADDRS, sizeof(*ad));
	struct rtnl_route4 *rt = calloc(512, sizeof(*rt));
	struct nl_sock s;
	char sib[64];
	int nad = 0, nrt = 0, rc;
	long ms = strtol(env_or("BOX_VERIFY_TIMEOUT_MS", "2000"), NULL, 10);

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->names = names;
	p->ms = ms >= 200 && ms <= 30000 ? (int)ms : DEF_MS;
	if (ad == NULL || rt == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = plan_box(c, name, p, e)) < 0)
		goto out;
	if ((rc = nl_open(&s, NETLINK_ROUTE, e)) < 0)
		goto out;
	nad = rtnl_addrs4(&s, ad, MAX_ADDRS, e);
	nrt = nad < 0 ? 0 : rtnl_routes4(&s, rt, 512, e);
	nl_close(&s);
	if ((rc = nad < 0 ? nad : nrt) < 0) {
		err_context(e, "reading this host's addresses and routes");
		goto out;
	}
	if ((rc = plan_egress(p, e)) < 0 || (rc = plan_host(p, ad, nad, e)) <
	    0 || (rc = plan_lan(p, ad, nad, rt, nrt, e)) < 0 ||
	    (rc = plan_siblings(c, p, sib, sizeof(sib), e)) < 0 ||
	    (rc = plan_forged(p, sib, e)) < 0)
		goto out;
	plan_v6(p);
	plan_ids(p);
out:
	free(ad);
	free(rt);
	return rc;
}

/* --- the run ------------------------------------------------------------- */

static int
plan_text(const struct plan *p, char **out)
{
	static const size_t cap = 64u << 10;
	struct lines_w w;
	char *buf = malloc(cap);
	int i;

	*out = NULL;
	if (buf == NULL)
		return -ENOMEM;
	lines_w_init(&w, buf, cap);
	lines_put(&w, VERIFY_PLAN_MAGIC, "%s", VERIFY_FORMAT);
	lines_put(&w, "t", "%d", p->ms);
	/* names go to the contract's resolver, the gateway, with the ids
	 * below: the host reads their answers off the box's port */
	lines_put(&w, "d", "%s", p->gw);
	for (i = 0; i < p->n; i++) {
		const struct target *t = &p->t[i];

		lines_put(&w, "p", "%s", t->id);
		lines_put(&w, "k", "%s", t->kind);
		lines_put(&w, "a", "%s", t->a);
		lines_put(&w, "s", "%s", t->s);
		lines_put(&w, "n", "%s", t->n);
		lines_put(&w, "tok", "%s", t->tok);
		lines_put(&w, "port", "%d", t->port);
		lines_put(&w, "q", "%d", t->qid);
	}
	if (lines_w_end(&w) < 0) {
		free(buf);
		return -ENOSPC;
	}
	*out = buf;
	return 0;
}

/*
 * A VM: the plan run in the guest by the one in-box runner
 * (life_run_inside); the report is the guest's word.
 */
static int
run_guest(struct incus *c, struct plan *p, struct exec_buf *rep,
    struct box_err *e)
{
	char *pj = NULL, *ep;
	const char *args[] = { "verify", "--inside", NULL };
	const char *env[] = { "BOX_VERIFY_INSIDE=1", NULL,
	    "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	struct life_inside in = { "verify", args, env, 0 };
	struct exec_status st;
	int rc;

	if (plan_text(p, &pj) < 0)
		return err_set(e, -ENOMEM, "the plan did not fit");
	ep = malloc(strlen(pj) + 20);
	if (ep == NULL) {
		free(pj);
		return err_set(e, -ENOMEM, "out of memory");
	}
	sprintf(ep, "BOX_VERIFY_PLAN=%s", pj);
	free(pj);
	env[1] = ep;
	in.timeout_ms = p->ms + DNS_GRACE_MS + 20000;
	rc = life_run_inside(c, p->name, &in, rep, &st, e);
	free(ep);
	if (rc == 0 && (st.err[0] != '\0' || st.code != 0))
		rc = err_set(e, -EIO, "the in-box probes did not finish (exit "
		    "%d%s%.200s)", st.code, st.err[0] ? ": " : "", st.err);
	return rc;
}

/* The plan run by this process in the container's network namespace. */
struct ns_arg {
	const char *plan;
	size_t n;
};

static ssize_t
ns_probe(void *arg, char *out, size_t cap)
{
	const struct ns_arg *a = arg;

	return verify_run(a->plan, a->n, out, cap);
}

/*
 * A container: the probes run here, in a child that entered the network
 * namespace of the box's init (the daemon's pid for it) - no file goes
 * into the box and no process of the box's takes part.
 */
static int
run_netns(struct plan *p, struct exec_buf *rep, struct box_err *e)
{
	struct netns ns;
	struct ns_arg a;
	char *pt = NULL;
	int rc;

	if (plan_text(p, &pt) < 0)
		return err_set(e, -ENOMEM, "the plan did not fit");
	if ((rc = netns_open(&ns, (pid_t)p->pid, e)) < 0) {
		free(pt);
		err_context(e, "entering the network of %s", p->name);
		if (rc == -EPERM || rc == -EACCES)
			err_fix(e, "run box verify as root");
		return rc;
	}
	a.plan = pt;
	a.n = strlen(pt);
	rc = netns_run(&ns, ns_probe, &a, rep->p, rep->cap, p->ms +
	    DNS_GRACE_MS + 5000, e);
	netns_close(&ns);
	free(pt);
	if (rc < 0)
		return rc;
	rep->len = (size_t)rc;
	return 0;
}

/* What the box's port carried, as the host saw it, one packet a record. */
struct seen {
	uint8_t kind, in;	/* in: toward the box */
	uint8_t flags, type;
	uint16_t sport, dport, id;
	uint32_t saddr, daddr;
	int dns;		/* a DNS answer: -1 none, 0 no address, 1 one */
	uint32_t dns_a;
	uint8_t sha[6];		/* ARP: the sender's MAC */
	uint16_t op;		/* ARP: 1 request, 2 reply */
};

#define SEEN_MAX	8192

static void
seen_dns(struct seen *r, const struct sniff_frame *fr)
{
	int rcode;

	r->dns = -1;
	if (fr->plen < 12)
		return;
	r->id = (uint16_t)(fr->payload[0] << 8 | fr->payload[1]);
	r->dns = dnsq_reply(fr->payload, fr->plen, r->id, &r->dns_a,
	    &rcode);
	if (r->dns < 0)
		r->dns = -1;
}

/* Read the port's capture into v (at most SEEN_MAX): how many. */
static int
port_read(struct sniff *sn, struct seen *v)
{
	uint8_t f[SNIFF_FRAME_MAX];
	struct sniff_frame fr;
	size_t len;
	int n = 0, out, frames = 0;

	while (n < SEEN_MAX && frames++ < 200000 &&
	    sniff_next_any(sn, f, sizeof(f), &len, &out) == 1) {
		struct seen *r = &v[n];

		if (sniff_parse(f, len, &fr) != 1)
			continue;
		memset(r, 0, sizeof(*r));
		r->kind = (uint8_t)fr.kind;
		r->in = (uint8_t)out;
		r->saddr = fr.kind == SNIFF_ARP ? fr.spa : fr.saddr;
		r->daddr = fr.kind == SNIFF_ARP ? fr.tpa : fr.daddr;
		r->sport = fr.sport;
		r->dport = fr.dport;
		r->flags = fr.tcpflags;
		r->type = fr.icmptype;
		r->id = fr.icmpid;
		r->dns = -1;
		if (fr.kind == SNIFF_UDP4 && fr.sport == 53 && out)
			seen_dns(r, &fr);
		else if (fr.kind == SNIFF_UDP4 && fr.dport == 53 && !out &&
		    fr.plen >= 2)
			r->id = (uint16_t)(fr.payload[0] << 8 | fr.payload[1]);
		if (fr.kind == SNIFF_ARP) {
			memcpy(r->sha, fr.sha, 6);
			r->op = fr.op;
		}
		n++;
	}
	return n;
}

/* One target against the capture: left, answered, the DNS answer. */
static void
port_match(const struct plan *p, struct target *t, const struct seen *v,
    int n)
{
	int i, tcp = strcmp(t->kind, "tcp") == 0 || strcmp(t->kind, "name") == 0;

	if (strcmp(t->kind, "name") == 0) {
		for (i = 0; i < n; i++) {
			const struct seen *r = &v[i];

			if (r->kind == SNIFF_UDP4 && !r->in && r->dport == 53 &&
			    r->saddr == p->self_a && r->daddr == p->gw_a &&
			    r->id == t->qid)
				t->dns_left = 1;
			if (r->kind == SNIFF_UDP4 && r->in && r->sport == 53 &&
			    r->saddr == p->gw_a && r->daddr == p->self_a &&
			    r->dns >= 0 && r->id == t->qid && !t->dns_seen) {
				t->dns_seen = 1;
				t->dns_has = r->dns == 1;
				t->to = r->dns == 1 ? r->dns_a : 0;
			}
		}
		if (!t->dns_has)
			return;
	}
	for (i = 0; i < n; i++) {
		const struct seen *r = &v[i];

		/* on the box's own link: it asks for the address first; a
		 * question nobody answers is as far as the packet got */
		if (r->kind == SNIFF_ARP && !r->in && r->op == 1 &&
		    r->saddr == p->self_a && r->daddr == t->to &&
		    (t->to & 0xffffff00u) == (p->self_a & 0xffffff00u) &&
		    strcmp(t->kind, "v6ping") != 0)
			t->left = 1;
		if (tcp && r->kind == SNIFF_TCP4) {
			if (!r->in && r->saddr == p->self_a && r->daddr == t->to &&
			    r->dport == t->port && (r->flags & SNIFF_TCP_SYN) &&
			    !(r->flags & SNIFF_TCP_ACK))
				t->left = 1;
			if (r->in && r->saddr == t->to && r->daddr == p->self_a &&
			    r->sport == t->port) {
				if ((r->flags & (SNIFF_TCP_SYN | SNIFF_TCP_ACK)) ==
				    (SNIFF_TCP_SYN | SNIFF_TCP_ACK))
					t->answered = 2;
				else if ((r->flags & SNIFF_TCP_RST) &&
				    t->answered == 0)
					t->answered = 1;
			}
		} else if (strcmp(t->kind, "icmp") == 0 &&
		    r->kind == SNIFF_ICMP4 && r->id == t->qid) {
			if (!r->in && r->type == 8 && r->saddr == p->self_a &&
			    r->daddr == t->to)
				t->left = 1;
			if (r->in && r->type == 0 && r->saddr == t->to &&
			    r->daddr == p->self_a)
				t->answered = 1;
		} else if (strcmp(t->kind, "v6ping") == 0 &&
		    r->kind == SNIFF_ICMP6) {
			if (!r->in && r->type == 128)
				t->left = 1;
			if (r->in && r->type == 129)
				t->answered = 1;
		}
	}
}

static void
fmt_to(uint32_t a, char *buf, size_t cap)
{
	fmt4h(a, buf, cap);
}

/*
 * The host's verdict for a probe the box's side sent, from what its port
 * carried: an answer that went into the box means the packet arrived,
 * whatever the box's side says; "dropped" only when the packet left the
 * box and nothing came back; a packet that never left proves nothing.  The
 * box's side's own word is kept after it.
 */
static void
port_verdict(const struct plan *p, struct target *t)
{
	char box[VERIFY_VERDICT], a[16];
	const char *k = t->kind;

	if (t->boxsays) {
		snprintf(box, sizeof(box), "%s", t->saw);
		snprintf(t->saw, sizeof(t->saw), "%.150s (the box says)", box);
		return;
	}
	if (strcmp(k, "tcp") != 0 && strcmp(k, "icmp") != 0 &&
	    strcmp(k, "name") != 0 && strcmp(k, "v6ping") != 0)
		return;
	snprintf(box, sizeof(box), "%s", t->saw);
	if (strcmp(k, "v6ping") == 0 && !t->left && !t->answered &&
	    strstr(box, "nothing sent") != NULL) {
		/* no IPv6 source in the box's namespace: only its own state
		 * speaks, and it is labelled so */
		snprintf(t->saw, sizeof(t->saw), "%.150s (the box says)", box);
		t->boxsays = 1;
		return;
	}
	fmt_to(t->to, a, sizeof(a));
	if (strcmp(k, "name") == 0 && !t->dns_has) {
		if (t->dns_seen)
			snprintf(t->saw, sizeof(t->saw), "none (the gateway "
			    "answered %s without an address: seen on %s)",
			    t->n, p->veth);
		else if (t->dns_left)
			snprintf(t->saw, sizeof(t->saw), "none (the question "
			    "for %s left the box; no answer came back on %s)",
			    t->n, p->veth);
		else
			snprintf(t->saw, sizeof(t->saw), "error not sent (no "
			    "question for %s left the box's port %s; %.60s)",
			    t->n, p->veth, box);
		return;
	}
	if (t->answered == 2)
		snprintf(t->saw, sizeof(t->saw), "connected (%s answered: its "
		    "SYN-ACK went into the box on %s)", a, p->veth);
	else if (t->answered == 1)
		snprintf(t->saw, sizeof(t->saw), "%s (an answer from %s went "
		    "into the box on %s: the packet arrived)",
		    strcmp(k, "tcp") == 0 || strcmp(k, "name") == 0 ? "refused"
		    : "reply", strcmp(k, "v6ping") == 0 ? "a node" : a,
		    p->veth);
	else if (t->left)
		snprintf(t->saw, sizeof(t->saw), "dropped (it left the box on "
		    "%s; nothing came back in %d ms)", p->veth, p->ms);
	else
		snprintf(t->saw, sizeof(t->saw), "error not sent (nothing left "
		    "the box's port %s; the box's side said: %.60s)", p->veth,
		    box);
}

/* The forged frames: sent only when the host saw them leave the box. */
static void
port_forged(const struct plan *p, struct target *t, const struct seen *v,
    int n, const uint8_t *mac)
{
	int i;

	for (i = 0; i < n; i++) {
		const struct seen *r = &v[i];

		if (r->in)
			continue;
		if (t->obs == OBS_UDP && r->kind == SNIFF_UDP4 &&
		    r->saddr == t->src && r->daddr == t->dst &&
		    r->dport == t->port)
			t->left = 1;
		if (t->obs == OBS_ARP && r->kind == SNIFF_ARP &&
		    r->saddr == t->claim && memcmp(r->sha, mac, 6) == 0)
			t->left = 1;
	}
	if (!t->left && strncmp(t->saw, "sent", 4) == 0)
		snprintf(t->saw, sizeof(t->saw), "error not sent (no such "
		    "frame left the box's port %s: nothing to judge)", p->veth);
}

static void
take_port(struct plan *p, struct sniff *sn)
{
	struct seen *v = calloc(SEEN_MAX, sizeof(*v));
	int n, k;

	if (v == NULL) {
		for (k = 0; k < p->n; k++)
			snprintf(p->t[k].saw, sizeof(p->t[k].saw), "error out "
			    "of memory reading the port");
		return;
	}
	n = port_read(sn, v);
	for (k = 0; k < p->n; k++) {
		struct target *t = &p->t[k];

		if (t->obs == OBS_BOX) {
			port_match(p, t, v, n);
			port_verdict(p, t);
		} else {
			port_forged(p, t, v, n, p->mac);
		}
	}
	free(v);
}

int
verify_report_parse(const char *txt, size_t n,
    void (*fn)(void *arg, const char *id, const char *verdict), void *arg)
{
	char k[16], v[LINES_MAX_LINE], id[VERIFY_ID] = "";
	struct lines l;
	int rc;

	lines_init(&l, txt, n);
	if (lines_next(&l, k, sizeof(k), v, sizeof(v)) != 1 ||
	    strcmp(k, VERIFY_REPORT_MAGIC) != 0 || strcmp(v, VERIFY_FORMAT))
		return -EBOX_PROTO;
	while ((rc = lines_next(&l, k, sizeof(k), v, sizeof(v))) == 1) {
		if (strcmp(k, "r") == 0) {
			if (strlen(v) >= sizeof(id))
				return -EBOX_PROTO;
			memcpy(id, v, strlen(v) + 1);
		} else if (strcmp(k, "v") == 0 && id[0] != '\0') {
			fn(arg, id, v);
			id[0] = '\0';	/* one verdict per target */
		}
	}
	return rc < 0 ? rc : 0;
}

static void
take_verdict(void *arg, const char *id, const char *verdict)
{
	struct plan *p = arg;
	int k;

	for (k = 0; k < p->n; k++)
		if (strcmp(p->t[k].id, id) == 0 && !p->t[k].saw[0]) {
			snprintf(p->t[k].saw, sizeof(p->t[k].saw), "%.*s",
			    (int)sizeof(p->t[k].saw) - 1, verdict);
			text_shown_in(p->t[k].saw, sizeof(p->t[k].saw));
		}
}

/* The box's report: each target's verdict, by id. */
static int
take_report(struct plan *p, const char *txt, size_t n, struct box_err *e)
{
	if (verify_report_parse(txt, n, take_verdict, p) < 0)
		return err_set(e, -EBOX_PROTO, "the box's report: not a "
		    "verify report");
	return 0;
}

/* What the listener on the bridge heard, for the forged frames. */
static void
take_bridge(struct plan *p, struct sniff *sn)
{
	uint8_t f[SNIFF_FRAME_MAX];
	struct sniff_frame fr;
	size_t len;
	int k, heard[MAXT] = { 0 }, frames = 0;

	while (sniff_next(sn, f, sizeof(f), &len) == 1 && frames++ < 200000) {
		if (sniff_parse(f, len, &fr) != 1)
			continue;
		for (k = 0; k < p->n; k++) {
			const struct target *t = &p->t[k];

			if (t->obs == OBS_UDP && fr.kind == SNIFF_UDP4 &&
			    fr.saddr == t->src && fr.daddr == t->dst &&
			    sniff_has_token(fr.payload, fr.plen, t->tok))
				heard[k] = 1;
			if (t->obs == OBS_ARP && fr.kind == SNIFF_ARP &&
			    fr.spa == t->claim && memcmp(fr.sha, p->mac, 6) == 0)
				heard[k] = 1;
		}
	}
	for (k = 0; k < p->n; k++) {
		struct target *t = &p->t[k];

		if (t->obs == OBS_BOX)
			continue;
		if (strncmp(t->saw, "sent", 4) != 0)
			continue;	/* never sent: judged as an error */
		snprintf(t->saw, sizeof(t->saw), "%s", heard[k] ?
		    "arrived (the host's bridge received it)" :
		    "did not arrive (nothing reached the host's bridge)");
	}
}

/*
 * A forged ARP for a sibling that got past the port may have moved the
 * host's entry for the sibling to this box's MAC: forget it, so the host
 * asks again (the probe must not leave the breach it found behind).
 */
static void
forget_poisoned(struct plan *p)
{
	unsigned idx = if_nametoindex(CONTRACT_BRIDGE);
	struct nl_sock s;
	struct box_err e;
	uint32_t gw = 0;
	int k, open_ = 0;

	parse4h(p->gw, &gw);
	for (k = 0; k < p->n && idx != 0; k++) {
		struct target *t = &p->t[k];
		size_t l = strlen(t->saw);

		if (t->obs != OBS_ARP || t->claim == gw ||
		    strncmp(t->saw, "arrived", 7) != 0)
			continue;
		err_clear(&e);
		if (!open_ && nl_open(&s, NETLINK_ROUTE, &e) < 0)
			return;
		open_ = 1;
		if (neigh_del(&s, (int)idx, t->claim, &e) == 0)
			snprintf(t->saw + l, sizeof(t->saw) - l, "; the host's "
			    "entry for %s forgotten", t->a);
	}
	if (open_)
		nl_close(&s);
}

static int
starts(const char *s, const char *w)
{
	return strncmp(s, w, strlen(w)) == 0;
}

#define HOST_REFUSED	"refused by the host's egress rule"
#define HR_LOG		64	/* log entries looked at */

/*
 * The box's own routing could have steered its probes: silence proves
 * nothing about the host, so what silence judged is "unjudged", saying
 * why.  (What answered, or what the host's listener saw, stands.)
 */
static void
steered(struct plan *p)
{
	int k;
	size_t l;

	if (p->steered == 0)
		return;
	for (k = 0; k < p->n; k++) {
		struct target *t = &p->t[k];

		/* the host's rule counted and logged this one: not silence */
		if (t->obs != OBS_BOX || t->reach || t->result != R_HELD ||
		    starts(t->saw, HOST_REFUSED))
			continue;
		t->result = R_UNJUDGED;
		l = strlen(t->saw);
		snprintf(t->saw + l, sizeof(t->saw) - l, "; but the box's "
		    "namespace holds routing of its own");
	}
}

/* What the box's namespace holds beyond its plain routing, read before
 * and after the probes (a box may change it between). */
static void
steer_check(struct plan *p)
{
	struct box_err e;
	char why[sizeof(p->steer)];
	int rc;

	if (p->vm || getenv("BOX_VERIFY_TRUST_ROUTES") != NULL)
		return;		/* a test's control */
	err_clear(&e);
	rc = vsteer_read(p->pid, p->gw_a, why, sizeof(why), 3000, &e);
	if (rc < 0) {
		p->steered = -1;
		snprintf(p->steer, sizeof(p->steer), "its routing could not "
		    "be read: %.150s", e.msg);
	} else if (rc > 0 && p->steered >= 0) {
		p->steered += rc;
		if (p->steer[0] == '\0')
			snprintf(p->steer, sizeof(p->steer), "%s", why);
	}
}

/* --- the host's own refusals ------------------------------------------------- */

/* The box's refusal counter now (0 when it has no log: no rule). */
static uint64_t
refused_count(const char *box, struct egfw_refused *v, size_t *n)
{
	struct box_err quiet;
	uint64_t refused = 0;
	long long since;
	size_t total;

	err_clear(&quiet);
	*n = 0;
	if (egfw_log(box, v, HR_LOG, n, &total, &refused, &since, &quiet) < 0)
		return 0;
	return refused;
}

/*
 * A reset is a breach unless the host's own rule sent it: the probe's SYN
 * left the box's port, a reset for it came back in, the box's refusing
 * rules counted packets during the run, and their log holds this very
 * destination, refused since the run began.  A reset from anywhere else
 * (the target, the box itself) moves no counter of the host's.
 */
static void
host_refusals(struct plan *p, uint64_t before, long long t0)
{
	struct egfw_refused *v = calloc(HR_LOG, sizeof(*v));
	uint64_t after, age = (uint64_t)(clock_ms() - t0);
	char a[16];
	size_t n, i;
	int k;

	if (v == NULL || !p->allow)
		goto out;
	after = refused_count(p->name, v, &n);
	for (k = 0; after > before && k < p->n; k++) {
		struct target *t = &p->t[k];

		if (t->reach || strcmp(t->clause, "egress") != 0 ||
		    strcmp(t->kind, "tcp") != 0 || !starts(t->saw, "refused") ||
		    !t->left || t->answered != 1)
			continue;
		for (i = 0; i < n; i++)
			if (v[i].addr == t->to && v[i].proto == 6 &&
			    v[i].port == t->port && v[i].age_ms <= age)
				break;
		if (i == n)
			continue;
		fmt4h(t->to, a, sizeof(a));
		snprintf(t->saw, sizeof(t->saw), HOST_REFUSED " (its reset; "
		    "the rule counted %llu since the run began, its log "
		    "holds %s:%d)", (unsigned long long)(after - before), a,
		    t->port);
	}
out:
	free(v);
}

static void
judge(struct plan *p, int listened)
{
	int k, base_ok;

	for (k = 0; k < p->n; k++) {
		struct target *t = &p->t[k];
		const char *s = t->saw;

		if (!s[0])
			snprintf(t->saw, sizeof(t->saw), "error no verdict");
		if (t->obs != OBS_BOX && !listened && starts(s, "sent"))
			snprintf(t->saw, sizeof(t->saw), "error not observed "
			    "(no listener on %s)", CONTRACT_BRIDGE);
		if (t->reach)
			t->result = starts(s, "connected") ? R_HELD : R_FAILED;
		else if (starts(s, HOST_REFUSED) || starts(s, "dropped") ||
		    starts(s, "unreachable") ||
		    starts(s, "none") || starts(s, "did not arrive"))
			t->result = R_HELD;
		else if (starts(s, "connected") || starts(s, "refused") ||
		    starts(s, "reply") || starts(s, "arrived"))
			t->result = R_BREACH;
		else
			t->result = R_FAILED;
	}
	steered(p);
	base_ok = p->t[p->baseline].result == R_HELD;
	if (base_ok)
		return;
	/* no network, no meaning in silence: a "dropped" proves nothing */
	for (k = 0; k < p->n; k++)
		if (!p->t[k].reach && p->t[k].result == R_HELD)
			p->t[k].result = R_UNJUDGED;
}

/* --- the report ---------------------------------------------------------- */

static void
counts(const struct plan *p, int c[4])
{
	int k;

	c[0] = c[1] = c[2] = c[3] = 0;
	for (k = 0; k < p->n; k++)
		c[p->t[k].result]++;
}

static const char *
runner_text(const struct plan *p, char *buf, size_t cap)
{
	if (p->vm)
		snprintf(buf, cap, "probes run by the guest (a VM "
		    "shares no kernel with this host): every verdict is the "
		    "guest's word, checked against what its port %s carried "
		    "where the host can see it", p->veth);
	else
		snprintf(buf, cap, "probes run by this host in the "
		    "box's network namespace (init pid %lld); what arrived "
		    "is what its port %s carried", p->pid, p->veth);
	return buf;
}

static void
print_text(const struct plan *p)
{
	char rt[300];
	int c[4], k;

	printf("box verify %s (%s, egress %s%s%s)\n", p->name, p->self,
	    p->allow ? "allow:" : "open", p->allow ? p->policy : "",
	    p->t[p->baseline].result == R_HELD ? "" : "; the BASELINE FAILED"
	    ": no isolation verdict can be trusted");
	printf("%s\n", runner_text(p, rt, sizeof(rt)));
	printf("%-8s %-9s %-62s %s\n", "CLAUSE", "RESULT", "PROBE",
	    "OBSERVED");
	for (k = 0; k < p->n; k++)
		printf("%-8s %-9s %-62s %s\n", p->t[k].clause,
		    rword[p->t[k].result], p->t[k].what, p->t[k].saw);
	if (p->lan_note[0])
		printf("note: %s\n", p->lan_note);
	if (p->steered != 0)
		printf("unjudged: %s's network namespace holds routing of its "
		    "own (%s): a probe that went unanswered may have been "
		    "steered away from the host, so silence proves nothing\n",
		    p->name, p->steer);
	counts(p, c);
	if (c[1] + c[2] + c[3] == 0)
		printf("verify %s: all %d probes held\n", p->name, p->n);
	else
		printf("verify %s: %d BREACHED, %d failed, %d unjudged, %d "
		    "held\n", p->name, c[1], c[2], c[3], c[0]);
}

static int
print_json(const struct plan *p, struct box_err *e)
{
	struct json_w w;
	char rt[300], *out = NULL;
	size_t len;
	int c[4], k;

	counts(p, c);
	json_w_init(&w, 256 << 10);
	json_w_obj(&w);
	json_w_key(&w, "box");
	json_w_str(&w, p->name);
	json_w_key(&w, "address");
	json_w_str(&w, p->self);
	json_w_key(&w, "gateway");
	json_w_str(&w, p->gw);
	json_w_key(&w, "egress");
	json_w_str(&w, p->allow ? "allow" : "open");
	json_w_key(&w, "allow");
	json_w_str(&w, p->policy);
	json_w_key(&w, "baseline");
	json_w_bool(&w, p->t[p->baseline].result == R_HELD);
	json_w_key(&w, "ok");
	json_w_bool(&w, c[1] + c[2] + c[3] == 0);
	json_w_key(&w, "held");
	json_w_int(&w, c[0]);
	json_w_key(&w, "breached");
	json_w_int(&w, c[1]);
	json_w_key(&w, "failed");
	json_w_int(&w, c[2]);
	json_w_key(&w, "unjudged");
	json_w_int(&w, c[3]);
	json_w_key(&w, "note");
	json_w_str(&w, p->lan_note);
	json_w_key(&w, "own_routing");	/* "" none: see verify_steer.h */
	json_w_str(&w, p->steer);
	json_w_key(&w, "probes_run_by");
	json_w_str(&w, p->vm ? "guest" : "host");
	json_w_key(&w, "runner");
	json_w_str(&w, runner_text(p, rt, sizeof(rt)));
	json_w_key(&w, "probes");
	json_w_arr(&w);
	for (k = 0; k < p->n; k++) {
		const struct target *t = &p->t[k];

		json_w_obj(&w);
		json_w_key(&w, "id");
		json_w_str(&w, t->id);
		json_w_key(&w, "clause");
		json_w_str(&w, t->clause);
		json_w_key(&w, "probe");
		json_w_str(&w, t->what);
		json_w_key(&w, "target");
		json_w_str(&w, t->n[0] ? t->n : t->a);
		json_w_key(&w, "port");
		json_w_int(&w, t->port);
		json_w_key(&w, "want");
		json_w_str(&w, t->reach ? "reached" : "blocked");
		json_w_key(&w, "observed_by");
		json_w_str(&w, t->boxsays ? "the box says" : t->obs == OBS_BOX ?
		    "host port" : "host bridge");
		json_w_key(&w, "observed");
		json_w_str(&w, t->saw);
		json_w_key(&w, "result");
		json_w_str(&w, t->result == R_HELD ? "held" : t->result ==
		    R_BREACH ? "breach" : t->result == R_FAILED ? "failed" :
		    "unjudged");
		json_w_end(&w, '}');
	}
	json_w_end(&w, ']');
	json_w_end(&w, '}');
	if (json_w_finish(&w, &out, &len) < 0)
		return err_set(e, -ENOMEM, "the report did not fit");
	puts(out);
	free(out);
	return 0;
}

int
verify_box(struct incus *c, const char *name, uint32_t names, int json,
    struct box_err *e)
{
	struct plan *p = calloc(1, sizeof(*p));
	struct exec_buf rep = { NULL, VERIFY_REPORT_MAX, 0, 0 };
	struct sniff sn = { -1 }, port = { -1 };
	struct box_err se;
	struct egfw_refused *lv = NULL;
	uint64_t before = 0;
	long long t0;
	size_t nlv;
	int rc, listened, cnt[4];

	rep.p = malloc(VERIFY_REPORT_MAX);
	if (p == NULL || rep.p == NULL) {
		free(p);
		free(rep.p);
		return err_set(e, -ENOMEM, "out of memory");
	}
	if ((rc = plan_build(c, name, names, p, e)) < 0)
		goto out;
	err_clear(&se);
	/* listening before the box sends: the frames queue until read.  The
	 * box's own port first: what left the box and what went into it is
	 * the host's to see, not the box's to say */
	if ((rc = sniff_open(&port, p->veth, e)) < 0) {
		err_context(e, "watching %s's port", name);
		err_fix(e, "run box verify as root");
		goto out;
	}
	listened = sniff_open(&sn, CONTRACT_BRIDGE, &se) == 0;
	if (p->allow && (lv = calloc(HR_LOG, sizeof(*lv))) != NULL)
		before = refused_count(p->name, lv, &nlv);
	free(lv);
	t0 = clock_ms();
	/* a VM shares no kernel with the host: its probes run in the guest,
	 * and what they say is the guest's word */
	steer_check(p);
	rc = p->vm ? run_guest(c, p, &rep, e) : run_netns(p, &rep, e);
	if (rc < 0 || (rc = take_report(p, rep.p, rep.len, e)) < 0)
		goto out;
	steer_check(p);
	take_port(p, &port);
	host_refusals(p, before, t0);
	if (listened) {
		take_bridge(p, &sn);
		forget_poisoned(p);
	}
	judge(p, listened);
	if (!listened)
		fprintf(stderr, "box: the forged frames were not observed: %s "
		    "(root is needed to listen on %s)\n", se.msg,
		    CONTRACT_BRIDGE);
	rc = json ? print_json(p, e) : (print_text(p), 0);
	counts(p, cnt);
	if (rc == 0 && cnt[1] + cnt[2] + cnt[3] > 0)
		rc = 1;
out:
	sniff_close(&port);
	sniff_close(&sn);
	free(rep.p);
	free(p);
	return rc;
}
