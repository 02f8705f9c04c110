/*
 * doctor_host.c - the host's checks (see doctor.h; the repairs are in
 * doctor_fix.c).
 *
 * Order: this machine's own network (before the daemon: a poisoned
 * machine is the first thing to know), the daemon, the bridge as Incus
 * holds it and as the kernel holds it, the dnsmasq process and what it
 * forwards to, the firewall as the kernel holds it, the ACL against the
 * gateway the kernel holds, the profile, every port of the bridge, and
 * every box.  A layer that cannot be read is reported as such, never
 * passed.
 */
#include "host/doctor/doctor_int.h"
#include "host/doctor/nicfilter.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/box.h"
#include "host/doctor/doctor_shape.h"
#include "host/stack/contract.h"
#include "host/stack/firewall.h"
#include "host/stack/pool.h"
#include "incus/acl.h"
#include "incus/cluster.h"
#include "incus/instance.h"
#include "incus/network.h"
#include "incus/profile.h"
#include "incus/storage.h"
#include "incus/server.h"
#include "model/ip4text.h"
#include "model/mac.h"
#include "net/dnsq.h"
#include "net/ip4.h"
#include "net/nl.h"
#include "util/text.h"

#define BR		DH_BR
#define S_HOST		"this machine"
#define S_NET		"boxnet"
#define S_FW		"firewall"
#define S_ACL		"box-isolate"
#define S_PROF		"box-net"
#define FILE_MAX	(64u << 10)


static const char *const keys[] = {
	"dns.mode", "raw.dnsmasq", "ipv6.address", "ipv4.nat",
	"security.acls", "security.acls.default.ingress.action",
	"security.acls.default.egress.action", "ipv4.address",
};


static struct dr_finding *
fixable(struct dr_report *r)
{
	struct dr_finding *f = dr_last(r);

	if (f != NULL)
		f->fixable = 1;
	return f;
}

/* Read a whole (small) file; its length or -errno. */
static ssize_t
slurp(const char *path, char *buf, size_t cap)
{
	ssize_t n, t = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)t < cap - 1 && (n = read(fd, buf + t,
	    cap - 1 - (size_t)t)) > 0)
		t += n;
	close(fd);
	buf[t] = '\0';
	return t;
}

/* --- this machine --------------------------------------------------------- */

void
dh_check_signature(struct dh_ctx *h)
{
	struct dr_net *n = malloc(sizeof(*n));
	struct box_err e;
	char why[320];
	int bits;

	err_clear(&e);
	if (n == NULL || dr_net_read(n, &e) < 0) {
		dr_add(h->r, "host.signature", S_HOST, DR_WARN, NULL, "routes "
		    "and addresses unreadable (%s): the nested-box signature "
		    "was not checked", n == NULL ? "out of memory" : e.msg);
		free(n);
		return;
	}
	bits = dr_net_judge(n, why, sizeof(why));
	free(n);
	if (bits == 0)
		dr_add(h->r, "host.signature", S_HOST, DR_PASS, NULL, "no "
		    "nested-box signature: %s", why);
	else
		dr_add(h->r, "host.signature", S_HOST, DR_FAIL, "this machine "
		    "is most likely a box with a box stack built inside it: "
		    "move that bridge off the uplink subnet (incus network set "
		    "boxnet ipv4.address 10.89.0.1/24) or remove it (box "
		    "teardown-host)", "the nested-box signature (the #80 "
		    "outage): %s", why);
}

void
dh_check_daemon(struct dh_ctx *h)
{
	struct box_err e;

	err_clear(&e);
	if (incus_init(&h->c, &e) == 0 && incus_server_ping(&h->c, &e) == 0) {
		h->daemon = 1;
		dr_add(h->r, "incus", "incus", DR_PASS, NULL, "the daemon "
		    "answers on %s", h->c.socket_path);
		return;
	}
	dr_add(h->r, "incus", "incus", DR_FAIL, "start the Incus daemon "
	    "(systemctl start incus), then run box doctor again", "the "
	    "daemon does not answer on %s: %s", h->c.socket_path[0] ?
	    h->c.socket_path : "its socket", e.msg);
}

/* --- the kernel's view of the bridge -------------------------------------- */

void
dh_read_kernel(struct dh_ctx *h)
{
	struct ip4_picture *w = NULL;
	const struct rtnl_link *l = NULL;
	struct nl_sock s;
	struct box_err e;
	size_t i;
	int np, k;

	err_clear(&e);
	h->nports = -1;
	snprintf(h->gw, sizeof(h->gw), "?");
	if (ip4_read(&w, &e) == 0)
		l = ip4_link_named(w, BR);
	if (l != NULL) {
		h->br_ifindex = l->ifindex;
		h->br_up = (l->flags & IFF_UP) != 0;
	}
	for (i = 0; w != NULL && i < w->naddr && h->br_ifindex != 0; i++)
		if (w->addr[i].ifindex == h->br_ifindex) {
			h->live_gw = ntohl(w->addr[i].addr.s_addr);
			h->live_plen = w->addr[i].prefixlen;
			ip4_fmt(h->live_gw, h->gw, sizeof(h->gw));
			break;
		}
	ip4_free(w);
	if (nl_open(&s, NETLINK_ROUTE, &e) < 0)
		return;
	np = rtnl_bridge_ports(&s, h->ports, DH_PORTS, &e);
	if (np >= 0) {
		h->nports = 0;
		for (k = 0; k < np; k++)	/* keep only boxnet's */
			if (h->br_ifindex != 0 &&
			    h->ports[k].master == h->br_ifindex)
				h->ports[h->nports++] = h->ports[k];
	}
	nl_close(&s);
}

/* --- the bridge, as Incus holds it ---------------------------------------- */

int
dh_read_network(struct dh_ctx *h)
{
	const struct incus_network *n = &h->net;
	struct box_err e;
	unsigned a, b, d, x;
	size_t i;
	int rc;

	err_clear(&e);
	if (h->net_exists)	/* read again (after --fix) */
		incus_network_free(&h->net);
	h->net_exists = 0;
	rc = incus_network_get(&h->c, BR, &h->net, &e);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0) {
		dr_add(h->r, "bridge", S_NET, DR_FAIL, NULL, "reading the "
		    "network failed: %s", e.msg);
		return -1;
	}
	h->net_exists = 1;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		snprintf(h->cfg[i], sizeof(h->cfg[0]), "%s",
		    incus_kv_or(&n->config, keys[i], ""));
	if (sscanf(h->cfg[K_ADDR], "%u.%u.%u.%u/", &a, &b, &d, &x) == 4 &&
	    a < 256 && b < 256 && d < 256)
		h->cfg_net = a << 24 | b << 16 | d << 8;
	return 1;
}

