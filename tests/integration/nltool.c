/*
 * nltool.c - test driver for src/net (not part of the product).
 *
 * Built by tests/integration/test_netlink.sh and tests/bench/nft_apply.sh
 * with the system compiler against the src/net sources and src/util/err.c,
 * and run
 * inside a throwaway network namespace.  It applies a sample firewall (a
 * superset of the host firewall of parity checklist section 3.2) with our
 * netlink batch, prints the same firewall as nft(8) text for comparison,
 * lists tables, probes, and prints what the rtnetlink readers see in a
 * line format the test script compares with ip/bridge JSON.
 *
 *   nltool fw [bad-brname|bad-jump]  apply (optionally with a refused rule)
 *   nltool fw-text                   the same firewall as `nft -f` input
 *   nltool fw-bytes                  our batch, a line per message (hex)
 *   nltool list <family> <table>     what nft_list_table() reads
 *   nltool list-detail <fam> <table> the same with hooks and expressions
 *   nltool del <family> <table>      nft_table_destroy() (absent is fine)
 *   nltool reset-door <prio>         nft_chain_reset() of inet box door
 *   nltool probe-brname|probe-ifname nft_probe_brname() / a probe of
 *                                    iifname+oifname (always accepted)
 *   nltool links|brports|addrs|routes|defroute
 *   nltool sysctl-set <key> <value> | sysctl-get <key>
 *   nltool bench <n> <nft-file>      time fw vs `nft -f file`, alternating
 *   nltool capture <dir>             save raw replies (the fuzz seed corpus)
 *   nltool kat                       print the batch bytes of a tiny rule
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/rtnetlink.h>
#include <linux/netfilter/nfnetlink.h>

#include "net/nft.h"
#include "net/rtnl.h"
#include "net/rtnl_test.h"
#include "mono_ns.h"

#define BUFSZ 32768

struct tchain {
	int family;
	const char *table, *name, *type;
	int hook, prio, policy;
	const char *hookname;
};

enum { ACT_VERDICT, ACT_MASQ, ACT_SNAT, ACT_DNAT };

struct trule {
	int family;
	const char *table, *chain;
	const char *iif, *oif;
	const char *saddr;
	unsigned splen;
	const char *daddr;
	unsigned dplen;
	uint32_t ct;
	uint8_t l4;		/* 0 none, 6 tcp, 17 udp */
	int dport;
	uint16_t port;
	int counter;
	int act;
	int verdict;
	const char *target;	/* jump target */
	const char *nat_addr;
	uint16_t nat_port;
	const char *comment;
};

#define INET NFT_FAM_INET
#define BR NFT_FAM_BRIDGE

static const struct tchain chains[] = {
	{ INET, "box", "input", "filter", NFT_HOOK_INPUT, -5, NFT_V_ACCEPT,
	    "input" },
	{ INET, "box", "expose-snat", "nat", NFT_HOOK_POSTROUTING, 110,
	    NFT_V_ACCEPT, "postrouting" },
	{ INET, "box", "guard", "filter", NFT_HOOK_FORWARD, 0, NFT_V_ACCEPT,
	    "forward" },
	{ INET, "box", "extra", NULL, 0, 0, -1, NULL },
	{ INET, "box", "door", "nat", NFT_HOOK_PREROUTING, -100, NFT_V_ACCEPT,
	    "prerouting" },
	{ BR, "box", "forward", "filter", NFT_HOOK_FORWARD, -200, NFT_V_ACCEPT,
	    "forward" },
};