static int
acl_listed(const char *list, const char *name)
{
	char buf[256], *t, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (t = strtok_r(buf, ",", &save); t != NULL;
	    t = strtok_r(NULL, ",", &save)) {
		t += strspn(t, " ");
		if (strcmp(t, name) == 0)
			return 1;
	}
	return 0;
}

/* A key's value fit to print: "unset" when absent, cut, sanitised. */
static void
shown(const char *v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", v == NULL ? "unset" : v[0] == '\0' ?
	    "empty" : v);	/* escaped in the finding (dr_add) */
	buf[strcspn(buf, "\n")] = '\0';
}

/* Is line a whole line of text? */
static int
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\0' ||
		    p[n] == '\n' || p[n] == '\r'))
			return 1;
		p += n;
	}
	return 0;
}

/* raw.dnsmasq: every fixed line of the contract, and pinned upstreams. */
static void
check_dnsmasq_key(struct dh_ctx *h, const struct contract_key *k,
    const char *v)
{
	char missing[200] = "";
	struct dr_dns d;
	size_t i;

	v = v != NULL ? v : "";
	for (i = 0; i < contract_ndnsmasq_lines; i++)
		if (!has_line(v, contract_dnsmasq_lines[i]))
			snprintf(missing + strlen(missing), sizeof(missing) -
			    strlen(missing), " %s", contract_dnsmasq_lines[i]);
	dr_dns_parse(v, strlen(v), &d);
	if (missing[0] == '\0' && d.nserver > 0)
		dr_add(h->r, "bridge.raw.dnsmasq", S_NET, DR_PASS, NULL,
		    "raw.dnsmasq holds every line of the contract and pins "
		    "the upstream resolvers (%d server= line%s): %s",
		    d.nserver, d.nserver == 1 ? "" : "s", k->why);
	else
		dr_add(h->r, "bridge.raw.dnsmasq", S_NET, DR_FAIL, "box doctor "
		    "--pin-dns (servers from BOX_DNS)", "raw.dnsmasq %s%s%s: "
		    "the contract says %s", missing[0] ? "lacks" : "",
		    missing, d.nserver > 0 ? "" : missing[0] ? " and pins "
		    "no upstream (no server= line)" : "pins no upstream (no "
		    "server= line)", k->why);
	fixable(h->r);
}

/*
 * The bridge's keys, each against the contract's own table
 * (contract_bridge_keys): a key added there is checked here.
 */
void
dh_check_net_keys(struct dh_ctx *h)
{
	char id[48], got[96], want[32];
	size_t i;
	int ok;

	for (i = 0; i < contract_nbridge_keys; i++) {
		const struct contract_key *k = &contract_bridge_keys[i];
		const char *v = incus_kv_get(&h->net.config, k->key);

		snprintf(id, sizeof(id), "bridge.%s", k->key);
		if (k->how == CV_DNSMASQ) {
			check_dnsmasq_key(h, k, v);
			continue;
		}
		shown(v, got, sizeof(got));
		if (k->how == CV_GATEWAY_CIDR) {
			/* set at creation, never re-addressed: it must be
			 * the gateway the kernel holds, as a /24 */
			snprintf(want, sizeof(want), "%s/24", h->gw);
			ok = v != NULL && h->live_gw != 0 &&
			    strcmp(v, want) == 0;
			dr_add(h->r, id, S_NET, ok ? DR_PASS : DR_FAIL, ok ?
			    NULL : "box doctor --fix (restarts the network "
			    "through Incus)", "%s is %s, the kernel's gateway "
			    "%s: %s", k->key, got, want, k->why);
			continue;
		}
		/* security.acls is a list: the contract's ACL among them */
		ok = v != NULL && (strcmp(k->key, "security.acls") == 0 ?
		    acl_listed(v, k->value) : strcmp(v, k->value) == 0);
		if (ok)
			dr_add(h->r, id, S_NET, DR_PASS, NULL, "%s %s: %s",
			    k->key, k->value, k->why);
		else
			dr_add(h->r, id, S_NET, DR_FAIL, "box doctor --fix",
			    "%s is %s, not %s (the contract: %s)", k->key, got,
			    k->value, k->why);
		fixable(h->r);
	}
}

void
dh_check_bridge_kernel(struct dh_ctx *h)
{
	char cfg_gw[16];

	ip4_fmt(h->cfg_net | 1, cfg_gw, sizeof(cfg_gw));
	if (h->br_ifindex == 0) {
		dr_add(h->r, "bridge.kernel", S_NET, DR_FAIL, "box doctor "
		    "--fix (restarts the network through Incus)", "Incus "
		    "has the network but the kernel has no interface %s: no "
		    "box has a network", BR);
		fixable(h->r);
	} else if (!h->br_up || h->live_gw == 0) {
		dr_add(h->r, "bridge.kernel", S_NET, DR_FAIL, "box doctor "
		    "--fix (restarts the network through Incus)", "the "
		    "kernel's %s is %s", BR, !h->br_up ? "down" :
		    "up but holds no IPv4 address");
		fixable(h->r);
	} else if (h->cfg_net == 0 || (h->live_gw & 0xffffff00u) !=
	    h->cfg_net || h->live_gw != (h->cfg_net | 1)) {
		dr_add(h->r, "bridge.kernel", S_NET, DR_FAIL, "box doctor "
		    "--fix (restarts the network through Incus)", "the "
		    "kernel's %s holds %s/%u, Incus says ipv4.address %s",
		    BR, h->gw, h->live_plen, h->cfg[K_ADDR]);
		fixable(h->r);
	} else {
		dr_add(h->r, "bridge.kernel", S_NET, DR_PASS, NULL, "the "
		    "kernel's %s is up and holds the gateway %s/%u", BR,
		    h->gw, h->live_plen);
	}
}

/* --- dnsmasq, from the process table -------------------------------------- */