static const struct trule rules[] = {
	/* the host firewall of checklist 3.2 (the set split in two rules) */
	{ INET, "box", "input", .iif = "boxnet", .ct = NFT_CTSTATE_ESTABLISHED |
	    NFT_CTSTATE_RELATED, .verdict = NFT_V_ACCEPT,
	    .comment = "box: established" },
	{ INET, "box", "input", .iif = "boxnet", .l4 = 17, .dport = 1,
	    .port = 53, .verdict = NFT_V_ACCEPT, .comment = "box: dns udp" },
	{ INET, "box", "input", .iif = "boxnet", .l4 = 17, .dport = 1,
	    .port = 67, .verdict = NFT_V_ACCEPT, .comment = "box: dhcp" },
	{ INET, "box", "input", .iif = "boxnet", .l4 = 6, .dport = 1,
	    .port = 53, .verdict = NFT_V_ACCEPT, .comment = "box: dns tcp" },
	{ INET, "box", "input", .iif = "boxnet", .verdict = NFT_V_DROP,
	    .comment = "box: drop the rest" },
	{ INET, "box", "expose-snat", .oif = "boxnet", .saddr = "127.0.0.0",
	    .splen = 8, .act = ACT_MASQ, .comment = "box: expose snat" },
	/* more of the same kinds, to exercise every builder */
	{ INET, "box", "guard", .iif = "boxnet", .daddr = "10.0.0.0",
	    .dplen = 8, .counter = 1, .verdict = NFT_V_DROP,
	    .comment = "rfc1918 a" },
	{ INET, "box", "guard", .iif = "boxnet", .daddr = "172.16.0.0",
	    .dplen = 12, .counter = 1, .verdict = NFT_V_DROP,
	    .comment = "rfc1918 b" },
	{ INET, "box", "guard", .iif = "boxnet", .daddr = "192.168.0.0",
	    .dplen = 16, .verdict = NFT_V_DROP, .comment = "rfc1918 c" },
	{ INET, "box", "guard", .iif = "boxnet", .daddr = "169.254.0.0",
	    .dplen = 16, .verdict = NFT_V_DROP, .comment = "link-local" },
	{ INET, "box", "guard", .iif = "boxnet", .daddr = "100.64.0.0",
	    .dplen = 10, .verdict = NFT_V_DROP, .comment = "cgnat" },
	{ INET, "box", "guard", .iif = "boxnet", .saddr = "10.88.0.0",
	    .splen = 24, .daddr = "10.88.0.1", .dplen = 32, .l4 = 6,
	    .dport = 1, .port = 8080, .verdict = NFT_V_ACCEPT,
	    .comment = "gateway port" },
	{ INET, "box", "guard", .iif = "boxnet", .verdict = NFT_V_JUMP,
	    .target = "extra", .comment = "to extra" },
	{ INET, "box", "extra", .l4 = 6, .dport = 1, .port = 22,
	    .verdict = NFT_V_RETURN, .comment = "ssh returns" },
	{ INET, "box", "extra", .ct = NFT_CTSTATE_INVALID,
	    .verdict = NFT_V_DROP, .comment = "invalid" },
	{ INET, "box", "extra", .oif = "eth*", .l4 = 6, .dport = 0,
	    .port = 443, .verdict = NFT_V_ACCEPT, .comment = "wildcard" },
	{ INET, "box", "extra", .ct = NFT_CTSTATE_NEW, .l4 = 17, .dport = 1,
	    .port = 123, .counter = 1, .verdict = NFT_V_ACCEPT,
	    .comment = "ntp" },
	{ INET, "box", "door", .iif = "lo", .l4 = 6, .dport = 1,
	    .port = 18080, .act = ACT_DNAT, .nat_addr = "10.88.0.2",
	    .nat_port = 8080, .comment = "door" },
	{ INET, "box", "expose-snat", .oif = "boxnet", .saddr = "10.99.0.0",
	    .splen = 16, .act = ACT_SNAT, .nat_addr = "10.88.0.1",
	    .comment = "snat" },
	{ BR, "box", "forward", .iif = "boxp*", .oif = "boxp*",
	    .verdict = NFT_V_DROP, .comment = "siblings" },
	{ BR, "box", "forward", .saddr = "10.88.0.0", .splen = 24,
	    .oif = "boxq0", .verdict = NFT_V_DROP, .comment = "bridge ip" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *
famname(int f)
{
	return f == BR ? "bridge" : "inet";
}

static const char *
vname(int v)
{
	switch (v) {
	case NFT_V_ACCEPT:
		return "accept";
	case NFT_V_DROP:
		return "drop";
	case NFT_V_RETURN:
		return "return";
	case NFT_V_JUMP:
		return "jump";
	}
	return "?";
}

static void
build_rule(struct nft_batch *bt, const struct trule *r)
{
	struct in_addr a;

	nft_rule_begin(bt, r->family, r->table, r->chain, r->comment);
	if (r->iif)
		nft_match_ifname(bt, NFT_META_IIFNAME, r->iif);
	if (r->oif)
		nft_match_ifname(bt, NFT_META_OIFNAME, r->oif);
	if (r->saddr) {
		inet_pton(AF_INET, r->saddr, &a);
		nft_match_addr(bt, 0, &a, 4, r->splen);
	}
	if (r->daddr) {
		inet_pton(AF_INET, r->daddr, &a);
		nft_match_addr(bt, 1, &a, 4, r->dplen);
	}
	if (r->ct)
		nft_match_ct_state(bt, r->ct);
	if (r->l4)
		nft_match_port(bt, r->l4, r->dport, r->port);
	if (r->counter)
		nft_expr_counter(bt);
	switch (r->act) {
	case ACT_VERDICT:
		nft_verdict(bt, r->verdict, r->target);
		break;
	case ACT_MASQ:
		nft_expr_masq(bt);
		break;
	case ACT_SNAT:
	case ACT_DNAT:
		inet_pton(AF_INET, r->nat_addr, &a);
		nft_nat_to(bt, r->act == ACT_SNAT ? NFT_NAT_SNAT : NFT_NAT_DNAT,
		    &a, r->nat_port);
		break;
	}
	nft_rule_end(bt);
}

static void
build_fw(struct nft_batch *bt, const char *bad)
{
	struct nft_chain_spec cs;
	size_t i;

	nft_table_add(bt, INET, "box", 0);
	nft_table_add(bt, BR, "box", 0);
	for (i = 0; i < NELEM(chains); i++) {
		cs.name = chains[i].name;
		cs.type = chains[i].type;
		cs.hook = chains[i].hook;
		cs.prio = chains[i].prio;
		cs.policy = chains[i].policy;
		nft_chain_add(bt, chains[i].family, chains[i].table, &cs);
		nft_chain_flush(bt, chains[i].family, chains[i].table,
		    chains[i].name);
	}
	for (i = 0; i < NELEM(rules); i++)
		build_rule(bt, &rules[i]);
	if (bad != NULL && strcmp(bad, "bad-brname") == 0) {
		nft_rule_begin(bt, BR, "box", "forward", "brname");
		nft_match_ifname(bt, NFT_META_BRI_IIFNAME, "boxnet");
		nft_match_ifname(bt, NFT_META_BRI_OIFNAME, "boxnet");
		nft_verdict(bt, NFT_V_DROP, NULL);
		nft_rule_end(bt);
	} else if (bad != NULL && strcmp(bad, "bad-jump") == 0) {
		nft_rule_begin(bt, INET, "box", "input", "nowhere");
		nft_verdict(bt, NFT_V_JUMP, "no-such-chain");
		nft_rule_end(bt);
	}
}

static void
print_rule_text(const struct trule *r)
{
	printf("add rule %s %s %s", famname(r->family), r->table, r->chain);
	if (r->iif)
		printf(" iifname \"%s\"", r->iif);
	if (r->oif)
		printf(" oifname \"%s\"", r->oif);
	if (r->saddr)
		printf(" ip saddr %s/%u", r->saddr, r->splen);
	if (r->daddr)
		printf(" ip daddr %s/%u", r->daddr, r->dplen);
	if (r->ct) {
		const char *sep = "";

		printf(" ct state ");
		if (r->ct & NFT_CTSTATE_INVALID)
			printf("%sinvalid", sep), sep = ",";
		if (r->ct & NFT_CTSTATE_ESTABLISHED)
			printf("%sestablished", sep), sep = ",";
		if (r->ct & NFT_CTSTATE_RELATED)
			printf("%srelated", sep), sep = ",";
		if (r->ct & NFT_CTSTATE_NEW)
			printf("%snew", sep), sep = ",";
	}
	if (r->l4)
		printf(" %s %s %u", r->l4 == 6 ? "tcp" : "udp",
		    r->dport ? "dport" : "sport", r->port);
	if (r->counter)
		printf(" counter");
	switch (r->act) {
	case ACT_VERDICT:
		printf(" %s", vname(r->verdict));
		if (r->target)
			printf(" %s", r->target);
		break;
	case ACT_MASQ:
		printf(" masquerade");
		break;
	case ACT_SNAT:
	case ACT_DNAT:
		printf(" %s ip to %s", r->act == ACT_SNAT ? "snat" : "dnat",
		    r->nat_addr);
		if (r->nat_port)
			printf(":%u", r->nat_port);
		break;
	}
	printf(" comment \"%s\"\n", r->comment);
}

static int
cmd_fw_text(void)
{
	size_t i;

	printf("add table inet box\nadd table bridge box\n");
	for (i = 0; i < NELEM(chains); i++) {
		const struct tchain *c = &chains[i];

		printf("add chain %s %s %s", famname(c->family), c->table,
		    c->name);
		if (c->type)
			printf(" { type %s hook %s priority %d; policy %s; }",
			    c->type, c->hookname, c->prio, vname(c->policy));
		printf("\nflush chain %s %s %s\n", famname(c->family),
		    c->table, c->name);
	}
	for (i = 0; i < NELEM(rules); i++)
		print_rule_text(&rules[i]);
	return 0;
}

static int
fail(struct box_err *e)
{
	fprintf(stderr, "nltool: %s\n", e->msg);
	return 1;
}

static int
apply_fw(struct nl_sock *s, const char *bad, struct box_err *e)
{
	static unsigned char buf[BUFSZ];
	static struct nft_batch bt;

	nft_batch_init(&bt, buf, sizeof(buf), s->seq);
	build_fw(&bt, bad);
	return nft_batch_send(s, &bt, NULL, e);
}

static int
cmd_fw(const char *bad)
{
	static struct nl_sock s;
	struct box_err e;
	int r;

	err_clear(&e);
	if (nl_open(&s, NETLINK_NETFILTER, &e) < 0)
		return fail(&e);
	r = apply_fw(&s, bad, &e);
	nl_close(&s);
	if (r < 0)
		return fail(&e);
	printf("applied\n");
	return 0;
}

/* Replace chain inet box door (prio given) and re-add its rule. */
static int
cmd_reset_door(int prio)
{
	static unsigned char buf[BUFSZ];
	static struct nft_batch bt;
	static struct nl_sock s;
	struct nft_chain_spec cs = { "door", "nat", NFT_HOOK_PREROUTING, prio,
	    NFT_V_ACCEPT };
	struct box_err e;
	size_t i;

	err_clear(&e);
	if (nl_open(&s, NETLINK_NETFILTER, &e) < 0)
		return fail(&e);
	nft_batch_init(&bt, buf, sizeof(buf), s.seq);
	nft_chain_reset(&bt, INET, "box", &cs);
	for (i = 0; i < NELEM(rules); i++)
		if (strcmp(rules[i].chain, "door") == 0)
			build_rule(&bt, &rules[i]);
	if (nft_batch_send(&s, &bt, NULL, &e) < 0)
		return fail(&e);
	nl_close(&s);
	printf("reset\n");
	return 0;
}

static int
fam_arg(const char *s)
{
	if (strcmp(s, "inet") == 0)
		return NFT_FAM_INET;
	if (strcmp(s, "bridge") == 0)
		return NFT_FAM_BRIDGE;
	if (strcmp(s, "ip") == 0)
		return NFT_FAM_IPV4;
	if (strcmp(s, "ip6") == 0)
		return NFT_FAM_IPV6;
	return -1;
}

static int
cmd_list(const char *fam, const char *table, int detail)
{
	static struct nl_sock s;
	static struct nft_chain_info ch[64];
	static struct nft_rule_info ru[256];
	struct nft_table_info ti = { 0 };
	struct box_err e;
	size_t i;

	err_clear(&e);
	ti.chains = ch;
	ti.maxchains = NELEM(ch);
	ti.rules = ru;
	ti.maxrules = NELEM(ru);
	if (nl_open(&s, NETLINK_NETFILTER, &e) < 0 ||
	    nft_list_table(&s, fam_arg(fam), table, &ti, &e) < 0)
		return fail(&e);
	nl_close(&s);
	if (!ti.exists) {
		printf("table %s %s absent\n", fam, table);
		return 0;
	}
	if (!detail) {
		/* the line format of nljson.py nft-summary */
		for (i = 0; i < ti.nchains; i++)
			printf("chain %s %s %s rules %u\n", fam, table,
			    ch[i].name, ch[i].nrules);
		for (i = 0; i < ti.nrules; i++)
			printf("rule %s %s %s \"%s\"\n", fam, table,
			    ru[i].chain, ru[i].comment);
		return 0;
	}
	printf("table %s %s flags %u\n", fam, table, ti.flags);
	for (i = 0; i < ti.nchains; i++)
		printf("chain %s type %s hook %d prio %d policy %d rules %u\n",
		    ch[i].name, ch[i].base ? ch[i].type : "-",
		    ch[i].base ? (int)ch[i].hook : -1, ch[i].prio,
		    ch[i].policy, ch[i].nrules);
	for (i = 0; i < ti.nrules; i++)
		printf("rule %s \"%s\" %s\n", ru[i].chain, ru[i].comment,
		    ru[i].exprs);
	return 0;
}

static int
cmd_del(const char *fam, const char *table)
{
	static struct nl_sock s;
	static struct nft_batch bt;
	unsigned char buf[1024];
	struct box_err e;

	err_clear(&e);
	if (nl_open(&s, NETLINK_NETFILTER, &e) < 0)
		return fail(&e);
	nft_batch_init(&bt, buf, sizeof(buf), s.seq);
	nft_table_destroy(&bt, fam_arg(fam), table);
	if (nft_batch_send(&s, &bt, NULL, &e) < 0)
		return fail(&e);
	nl_close(&s);
	printf("deleted\n");
	return 0;
}

static int
ifname_exprs(struct nft_batch *bt, void *arg)
{
	nft_match_ifname(bt, NFT_META_IIFNAME, "boxp0");
	nft_match_ifname(bt, NFT_META_OIFNAME, "boxp1");
	return nft_verdict(bt, NFT_V_DROP, NULL);
}

/* probe-brname: nft_probe_brname(); probe-ifname: iifname/oifname in the
 * same bridge forward chain, which every kernel accepts. */
static int
cmd_probe(const char *what)
{
	static const struct nft_chain_spec fwd = { "forward", "filter",
	    NFT_HOOK_FORWARD, -200, NFT_V_ACCEPT };
	static struct nl_sock s;
	struct nl_error why;
	struct box_err e;
	char txt[256];
	int r;

	err_clear(&e);
	if (nl_open(&s, NETLINK_NETFILTER, &e) < 0)
		return fail(&e);
	if (strcmp(what, "probe-brname") == 0)
		r = nft_probe_brname(&s, &why, &e);
	else
		r = nft_probe(&s, NFT_FAM_BRIDGE, &fwd, ifname_exprs, NULL,
		    &why, &e);
	nl_close(&s);
	if (r < 0)
		return fail(&e);
	if (r == 1)
		printf("%s supported\n", what + 6);
	else
		printf("%s refused: %s\n", what + 6,
		    nl_error_str(&why, txt, sizeof(txt)));
	return 0;
}

static const char *
operstate(uint8_t o)
{
	static const char *n[] = { "UNKNOWN", "NOTPRESENT", "DOWN",
	    "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP" };

	return o < NELEM(n) ? n[o] : "?";
}

static int
cmd_rtnl(const char *what)
{
	static struct nl_sock s;
	static struct rtnl_link l[256];
	static struct rtnl_brport p[256];
	static struct rtnl_addr4 a[256];
	static struct rtnl_route4 rt[256];
	const struct rtnl_link *m;
	struct box_err e;
	char x[INET_ADDRSTRLEN], y[INET_ADDRSTRLEN];
	int nl, n, i;

	err_clear(&e);
	if (nl_open(&s, NETLINK_ROUTE, &e) < 0 ||
	    (nl = rtnl_links(&s, l, NELEM(l), &e)) < 0)
		return fail(&e);
	if (strcmp(what, "links") == 0) {
		for (i = 0; i < nl; i++) {
			m = rtnl_link_by_index(l, (size_t)nl, l[i].master);
			printf("%d %s %s %s %s\n", l[i].ifindex, l[i].name,
			    l[i].kind[0] ? l[i].kind : "-",
			    m ? m->name : "-", operstate(l[i].operstate));
		}
	} else if (strcmp(what, "brports") == 0) {
		if ((n = rtnl_bridge_ports(&s, p, NELEM(p), &e)) < 0)
			return fail(&e);
		for (i = 0; i < n; i++) {
			m = rtnl_link_by_index(l, (size_t)nl, p[i].master);
			printf("%s %s %s\n", p[i].name, m ? m->name : "-",
			    p[i].isolated < 0 ? "?" :
			    p[i].isolated ? "on" : "off");
		}
	} else if (strcmp(what, "addrs") == 0) {
		if ((n = rtnl_addrs4(&s, a, NELEM(a), &e)) < 0)
			return fail(&e);
		for (i = 0; i < n; i++) {
			m = rtnl_link_by_index(l, (size_t)nl, a[i].ifindex);
			inet_ntop(AF_INET, &a[i].addr, x, sizeof(x));
			printf("%s %s/%u\n", m ? m->name : "-", x,
			    a[i].prefixlen);
		}
	} else if (strcmp(what, "routes") == 0 ||
	    strcmp(what, "defroute") == 0) {
		const struct rtnl_route4 *d;

		if ((n = rtnl_routes4(&s, rt, NELEM(rt), &e)) < 0)
			return fail(&e);
		d = rtnl_default_route4(rt, (size_t)n);
		for (i = 0; i < n; i++) {
			if (strcmp(what, "defroute") == 0 && &rt[i] != d)
				continue;
			m = rtnl_link_by_index(l, (size_t)nl, rt[i].oif);
			inet_ntop(AF_INET, &rt[i].dst, x, sizeof(x));
			inet_ntop(AF_INET, &rt[i].gw, y, sizeof(y));
			if (rt[i].dst_len == 0)
				printf("default");
			else
				printf("%s/%u", x, rt[i].dst_len);
			printf(" via %s dev %s\n", rt[i].has_gw ? y : "-",
			    m ? m->name : "-");
		}
	}
	nl_close(&s);
	return 0;
}

static int
run(char *const argv[])
{
	pid_t pid;
	int st;

	if ((pid = fork()) == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long
median(long long *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Alternate, N times: (a) our batch in-process, from socket open until the
 * last ACK (the kernel has committed: the firewall is live), then the
 * socket's close() timed on its own (a'): nf_tables flushes its deferred
 * destroy work when a netfilter socket is released, which waits for an RCU
 * grace period; (b) `nft -f file`, a process, which pays the same wait at
 * exit; (c) this tool as a process applying our batch.
 */
static int
cmd_bench(int n, const char *file, const char *self)
{
	static long long ta[1000], tz[1000], tb[1000], tc[1000];
	static struct nl_sock s;
	char *nft[] = { "nft", "-f", (char *)file, NULL };
	char *me[] = { (char *)self, "fw-quiet", NULL };
	struct box_err e;
	long long t0, ma, mz, mb, mc;
	int i;

	if (n < 1 || n > 1000)
		n = 20;
	for (i = 0; i < n; i++) {
		err_clear(&e);
		t0 = now_ns();
		if (nl_open(&s, NETLINK_NETFILTER, &e) < 0 ||
		    apply_fw(&s, NULL, &e) < 0)
			return fail(&e);
		ta[i] = now_ns() - t0;
		t0 = now_ns();
		nl_close(&s);
		tz[i] = ta[i] + now_ns() - t0;
		t0 = now_ns();
		if (run(nft) != 0) {
			fprintf(stderr, "nltool: nft -f %s failed\n", file);
			return 1;
		}
		tb[i] = now_ns() - t0;
		t0 = now_ns();
		if (run(me) != 0) {
			fprintf(stderr, "nltool: %s fw-quiet failed\n", self);
			return 1;
		}
		tc[i] = now_ns() - t0;
	}
	ma = median(ta, n);
	mz = median(tz, n);
	mb = median(tb, n);
	mc = median(tc, n);
	printf("runs %d, rules %zu, chains %zu, one batch of %u messages\n", n,
	    NELEM(rules), NELEM(chains), 2 + 2 * (unsigned)NELEM(chains) +
	    (unsigned)NELEM(rules));
	printf("(a)  netlink batch, open..last ACK (live)  median %8.3f ms\n",
	    ma / 1e6);
	printf("(a') the same + close() (RCU wait)         median %8.3f ms\n",
	    mz / 1e6);
	printf("(c)  netlink batch, own process            median %8.3f ms\n",
	    mc / 1e6);
	printf("(b)  nft -f, process                       median %8.3f ms\n",
	    mb / 1e6);
	printf("ratio apply (a)/(b)  %.3fx\n", (double)ma / (double)mb);
	printf("ratio close (a')/(b) %.3fx\n", (double)mz / (double)mb);
	printf("ratio proc  (c)/(b)  %.3fx\n", (double)mc / (double)mb);
	return 0;
}

/* Our batch, one line per inner message: "<type> <payload hex>". */
static int
cmd_fw_bytes(void)
{
	static unsigned char buf[BUFSZ];
	static struct nft_batch bt;
	struct nlmsghdr h;
	size_t off = 0, i;

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	build_fw(&bt, NULL);
	if (nft_batch_end(&bt) != 0)
		return 1;
	while (off + sizeof(h) <= bt.b.len) {
		memcpy(&h, buf + off, sizeof(h));
		if (h.nlmsg_type != 16 && h.nlmsg_type != 17) {
			printf("%u ", h.nlmsg_type);
			for (i = sizeof(h); i < h.nlmsg_len; i++)
				printf("%02x", buf[off + i]);
			printf("\n");
		}
		off += NL_ALIGN(h.nlmsg_len);
	}
	return 0;
}

/* Send req and save every reply datagram as dir/name-<i>.bin. */
static int
capture_one(int proto, const char *dir, const char *name, void *req,
    size_t n, int dump, unsigned acks)
{
	static struct nl_sock s;
	struct nlmsghdr h;
	struct nl_rx rx;
	struct box_err e;
	char path[512];
	FILE *f;
	int i, len;

	err_clear(&e);
	if (nl_open(&s, proto, &e) < 0)
		return fail(&e);
	memcpy(&h, req, sizeof(h));
	nl_rx_init(&rx, s.portid, h.nlmsg_seq, h.nlmsg_seq + acks);
	rx.dump = dump;
	rx.expect_acks = acks;
	if (acks > 1) {
		rx.batch_seq = h.nlmsg_seq;
		rx.seq_lo = h.nlmsg_seq + 1;
	}
	if (nl_send(&s, req, n, &e) < 0)
		return fail(&e);
	for (i = 0; !rx.done; i++) {
		s.timeout_ms = 500;
		if ((len = nl_recv(&s, &e)) < 0)
			break;
		snprintf(path, sizeof(path), "%s/%s-%d.bin", dir, name, i);
		if ((f = fopen(path, "wb")) == NULL)
			return 1;
		fwrite(s.rbuf, 1, (size_t)len, f);
		fclose(f);
		if (nl_rx_feed(&rx, s.rbuf, (size_t)len) < 0)
			break;
	}
	nl_close(&s);
	printf("%s: %d datagrams\n", name, i);
	return 0;
}

static int
cmd_capture(const char *dir)
{
	static unsigned char buf[BUFSZ];
	static struct nft_batch bt;
	struct nl_buf b;
	unsigned char *h;
	size_t at;

	/* rtnetlink dumps */
	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, RTM_GETLINK, NLM_F_DUMP, 100);
	nl_msg_extra(&b, sizeof(struct ifinfomsg));
	nl_put_u32(&b, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	capture_one(NETLINK_ROUTE, dir, "links", buf, b.len, 1, 0);
	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, RTM_GETLINK, NLM_F_DUMP, 101);
	h = nl_msg_extra(&b, sizeof(struct ifinfomsg));
	h[0] = AF_BRIDGE;
	capture_one(NETLINK_ROUTE, dir, "brports", buf, b.len, 1, 0);
	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, RTM_GETADDR, NLM_F_DUMP, 102);
	h = nl_msg_extra(&b, sizeof(struct ifaddrmsg));
	h[0] = AF_INET;
	capture_one(NETLINK_ROUTE, dir, "addrs", buf, b.len, 1, 0);
	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, RTM_GETROUTE, NLM_F_DUMP, 103);
	h = nl_msg_extra(&b, sizeof(struct rtmsg));
	h[0] = AF_INET;
	capture_one(NETLINK_ROUTE, dir, "routes", buf, b.len, 1, 0);
	/* an error with extended-ACK text: a link of an unknown kind */
	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK,
	    104);
	nl_msg_extra(&b, sizeof(struct ifinfomsg));
	nl_put_str(&b, IFLA_IFNAME, "nltool0");
	at = nl_nest_begin(&b, IFLA_LINKINFO);
	nl_put_str(&b, IFLA_INFO_KIND, "no-such-kind");
	nl_nest_end(&b, at);
	capture_one(NETLINK_ROUTE, dir, "extack", buf, b.len, 0, 1);
	/* nf_tables dumps of our table, and a missing one */
	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_GETCHAIN,
	    NFT_FAM_INET, NLM_F_DUMP, 105);
	capture_one(NETLINK_NETFILTER, dir, "nftchains", buf, b.len, 1, 0);
	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE,
	    NFT_FAM_INET, NLM_F_DUMP, 106);
	nl_put_str(&b, NFTA_RULE_TABLE, "box");
	capture_one(NETLINK_NETFILTER, dir, "nftrules", buf, b.len, 1, 0);
	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_GETTABLE,
	    NFT_FAM_INET, NLM_F_ACK, 107);
	nl_put_str(&b, NFTA_TABLE_NAME, "no-such-table");
	capture_one(NETLINK_NETFILTER, dir, "nftnotable", buf, b.len, 0, 1);
	/* a batch the kernel refuses: its ACKs and the error */
	nft_batch_init(&bt, buf, sizeof(buf), 200);
	build_fw(&bt, "bad-brname");
	nft_batch_end(&bt);
	capture_one(NETLINK_NETFILTER, dir, "batchfail", buf, bt.b.len, 0,
	    bt.nmsg);
	return 0;
}

static int
cmd_kat(void)
{
	static struct nft_batch bt;
	unsigned char buf[1024];
	size_t i;

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, INET, "box", "input", "c");
	nft_match_ifname(&bt, NFT_META_IIFNAME, "boxnet");
	nft_verdict(&bt, NFT_V_DROP, NULL);
	nft_rule_end(&bt);
	nft_batch_end(&bt);
	for (i = 0; i < bt.b.len; i++)
		printf("%02x%s", buf[i], i % 16 == 15 ? "\n" : " ");
	printf("\n");
	return 0;
}

int
main(int argc, char **argv)
{
	struct box_err e;
	char v[256];

	if (argc < 2)
		goto usage;
	err_clear(&e);
	if (strcmp(argv[1], "fw") == 0)
		return cmd_fw(argc > 2 ? argv[2] : NULL);
	if (strcmp(argv[1], "fw-quiet") == 0) {
		static struct nl_sock s;

		if (nl_open(&s, NETLINK_NETFILTER, &e) < 0 ||
		    apply_fw(&s, NULL, &e) < 0)
			return fail(&e);
		return 0;
	}
	if (strcmp(argv[1], "fw-text") == 0)
		return cmd_fw_text();
	if (strcmp(argv[1], "list") == 0 && argc == 4)
		return cmd_list(argv[2], argv[3], 0);
	if (strcmp(argv[1], "list-detail") == 0 && argc == 4)
		return cmd_list(argv[2], argv[3], 1);
	if (strcmp(argv[1], "del") == 0 && argc == 4)
		return cmd_del(argv[2], argv[3]);
	if (strcmp(argv[1], "probe-brname") == 0 ||
	    strcmp(argv[1], "probe-ifname") == 0)
		return cmd_probe(argv[1]);
	if (strcmp(argv[1], "sysctl-set") == 0 && argc == 4)
		return rtnl_sysctl_set(argv[2], argv[3], &e) < 0 ? fail(&e) :
		    0;
	if (strcmp(argv[1], "sysctl-get") == 0 && argc == 3) {
		if (rtnl_sysctl_get(argv[2], v, sizeof(v), &e) < 0)
			return fail(&e);
		printf("%s\n", v);
		return 0;
	}
	if (strcmp(argv[1], "bench") == 0 && argc == 4)
		return cmd_bench(atoi(argv[2]), argv[3], argv[0]);
	if (strcmp(argv[1], "reset-door") == 0 && argc == 3)
		return cmd_reset_door(atoi(argv[2]));
	if (strcmp(argv[1], "capture") == 0 && argc == 3)
		return cmd_capture(argv[2]);
	if (strcmp(argv[1], "fw-bytes") == 0)
		return cmd_fw_bytes();
	if (strcmp(argv[1], "kat") == 0)
		return cmd_kat();
	if (strcmp(argv[1], "links") == 0 || strcmp(argv[1], "brports") == 0 ||
	    strcmp(argv[1], "addrs") == 0 || strcmp(argv[1], "routes") == 0 ||
	    strcmp(argv[1], "defroute") == 0)
		return cmd_rtnl(argv[1]);
usage:
	fprintf(stderr, "usage: nltool fw|fw-text|list|del|probe-brname|"
	    "links|brports|addrs|routes|defroute|sysctl-set|sysctl-get|"
	    "bench|kat ...\n");
	return 2;
}