static int
zombie(int pid)
{
	char path[64], st[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (slurp(path, st, sizeof(st)) <= 0)
		return 1;
	p = strrchr(st, ')');
	return p == NULL || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

/* The pid of a live dnsmasq serving the bridge, or 0. */
int
dh_find_dnsmasq(struct dr_dnsmasq *dm)
{
	char path[64], buf[4096];
	struct stat self, st;
	struct dirent *de;
	ssize_t n;
	DIR *d = opendir("/proc");
	int pid, found = 0, ns;

	memset(dm, 0, sizeof(*dm));
	if (d == NULL)
		return 0;
	/* a dnsmasq in another network namespace (a nested or test daemon's,
	 * on a bridge of the same name) serves another boxnet, not ours */
	ns = stat("/proc/self/ns/net", &self) == 0;
	while (!found && (de = readdir(d)) != NULL) {
		pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		n = slurp(path, buf, sizeof(buf));
		if (n <= 0 || !dr_dnsmasq_argv(buf, (size_t)n, BR, dm) ||
		    zombie(pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
		if (ns && (stat(path, &st) != 0 || st.st_ino != self.st_ino ||
		    st.st_dev != self.st_dev))
			continue;
		found = pid;
	}
	closedir(d);
	if (!found)
		memset(dm, 0, sizeof(*dm));
	return found;
}

void
dh_check_dnsmasq(struct dh_ctx *h)
{
	h->dnsmasq_pid = dh_find_dnsmasq(&h->dm);
	if (h->dnsmasq_pid == 0) {
		dr_add(h->r, "dnsmasq", "dnsmasq", DR_FAIL, "box doctor --fix "
		    "(restarts it through Incus)", "no dnsmasq process serves "
		    "%s (none with --interface=%s in /proc): boxes get no "
		    "lease and no DNS", BR, BR);
		fixable(h->r);
	} else if (h->live_gw != 0 && strcmp(h->dm.listen, h->gw) != 0) {
		dr_add(h->r, "dnsmasq", "dnsmasq", DR_WARN, "box doctor --fix",
		    "pid %d serves %s but listens on '%s', not on the gateway "
		    "%s", h->dnsmasq_pid, BR, h->dm.listen, h->gw);
		fixable(h->r);
	} else {
		dr_add(h->r, "dnsmasq", "dnsmasq", DR_PASS, NULL, "pid %d "
		    "serves %s (leases and DNS on %s)", h->dnsmasq_pid, BR,
		    h->dm.listen);
	}
}

static int
cgnat(const char *a)
{
	struct in_addr ia;

	return inet_pton(AF_INET, a, &ia) == 1 &&
	    (ntohl(ia.s_addr) & 0xffc00000u) == 0x64400000u;
}

/* "a b c" of the host's resolv.conf nameservers; *tailnet when one is CGNAT. */
static void
host_resolvers(char *buf, size_t cap, int *tailnet)
{
	char text[8192], ns[8][48];
	ssize_t n = slurp("/etc/resolv.conf", text, sizeof(text));
	int i, k;

	*tailnet = 0;
	snprintf(buf, cap, "none listed");
	if (n <= 0)
		return;
	k = dnsq_resolv_parse(text, (size_t)n, ns, 8);
	if (k > 0)
		buf[0] = '\0';
	for (i = 0; i < k; i++) {
		snprintf(buf + strlen(buf), cap - strlen(buf), "%s%.47s",
		    i ? " " : "", ns[i]);
		*tailnet |= cgnat(ns[i]);
	}
}

static void
servers_text(const struct dr_dns *d, char *buf, size_t cap)
{
	int i;

	buf[0] = '\0';
	for (i = 0; i < d->nserver; i++)
		snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s",
		    i ? " " : "", d->server[i]);
}

/* Do two server lists name the same servers, in order? */
static int
same_servers(const struct dr_dns *a, const struct dr_dns *b)
{
	int i;

	if (a->nserver != b->nserver)
		return 0;
	for (i = 0; i < a->nserver; i++)
		if (strcmp(a->server[i], b->server[i]) != 0)
			return 0;
	return 1;
}

static void
resolver_verdict(struct dh_ctx *h, const struct dr_dns *run)
{
	char hostns[256], srv[256];
	int tailnet;

	host_resolvers(hostns, sizeof(hostns), &tailnet);
	servers_text(run, srv, sizeof(srv));
	if (!run->no_resolv) {
		dr_add(h->r, "resolver", "dnsmasq", DR_FAIL, "box doctor "
		    "--pin-dns (servers from BOX_DNS)", "the running dnsmasq "
		    "forwards box DNS to this host's resolvers (%s)%s",
		    hostns, tailnet ? " — one is a tailnet/CGNAT resolver: "
		    "tailnet names resolve inside boxes" : "");
		fixable(h->r);
	} else if (run->nserver == 0) {
		dr_add(h->r, "resolver", "dnsmasq", DR_FAIL, "box doctor "
		    "--pin-dns (servers from BOX_DNS)", "the running dnsmasq "
		    "has no upstream at all: boxes resolve no public name");
		fixable(h->r);
	} else {
		dr_add(h->r, "resolver", "dnsmasq", DR_PASS, NULL, "boxes "
		    "resolve through %s, which forwards only to %s%s (this "
		    "host's own resolvers, %s, are never asked)", h->gw, srv,
		    run->more ? " and more" : "", hostns);
	}
	if (run->dhcp_dns)
		dr_add(h->r, "resolver.dhcp", "dnsmasq", DR_WARN, NULL, "a "
		    "dhcp-option in dnsmasq's configuration hands boxes a "
		    "resolver other than the gateway");
}

/*
 * Can a box look its siblings up?  dns.mode none keeps Incus from
 * registering boxes, but dnsmasq still answers the hostnames boxes send in
 * DHCP (from its lease file, even across restarts) unless told
 * dhcp-ignore-names.  So ask the gateway for the names its leases hold.
 */
static void
names_verdict(struct dh_ctx *h, char names[][64], int k)
{
	char why[64], a[16], asked[300] = "", hits[300] = "";
	uint32_t addr;
	int i, nhit = 0;

	for (i = 0; i < k; i++) {
		if (dnsq_ask(h->live_gw, names[i], 2000, &addr, why,
		    sizeof(why)) == 1) {
			ip4_fmt(addr, a, sizeof(a));
			snprintf(hits + strlen(hits), sizeof(hits) -
			    strlen(hits), "%s'%s' (%s)", nhit++ ? ", " : "",
			    names[i], a);
		} else {
			snprintf(asked + strlen(asked), sizeof(asked) -
			    strlen(asked), "%s%s (%s)", i ? ", " : "",
			    names[i], why);
		}
	}
	if (nhit > 0)
		dr_add(h->r, "bridge.names", "dnsmasq", DR_FAIL, "add "
		    "dhcp-ignore-names and domain-needed to boxnet's "
		    "raw.dnsmasq; leases taken before keep their names until "
		    "they are renewed (restart those boxes)", "the gateway "
		    "answers %s, name(s) from its DHCP leases: any box can "
		    "look its siblings up", hits);
	else
		dr_add(h->r, "bridge.names", "dnsmasq", DR_PASS, NULL, "the "
		    "gateway does not answer the names its leases hold: %s",
		    asked);
}

static void
check_names(struct dh_ctx *h, const struct dr_dns *run)
{
	char *text = malloc(FILE_MAX), (*names)[64] = malloc(8 * 64);
	ssize_t n = -ENOENT;
	int k = 0;

	if (text != NULL && names != NULL && h->dm.leases[0] != '\0')
		n = slurp(h->dm.leases, text, FILE_MAX);
	if (n >= 0)
		k = dr_leases_names(text, (size_t)n, names, 8);
	if (n < 0 || h->live_gw == 0)
		dr_add(h->r, "bridge.names", "dnsmasq", DR_WARN, NULL, "the "
		    "leases (%s) are unreadable: name enumeration NOT "
		    "checked", h->dm.leases[0] ? h->dm.leases :
		    "no lease file");
	else if (k > 0)
		names_verdict(h, names, k);
	else if (run->ignore_names)
		dr_add(h->r, "bridge.names", "dnsmasq", DR_PASS, NULL, "no "
		    "lease carries a name, and dnsmasq ignores the names boxes "
		    "send (dhcp-ignore-names)");
	else
		dr_add(h->r, "bridge.names", "dnsmasq", DR_WARN, "add "
		    "dhcp-ignore-names and domain-needed to boxnet's "
		    "raw.dnsmasq", "no lease carries a name, so enumeration "
		    "could not be probed; but dnsmasq is not told "
		    "dhcp-ignore-names: the next box that sends its hostname "
		    "can be looked up by its siblings");
	free(text);
	free(names);
}

void
dh_check_resolver(struct dh_ctx *h)
{
	struct dr_dns run, cfg, env;
	struct stack_conf sc;
	struct box_err e;
	char *text, want[256];
	const char *bd = getenv("BOX_DNS");
	ssize_t n;
	int i;

	if (h->dnsmasq_pid == 0)
		return;		/* nothing runs: check_dnsmasq said so */
	text = malloc(FILE_MAX);
	n = text == NULL || h->dm.conf[0] == '\0' ? -ENOENT :
	    slurp(h->dm.conf, text, FILE_MAX);
	if (n < 0) {
		dr_add(h->r, "resolver", "dnsmasq", DR_WARN, NULL, "what "
		    "dnsmasq forwards to is unknown: its configuration (%s) "
		    "is unreadable", h->dm.conf[0] ? h->dm.conf :
		    "no --conf-file");
		free(text);
		return;
	}
	dr_dns_parse(text, (size_t)n, &run);
	free(text);
	resolver_verdict(h, &run);
	check_names(h, &run);
	dr_dns_parse(h->cfg[K_RAW], strlen(h->cfg[K_RAW]), &cfg);
	if (cfg.no_resolv != run.no_resolv || !same_servers(&cfg, &run))
		dr_add(h->r, "resolver.stale", "dnsmasq", DR_WARN, "box doctor "
		    "--fix", "the running dnsmasq was started with another "
		    "configuration than the bridge's raw.dnsmasq");
	err_clear(&e);
	if (bd == NULL || *bd == '\0' || stack_dns_parse(bd, &sc, &e) < 0)
		return;
	memset(&env, 0, sizeof(env));
	for (i = 0; i < sc.ndns && i < DR_DNS_MAX; i++)
		snprintf(env.server[env.nserver++], sizeof(env.server[0]),
		    "%s", sc.dns[i]);
	if (!same_servers(&env, &cfg)) {
		servers_text(&cfg, want, sizeof(want));
		dr_add(h->r, "resolver.box_dns", "dnsmasq", DR_WARN,
		    "box doctor --pin-dns", "BOX_DNS says '%s', the bridge "
		    "pins '%s'", bd, want);
	}
}

/* --- the firewall, from the kernel ---------------------------------------- */

/* A fact, not a layer box relies on: the ACL may see bridged frames too. */
static void
brnf_note(struct dh_ctx *h)
{
	char v[8];
	ssize_t n = slurp("/proc/sys/net/bridge/bridge-nf-call-iptables", v,
	    sizeof(v));

	if (n > 0 && v[0] == '1')
		dr_add(h->r, "firewall.br_netfilter", S_FW, DR_INFO, NULL,
		    "bridge-nf-call-iptables is 1: frames between boxes also "
		    "pass the ACL (its 10/8 drop covers them too; an extra "
		    "layer, not one the contract relies on)");
}

/*
 * The firewall, read back rule by rule and compared by content with the
 * contract: a drop turned into an accept, DNS moved to another port, a
 * rule inserted before ours - each is a FAIL naming the rule.  A flushed
 * ruleset shows here too; `box doctor --fix` (or `box firewall apply`)
 * puts it back, and so does the boot unit at the next boot.
 */
void
dh_check_firewall(struct dh_ctx *h, struct fw_status *st)
{
	struct box_err e;
	struct dr_report *r = h->r;
	uint32_t net = h->live_gw ? h->live_gw & 0xffffff00u : h->cfg_net;
	int i;

	err_clear(&e);
	if (fw_read(BR, net, st, &e) < 0) {
		dr_add(r, "firewall", S_FW, DR_WARN, "run box doctor as root",
		    "the nft tables could not be read (%s): the host and "
		    "sibling drops were NOT verified", e.msg);
		return;
	}
	if (st->ok)
		dr_add(r, "firewall.rules", S_FW, DR_PASS, NULL, "all %u rules "
		    "of the contract are in the kernel, each equal to it by "
		    "content (tables inet box and bridge box; nothing else "
		    "in our chains)", st->held);
	else
		dr_add(r, "firewall.rules", S_FW, DR_FAIL, "box doctor --fix "
		    "(or: box firewall apply)", "the kernel's firewall is not "
		    "the contract: %u of %u rules held%s",
		    st->held, st->want, st->extra ? ", and rules that are "
		    "not box's are in its chains" : "");
	fixable(r);
	for (i = 0; i < st->ndiff; i++) {
		dr_add(r, "firewall.rule", S_FW, DR_FAIL, "box doctor --fix",
		    "%s", st->diff[i]);
		fixable(r);
	}
	if (st->sibling == FW_SIBLING_BRNAME)
		dr_add(r, "firewall.sibling", S_FW, DR_PASS, NULL, "table "
		    "bridge box drops every frame from one box to another");
	else if (st->sibling == FW_SIBLING_SUBNET)
		dr_add(r, "firewall.sibling", S_FW, DR_PASS, NULL, "table "
		    "bridge box drops IPv4 and ARP between boxes by subnet "
		    "(this kernel refuses meta ibrname; other frames rely on "
		    "port isolation alone)");
	else {
		dr_add(r, "firewall.sibling", S_FW, DR_FAIL, "box doctor --fix "
		    "(or: box firewall apply)", "%s: only port isolation "
		    "keeps boxes apart", st->bridge_table ? "table bridge box "
		    "does not hold the contract's sibling drop" : "table "
		    "bridge box is ABSENT");
		fixable(r);
	}
	brnf_note(h);
	if (st->route_localnet == 1)
		dr_add(r, "firewall.route_localnet", S_FW, DR_INFO, NULL,
		    "route_localnet is on on %s (a VM door needs it); the "
		    "input chain drops every packet from a box to 127/8 "
		    "regardless", BR);
}

/* --- the ACL, against the gateway the kernel holds ------------------------ */

static const char *
or_empty(const char *s)
{
	return s != NULL ? s : "";
}

/* A rule of action to dest for every protocol, source and port, in force. */
static int
acl_has(const struct incus_acl_rules *eg, const char *action,
    const char *dest)
{
	size_t i;

	for (i = 0; i < eg->n; i++) {
		const struct incus_acl_rule *r = &eg->v[i];

		if (strcmp(or_empty(r->action), action) == 0 &&
		    strcmp(or_empty(r->destination), dest) == 0 &&
		    strcmp(r->state ? r->state : "enabled", "enabled") == 0 &&
		    or_empty(r->protocol)[0] == '\0' &&
		    or_empty(r->source)[0] == '\0' &&
		    or_empty(r->source_port)[0] == '\0' &&
		    or_empty(r->destination_port)[0] == '\0' &&
		    or_empty(r->icmp_type)[0] == '\0')
			return 1;
	}
	return 0;
}

/*
 * The ACL's egress rules, each of the contract's own table
 * (contract_acl_egress) looked for by content: a drop added there is
 * checked here.  The allow names the gateway the kernel holds.
 */
static void
acl_judge(struct dh_ctx *h, const struct incus_acl *acl)
{
	const struct incus_acl_rules *eg = &acl->egress;
	char missing[400] = "", held[400] = "", dest[40];
	size_t k, i;

	for (i = 0; i < eg->n; i++)
		if (strstr(or_empty(eg->v[i].destination), "@internal") !=
		    NULL) {
			dr_add(h->r, "acl.internal", S_ACL, DR_FAIL,
			    "box doctor --fix", "an egress rule names "
			    "@internal, which a bridge ACL rejects");
			fixable(h->r);
		}
	for (k = 0; k < contract_nacl_egress; k++) {
		const struct contract_acl_rule *c = &contract_acl_egress[k];
		char *to;

		if (c->destination != NULL)
			snprintf(dest, sizeof(dest), "%s", c->destination);
		else
			snprintf(dest, sizeof(dest), "%s/32", h->gw);
		to = acl_has(eg, c->action, dest) ? held : missing;
		snprintf(to + strlen(to), sizeof(held) - strlen(to), "%s%s %s",
		    to[0] ? ", " : "", c->action, dest);
	}
	if (missing[0] != '\0') {
		dr_add(h->r, "acl.egress", S_ACL, DR_FAIL, "box doctor --fix",
		    "egress rules of the contract missing (or narrowed, or "
		    "disabled): %s — boxes reach what they drop", missing);
		fixable(h->r);
	} else {
		dr_add(h->r, "acl.egress", S_ACL, DR_PASS, NULL, "egress: %s "
		    "(every rule of the contract); %d ingress rule(s) (expose "
		    "doors)", held, (int)acl->ingress.n);
	}
}

void
dh_check_acl(struct dh_ctx *h)
{
	struct incus_acl acl;
	struct box_err e;
	int rc;

	err_clear(&e);
	rc = incus_acl_get(&h->c, STACK_ACL, &acl, &e);
	if (rc == -ENOENT) {
		dr_add(h->r, "acl", S_ACL, DR_FAIL, "box doctor --fix",
		    "the ACL does not exist: nothing drops box traffic to "
		    "private ranges");
		fixable(h->r);
		return;
	}
	if (rc < 0) {
		dr_add(h->r, "acl", S_ACL, DR_WARN, NULL, "reading it failed "
		    "(%s): not verified", e.msg);
		return;
	}
	acl_judge(h, &acl);
	incus_acl_free(&acl);
}

/* --- the profile, and a NIC's keys ---------------------------------------- */

/* The pool the profile's root disk names, and its driver read back. */
static void
check_pool(struct dh_ctx *h, const char *name)
{
	struct incus_pool p;
	struct box_err e;
	char shown[64];
	int rc;

	if (name == NULL || name[0] == '\0' || strlen(name) >= sizeof(shown) ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-_.") != strlen(name)) {
		dr_add(h->r, "profile.pool", S_PROF, DR_FAIL, "box setup-host",
		    "the root disk names no pool box can use");
		return;
	}
	snprintf(shown, sizeof(shown), "%s", name);
	err_clear(&e);
	rc = incus_pool_get(&h->c, shown, &p, &e);
	if (rc < 0) {
		dr_add(h->r, "profile.pool", S_PROF, rc == -ENOENT ? DR_FAIL :
		    DR_WARN, rc == -ENOENT ? "box setup-host" : NULL,
		    "the root disk's pool %s: %s", shown, rc == -ENOENT ?
		    "does not exist: new boxes cannot be placed" : e.msg);
		return;
	}
	if (pool_cow(p.driver, &p.config))
		dr_add(h->r, "profile.pool", S_PROF, DR_PASS, NULL, "root disks "
		    "on pool %s, driver %s as the daemon reports it: "
		    "copy-on-write snapshots and clones, --disk enforced",
		    shown, p.driver);
	else
		dr_add(h->r, "profile.pool", S_PROF, DR_PASS, NULL, "root disks "
		    "on pool %s, driver %.16s as the daemon reports it: no "
		    "copy-on-write (every snapshot and clone a full copy; box "
		    "setup-host --pool btrfs makes box's own)", shown,
		    p.driver != NULL && strspn(p.driver, "abcdefghijklmnop"
		    "qrstuvwxyz0123456789") == strlen(p.driver) ? p.driver :
		    "?");
	incus_pool_free(&p);
}

/*
 * The profile's devices, each against the contract's own tables
 * (contract_nic_keys, contract_root_keys), key by key.
 */
void
dh_check_profile(struct dh_ctx *h)
{
	struct incus_profile p;
	const struct incus_kvs *eth, *root;
	struct box_err e;
	char why[320], rwhy[320];
	int rc;

	err_clear(&e);
	rc = incus_profile_get(&h->c, STACK_PROFILE, &p, &e);
	if (rc < 0) {
		dr_add(h->r, "profile", S_PROF, rc == -ENOENT ? DR_FAIL :
		    DR_WARN, rc == -ENOENT ? "box doctor --fix" : NULL, "%s",
		    rc == -ENOENT ? "the profile does not exist: new boxes "
		    "cannot be placed" : e.msg);
		if (rc == -ENOENT)
			fixable(h->r);
		return;
	}
	check_pool(h, incus_dev_key(&p.devices, "root", "pool"));
	eth = incus_dev_get(&p.devices, CONTRACT_NIC);
	if (eth == NULL)
		snprintf(why, sizeof(why), "no device %s", CONTRACT_NIC);
	else
		shape_nic_kv(eth, NULL, why, sizeof(why));
	root = incus_dev_get(&p.devices, "root");
	if (root == NULL)
		snprintf(rwhy, sizeof(rwhy), "no device root");
	else
		shape_root_kv(root, rwhy, sizeof(rwhy));
	incus_profile_free(&p);
	if (why[0] != '\0')
		dr_add(h->r, "profile.nic", S_PROF, DR_FAIL, "box doctor --fix "
		    "(boxes already running keep their NIC until restarted)",
		    "%s", why);
	else
		dr_add(h->r, "profile.nic", S_PROF, DR_PASS, NULL, "%s on %s "
		    "with exactly the contract's %zu keys (port isolation, MAC, "
		    "IPv4 and IPv6 filtering)", CONTRACT_NIC, BR,
		    contract_nnic_keys);
	fixable(h->r);
	if (rwhy[0] != '\0')
		dr_add(h->r, "profile.root", S_PROF, DR_FAIL, "box doctor "
		    "--fix", "the root disk: %s", rwhy);
	else
		dr_add(h->r, "profile.root", S_PROF, DR_PASS, NULL, "the root "
		    "disk with exactly the contract's %zu keys",
		    contract_nroot_keys);
	fixable(h->r);
}

/* --- every port of the bridge, from the kernel ---------------------------- */

static const struct rtnl_brport *
port_named(const struct dh_ctx *h, const char *name)
{
	int i;

	for (i = 0; i < h->nports; i++)
		if (strcmp(h->ports[i].name, name) == 0)
			return &h->ports[i];
	return NULL;
}

void
dh_check_ports(struct dh_ctx *h)
{
	char bad[320] = "";
	int i, nbad = 0;

	if (h->nports < 0) {
		dr_add(h->r, "ports", S_NET, DR_WARN, NULL, "the bridge ports "
		    "could not be read: port isolation NOT verified");
		return;
	}
	if (h->nports == 0) {
		dr_add(h->r, "ports", S_NET, DR_INFO, NULL, "%s has no ports "
		    "(no running box): port isolation has nothing to show",
		    BR);
		return;
	}
	for (i = 0; i < h->nports; i++)
		if (h->ports[i].isolated != 1) {
			nbad++;
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
			    " %s", h->ports[i].name);
		}
	if (nbad == 0) {
		dr_add(h->r, "ports", S_NET, DR_PASS, NULL, "all %d port(s) of "
		    "%s are isolated in the kernel", h->nports, BR);
		return;
	}
	dr_add(h->r, "ports", S_NET, DR_FAIL, "box doctor --fix (sets the "
	    "flag now; see the box lines for why it was off)", "%d of %d "
	    "port(s) of %s are NOT isolated in the kernel:%s — whatever sits "
	    "behind them reaches every box", nbad, h->nports, BR, bad);
	fixable(h->r);
}

/* --- every box ------------------------------------------------------------ */

/* The instance's NIC on the bridge (expanded), or NULL. */
const struct incus_device *
dh_box_nic(const struct incus_instance *in)
{
	const struct incus_devices *d = &in->expanded_devices;
	size_t k;

	for (k = 0; k < d->n; k++) {
		const struct incus_kvs *dev = &d->v[k].kv;

		if (strcmp(incus_kv_or(dev, "type", ""), "nic") != 0)
			continue;
		if (strcmp(incus_kv_or(dev, "network", ""), BR) == 0 ||
		    strcmp(incus_kv_or(dev, "parent", ""), BR) == 0)
			return &d->v[k];
	}
	return NULL;
}

static int
wanted(const struct dr_opts *o, const char *name)
{
	int i;

	if (o->boxes == NULL)
		return 1;
	for (i = 0; i < o->nboxes; i++)
		if (strcmp(o->boxes[i], name) == 0)
			return 1;
	return 0;
}

/*
 * The name the daemon gives in on the host (its dnsmasq pin, its NIC
 * filter's chains): its own in the default project, "<project>_<name>" in
 * any other.
 */
static void
host_key(const struct incus_instance *in, char *buf, size_t cap)
{
	if (in->project[0] == '\0' || strcmp(in->project, "default") == 0)
		snprintf(buf, cap, "%s", in->name);
	else
		snprintf(buf, cap, "%s_%s", in->project, in->name);
}

static int
other_project(const struct incus_instance *in)
{
	return in->project[0] != '\0' && strcmp(in->project, "default") != 0;
}

/* The lease Incus pinned for inst (its dnsmasq static allocation). */
static int
pinned_lease(const struct dh_ctx *h, const char *inst,
    const unsigned char mac[6], uint32_t *addr)
{
	char dir[256], path[384], text[256];
	ssize_t n;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", h->dm.leases[0] ? h->dm.leases :
	    "/var/lib/incus/networks/" BR "/dnsmasq.leases");
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/dnsmasq.hosts/%s.eth0", dir, inst);
	n = slurp(path, text, sizeof(text));
	if (n <= 0)
		return -ENOENT;
	return mac_static_parse(text, (size_t)n, mac, addr);
}

/*
 * The NIC filter that binds the box to its MAC and lease, read back from
 * the kernel by content (see host/doctor/nicfilter.c).
 */
static void
box_filter(struct dh_ctx *h, const struct incus_instance *in,
    const char *subject, const char *veth)
{
	char hw[32], why[320], ip[16];
	const char *mac_s = incus_kv_get(&in->config, "volatile.eth0.hwaddr");
	unsigned char mac[6];
	struct nicf *f;
	struct box_err e;
	uint32_t addr;
	char key[140];
	int rc;

	host_key(in, key, sizeof(key));
	if (mac_s == NULL || strlen(mac_s) >= sizeof(hw) ||
	    mac_parse(mac_s, mac) < 0) {
		dr_add(h->r, "box.filter", subject, DR_FAIL, NULL, "its MAC "
		    "(volatile.eth0.hwaddr) is unknown: its NIC filter NOT "
		    "verified");
		return;
	}
	snprintf(hw, sizeof(hw), "%s", mac_s);
	if ((rc = pinned_lease(h, key, mac, &addr)) < 0) {
		dr_add(h->r, "box.filter", subject, DR_FAIL, "restart the box "
		    "on the box-net profile (box down, box start)", "no lease "
		    "pinned for its MAC %s (%s): Incus does not filter its "
		    "addresses", hw, rc == -ESRCH ? "the pin is another MAC's"
		    : "none found");
		return;
	}
	err_clear(&e);
	if (nicf_read(&f, &e) < 0) {
		dr_add(h->r, "box.filter", subject, DR_WARN, "run box doctor "
		    "as root", "table bridge incus could not be read (%s): its "
		    "NIC filter NOT verified", e.msg);
		return;
	}
	rc = nicf_check(f, key, veth, mac, addr, why, sizeof(why));
	nicf_free(f);
	ip4_fmt(addr, ip, sizeof(ip));
	if (rc == 1)
		dr_add(h->r, "box.filter", subject, DR_PASS, NULL, "the kernel "
		    "filters port %s to MAC %s and address %s, no IPv6 "
		    "(forged frames, ARP and sources are dropped)", veth, hw,
		    ip);
	else
		dr_add(h->r, "box.filter", subject, DR_FAIL, "box down <box>; "
		    "box start <box> (Incus rewrites the filter when the NIC "
		    "starts)", "%s: this box can forge its MAC, ARP or source "
		    "address", why[0] ? why : "the filter could not be "
		    "checked");
}

static void
box_port(struct dh_ctx *h, const struct incus_instance *in,
    const char *subject, const char *nicname)
{
	const struct incus_nic_state *ns = incus_state_nic(&in->state,
	    nicname);
	const struct rtnl_brport *p;
	const char *veth;

	if (ns == NULL || ns->host_name[0] == '\0') {
		dr_add(h->r, "box.port", subject, DR_WARN, NULL, "the host "
		    "side of %s is not reported: its port NOT verified",
		    nicname);
		return;
	}
	veth = ns->host_name;
	p = port_named(h, veth);
	if (p == NULL)
		dr_add(h->r, "box.port", subject, DR_FAIL, NULL, "%s (%s) is "
		    "not a port of %s in the kernel", veth, nicname, BR);
	else if (p->isolated == 1)
		dr_add(h->r, "box.port", subject, DR_PASS, NULL, "port %s is "
		    "isolated in the kernel", veth);
	else
		dr_add(h->r, "box.port", subject, DR_FAIL, "box doctor --fix",
		    "port %s is NOT isolated in the kernel: this box reaches "
		    "its siblings", veth);
	box_filter(h, in, subject, veth);
}

/* Is pid a live process of this host (not a zombie)? */
static int
init_alive(long long pid)
{
	char path[64];

	if (pid <= 0 || pid > 0x7fffffff)
		return 0;
	snprintf(path, sizeof(path), "/proc/%lld", pid);
	return access(path, F_OK) == 0 && !zombie((int)pid);
}

/*
 * What runs, keyed on the daemon's status code and on whether the
 * instance's init is alive on this host, never on the status text alone
 * (a guest sets its own status to Ready).  1: something runs, probe it; 0:
 * stopped, nothing to probe (INFO); -1: it cannot be probed (a WARN says
 * why).
 */
static int
box_state(struct dh_ctx *h, const struct incus_instance *in,
    const char *subject)
{
	long long pid = in->state.pid;
	int code = in->status_code ? in->status_code : in->state.status_code;
	int alive = init_alive(pid);
	char st[40];

	snprintf(st, sizeof(st), "%s", in->status[0] ? in->status : "unsaid");
	if (alive) {
		dr_add(h->r, "box.state", subject, DR_INFO, NULL, "status %s "
		    "(code %d), its init (pid %lld) alive: probed%s", st, code,
		    pid, code == BOX_CODE_RUNNING ? "" : code ==
		    BOX_CODE_READY ? " (Ready is a status a box can set "
		    "itself: it changes nothing here)" : " as a running box");
		return 1;
	}
	if (code == BOX_CODE_STOPPED && pid <= 0) {
		dr_add(h->r, "box.state", subject, DR_INFO, NULL, "stopped "
		    "(code %d): nothing runs, no network to probe", code);
		return 0;
	}
	dr_add(h->r, "box.state", subject, DR_WARN, "box down <box>; box "
	    "start <box>", "status %s (code %d) but %s: its network NOT "
	    "probed", st, code, pid > 0 ? "its init is not alive on this "
	    "host" : "the daemon names no init process");
	return -1;
}

/*
 * The box's network, probed: a container by this host's own process in
 * its network namespace; a VM (no kernel shared with the host) by the
 * checks pushed into the guest, whose findings are the guest's word.
 */
static void
box_probe(struct dh_ctx *h, const struct incus_instance *in,
    const char *subject, const char *nicname)
{
	const struct incus_nic_state *ns = incus_state_nic(&in->state,
	    nicname);
	const char *mac_s = incus_kv_get(&in->config, "volatile.eth0.hwaddr");
	struct dr_box_target bt;
	unsigned char mac[6];
	uint32_t self = 0;
	char key[140];

	host_key(in, key, sizeof(key));
	if (strcmp(in->type, "virtual-machine") == 0 && other_project(in)) {
		dr_add(h->r, "box.inside", subject, DR_WARN, NULL, "a VM of "
		    "project %s: its network NOT probed (no kernel shared with "
		    "this host; only the guest could say)", in->project);
		return;
	}
	if (strcmp(in->type, "virtual-machine") == 0) {
		dr_add(h->r, "box.where", subject, DR_INFO, NULL, "a VM shares "
		    "no kernel with this host: its in-box findings below are "
		    "the guest's word");
		dr_box_probe_vm(&h->c, in->name, h->r, h->o);
		return;
	}
	if (ns == NULL || ns->host_name[0] == '\0' || mac_s == NULL ||
	    mac_parse(mac_s, mac) < 0 ||
	    pinned_lease(h, key, mac, &self) < 0 || h->live_gw == 0) {
		dr_add(h->r, "box.inside", subject, DR_WARN, NULL, "its "
		    "network NOT probed: %s", ns == NULL ||
		    ns->host_name[0] == '\0' ? "the host side of its NIC is "
		    "not reported" : h->live_gw == 0 ? "the bridge holds no "
		    "gateway address" : "no lease is pinned for its MAC");
		return;
	}
	bt.name = subject + 4;	/* "box " */
	bt.pid = in->state.pid;
	bt.veth = ns->host_name;
	bt.self = self;
	bt.gw = h->live_gw;
	dr_box_probe_ns(&bt, h->r, h->o);
}

void
dh_check_box(struct dh_ctx *h, const struct incus_instance *in)
{
	char subject[136], nicname[32], why[320];
	const struct incus_device *nic;

	if (other_project(in))
		snprintf(subject, sizeof(subject), "box %.60s/%.64s",
		    in->project, in->name);
	else
		snprintf(subject, sizeof(subject), "box %s", in->name);
	dr_shape(h->r, in, subject);
	nic = dh_box_nic(in);
	if (nic == NULL) {
		dr_add(h->r, "box.nic", subject, DR_FAIL, "mint boxes with "
		    "box new (they get the box-net profile only)", "no NIC "
		    "on %s: none of the stack's layers apply to this box", BR);
		return;
	}
	snprintf(nicname, sizeof(nicname), "%s", nic->name);
	shape_nic_kv(&nic->kv, shape_pinned(in), why, sizeof(why));
	if (why[0] != '\0' && incus_dev_get(&in->devices, nic->name) != NULL)
		dr_add(h->r, "box.nic", subject, DR_FAIL, "remove the box's "
		    "own override of these keys (or mint it anew), then "
		    "restart it", "its own NIC device %s: %s", nicname, why);
	else if (why[0] != '\0')
		dr_add(h->r, "box.nic", subject, DR_FAIL, "box doctor --fix "
		    "(the profile is put back and Incus re-plugs the NIC)",
		    "its NIC %s, from its profiles: %s", nicname, why);
	else
		dr_add(h->r, "box.nic", subject, DR_PASS, NULL, "its NIC %s is "
		    "on %s with the contract's keys", nicname, BR);
	if (box_state(h, in, subject) <= 0)
		return;
	box_port(h, in, subject, nicname);
	if (h->o->probe_boxes)
		box_probe(h, in, subject, nicname);
}

void
dh_check_boxes(struct dh_ctx *h)
{
	struct incus_instance_list l;
	struct box_err e;
	size_t i;
	int n = 0, legacy;

	err_clear(&e);
	/* every project's: a granted user's boxes, and anything a granted
	 * user put on the bridge with incus itself, are checked and probed
	 * from this host like the host's own */
	if (incus_instance_list(&h->c, NULL, INCUS_INST_STATE | INCUS_INST_ALL,
	    &l, &e) < 0) {
		dr_add(h->r, "boxes", "boxes", DR_WARN, NULL, "listing "
		    "instances failed (%s): no box checked", e.msg);
		return;
	}
	for (i = 0; i < l.n; i++) {
		if (other_project(&l.v[i]) ? dh_box_nic(&l.v[i]) == NULL :
		    !box_tagged(&l.v[i], &legacy))
			continue;
		if (!wanted(h->o, l.v[i].name))
			continue;
		n++;
		if (!incus_cluster_local(h->self, l.v[i].location)) {
			dr_add(h->r, "box.member", "cluster", DR_INFO, NULL,
			    "box %s is on member %s: its layers are that "
			    "member's kernel's (box doctor there, or box "
			    "doctor --members)", l.v[i].name,
			    l.v[i].location);
			continue;
		}
		dh_check_box(h, &l.v[i]);
	}
	incus_instance_list_free(&l);
	if (n == 0)
		dr_add(h->r, "boxes", "boxes", DR_INFO, NULL, "%s", h->o->boxes
		    ? "none of the boxes named exists" : "no box on this host");
}

/* --- the whole host ------------------------------------------------------- */

int
dh_init(struct dh_ctx *h, struct dr_report *r, const struct dr_opts *o)
{
	memset(h, 0, sizeof(*h));
	h->r = r;
	h->o = o;
	h->ports = calloc(DH_PORTS, sizeof(*h->ports));
	return h->ports == NULL ? -ENOMEM : 0;
}

void
dh_free(struct dh_ctx *h)
{
	if (h->net_exists)
		incus_network_free(&h->net);
	incus_close(&h->c);
	free(h->ports);
}

