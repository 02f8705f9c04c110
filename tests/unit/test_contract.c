/*
 * test_contract.c - the host contract table, and what "the same rule"
 * means when the kernel's rules are compared with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter/nfnetlink.h>

#include "host/doctor/nicfilter.h"
#include "host/stack/contract.h"
#include "host/stack/contract_test.h"
#include "host/stack/firewall.h"
#include "host/stack/firewall_test.h"
#include "model/mac.h"
#include "net/nft.h"
#include "t.h"

#define NET 0x0a580000u	/* 10.88.0.0 */

static struct nft_rule_info want[96];

/* Parse the idx-th message of a batch as a rule. */
static int
rule_at(const struct nft_batch *bt, int idx, struct nft_rule_info *ri)
{
	struct nl_msg m;
	size_t off = 0;
	int i;

	for (i = 0; i <= idx; i++)
		if (nl_msg_at(bt->b.p, bt->b.len, &off, &m) != 1)
			return -1;
	return nft_parse_rule(&m, "box", ri);
}

TEST(contract_rules_both_variants)
{
	struct contract_env env = { .bridge = CONTRACT_BRIDGE, .net = NET };
	struct contract_rule_ref ref, other;
	int n, i, j;

	for (env.brname = 0; env.brname <= 1; env.brname++) {
		n = contract_expect(&env, want, 96);
		CHECK(n > 20);
		CHECK_INT(n, (long long)contract_nrules(&env));
		for (i = 0; i < n; i++) {
			CHECK(!want[i].canon_trunc);
			CHECK(want[i].canon[0] != '\0');
			CHECK(contract_rule_ref(&env, (size_t)i, &ref) == 0);
			CHECK_STR(want[i].comment, ref.comment);
			CHECK(strncmp(ref.comment, "box: ", 5) == 0);
			/* comments name rules: unique within a chain */
			for (j = 0; j < i; j++) {
				contract_rule_ref(&env, (size_t)j, &other);
				CHECK(other.family != ref.family ||
				    strcmp(other.chain, ref.chain) != 0 ||
				    strcmp(other.comment, ref.comment) != 0);
			}
		}
		CHECK(contract_rule_ref(&env, (size_t)n, &ref) == -ENOENT);
	}
	env.net = 0;
	CHECK_INT(contract_expect(&env, want, 96), -EINVAL);
	env.net = NET | 5;	/* not a /24 network address */
	CHECK_INT(contract_expect(&env, want, 96), -EINVAL);
	env.net = NET;
	CHECK_INT(contract_expect(&env, want, 3), -ENOSPC);
}

/* What contract_emit() sends is, rule by rule, what contract_expect() wants. */
TEST(contract_emit_equals_expect)
{
	static struct nft_batch bt;
	static unsigned char buf[64 << 10];
	struct contract_env env = { .bridge = CONTRACT_BRIDGE, .net = NET };
	struct nft_rule_info ri;
	struct nl_msg m;
	size_t off = 0;
	int n, k = 0, r;

	n = contract_expect(&env, want, 96);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(contract_emit(&bt, &env), 0);
	CHECK_INT(nft_batch_end(&bt), 0);
	while (nl_msg_at(bt.b.p, bt.b.len, &off, &m) == 1) {
		r = nft_parse_rule(&m, "box", &ri);
		if (r != 1)
			continue;
		CHECK(k < n);
		if (k >= n)
			break;
		CHECK_STR(ri.canon, want[k].canon);
		CHECK_STR(ri.comment, want[k].comment);
		k++;
	}
	CHECK_INT(k, n);
}

/* The ruleset's meaning, read from the table itself. */
TEST(contract_table_says_what_the_contract_says)
{
	char raw[512];
	const char *srv[2] = { "192.0.2.53", "2001:db8::53" };
	size_t i;
	int v6 = 0, nat = 0, dns = 0, filt = 0, iso = 0;

	for (i = 0; i < contract_nbridge_keys; i++) {
		const struct contract_key *k = &contract_bridge_keys[i];

		v6 += strcmp(k->key, "ipv6.address") == 0 &&
		    strcmp(k->value, "none") == 0;
		nat += strcmp(k->key, "ipv4.nat") == 0 &&
		    strcmp(k->value, "true") == 0;
		dns += strcmp(k->key, "dns.mode") == 0 &&
		    strcmp(k->value, "none") == 0;
	}
	for (i = 0; i < contract_nnic_keys; i++) {
		const struct contract_key *k = &contract_nic_keys[i];

		filt += strstr(k->key, "_filtering") != NULL &&
		    strcmp(k->value, "true") == 0;
		iso += strcmp(k->key, "security.port_isolation") == 0 &&
		    strcmp(k->value, "true") == 0;
	}
	CHECK_INT(v6, 1);
	CHECK_INT(nat, 1);
	CHECK_INT(dns, 1);
	CHECK_INT(filt, 3);
	CHECK_INT(iso, 1);
	CHECK_INT(contract_dnsmasq(srv, 2, raw, sizeof(raw)), 0);
	CHECK_STR(raw, "no-resolv\nno-hosts\ndomain-needed\n"
	    "dhcp-ignore-names\nmax-cache-ttl=300\n"
	    "dhcp-ignore=tag:!known\nscript-on-renewal\n"
	    "dhcp-script=/usr/local/libexec/box/box-dhcp-hook\n"
	    "server=192.0.2.53\n"
	    "server=2001:db8::53");
	CHECK_INT(contract_dnsmasq(srv, 2, raw, 20), -ENOSPC);
}

/* One verdict flipped, one port moved: the canonical text differs. */
TEST(contract_canon_sees_a_flipped_verdict_and_a_moved_port)
{
	static struct nft_batch bt;
	unsigned char buf[4096];
	struct nft_rule_info a, b, c;
	int verdict[3] = { NFT_V_DROP, NFT_V_ACCEPT, NFT_V_DROP };
	uint16_t port[3] = { 53, 53, 54 };
	struct nft_rule_info *out[3] = { &a, &b, &c };
	int i;

	for (i = 0; i < 3; i++) {
		nft_batch_init(&bt, buf, sizeof(buf), 1);
		nft_rule_begin(&bt, NFT_FAM_INET, "box", "input", "box: x");
		nft_match_ifname(&bt, NFT_META_IIFNAME, "boxnet");
		nft_match_port(&bt, 17, 1, port[i]);
		nft_verdict(&bt, verdict[i], NULL);
		nft_rule_end(&bt);
		CHECK_INT(nft_batch_end(&bt), 0);
		CHECK_INT(rule_at(&bt, 1, out[i]), 1);
	}
	CHECK(strcmp(a.canon, b.canon) != 0);
	CHECK(strcmp(a.canon, c.canon) != 0);
	CHECK(strstr(a.canon, "immediate(1=00000000,2{2{1=00000000}})") != NULL);
	CHECK(strstr(b.canon, "immediate(1=00000000,2{2{1=00000001}})") != NULL);
	CHECK(strstr(c.canon, "3{1=0036}") != NULL);
}

/*
 * The kernel dumps attributes in its own order and data nests without
 * NLA_F_NESTED: neither changes the canonical text.  A counter's values
 * and a bitwise op of 0 are left out.
 */
TEST(contract_canon_ignores_order_flags_and_counters)
{
	unsigned char one[512], two[512];
	static const unsigned char val[2] = { 0, 53 };
	struct nft_rule_info a, b;
	struct nl_buf x, y;
	struct nl_msg m;
	size_t list, el, data, d2, off;

	/* ours: cmp(sreg, op, data{value}) with the nest flag, a counter */
	nl_buf_init(&x, one, sizeof(one));
	nl_nfmsg_begin(&x, NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE, 1, 0, 1);
	nl_put_str(&x, NFTA_RULE_TABLE, "box");
	nl_put_str(&x, NFTA_RULE_CHAIN, "input");
	list = nl_nest_begin(&x, NFTA_RULE_EXPRESSIONS);
	el = nl_nest_begin(&x, NFTA_LIST_ELEM);
	nl_put_str(&x, NFTA_EXPR_NAME, "cmp");
	data = nl_nest_begin(&x, NFTA_EXPR_DATA);
	nl_put_be32(&x, NFTA_CMP_SREG, 1);
	nl_put_be32(&x, NFTA_CMP_OP, 0);
	d2 = nl_nest_begin(&x, NFTA_CMP_DATA);
	nl_put(&x, NFTA_DATA_VALUE, val, 2);
	nl_nest_end(&x, d2);
	nl_nest_end(&x, data);
	nl_nest_end(&x, el);
	el = nl_nest_begin(&x, NFTA_LIST_ELEM);
	nl_put_str(&x, NFTA_EXPR_NAME, "counter");
	data = nl_nest_begin(&x, NFTA_EXPR_DATA);
	nl_put_be64(&x, NFTA_COUNTER_PACKETS, 0);
	nl_nest_end(&x, data);
	nl_nest_end(&x, el);
	nl_nest_end(&x, list);
	CHECK_INT(nl_msg_end(&x), 0);

	/* the kernel's: reversed attributes, no nest flag on the data,
	 * other counter values */
	nl_buf_init(&y, two, sizeof(two));
	nl_nfmsg_begin(&y, NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE, 1, 0, 1);
	nl_put_str(&y, NFTA_RULE_TABLE, "box");
	nl_put_str(&y, NFTA_RULE_CHAIN, "input");
	list = nl_nest_begin(&y, NFTA_RULE_EXPRESSIONS);
	el = nl_nest_begin(&y, NFTA_LIST_ELEM);
	nl_put_str(&y, NFTA_EXPR_NAME, "cmp");
	data = nl_nest_begin(&y, NFTA_EXPR_DATA);
	{
		/* NFTA_CMP_DATA as a plain attribute holding a value attr */
		unsigned char inner[8] = { 6, 0, NFTA_DATA_VALUE, 0, 0, 53,
		    0, 0 };

		nl_put(&y, NFTA_CMP_DATA, inner, sizeof(inner));
	}
	nl_put_be32(&y, NFTA_CMP_OP, 0);
	nl_put_be32(&y, NFTA_CMP_SREG, 1);
	nl_nest_end(&y, data);
	nl_nest_end(&y, el);
	el = nl_nest_begin(&y, NFTA_LIST_ELEM);
	nl_put_str(&y, NFTA_EXPR_NAME, "counter");
	data = nl_nest_begin(&y, NFTA_EXPR_DATA);
	nl_put_be64(&y, NFTA_COUNTER_PACKETS, 12345);
	nl_put_be64(&y, NFTA_COUNTER_BYTES, 999);
	nl_nest_end(&y, data);
	nl_nest_end(&y, el);
	nl_nest_end(&y, list);
	CHECK_INT(nl_msg_end(&y), 0);

	off = 0;
	CHECK_INT(nl_msg_at(x.p, x.len, &off, &m), 1);
	CHECK_INT(nft_parse_rule(&m, "box", &a), 1);
	off = 0;
	CHECK_INT(nl_msg_at(y.p, y.len, &off, &m), 1);
	CHECK_INT(nft_parse_rule(&m, "box", &b), 1);
	CHECK_STR(a.canon, "cmp(1=00000001,2=00000000,3{1=0035}) counter()");
	CHECK_STR(b.canon, a.canon);
}

/* A rule too big for the text never compares equal. */
TEST(contract_canon_truncation_is_marked)
{
	static struct nft_batch bt;
	static unsigned char buf[16384];
	struct nft_rule_info ri;
	int i;

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "box", "input", NULL);
	for (i = 0; i < 40; i++)
		nft_match_ifname(&bt, NFT_META_IIFNAME, "boxnet");
	nft_verdict(&bt, NFT_V_DROP, NULL);
	nft_rule_end(&bt);
	CHECK_INT(nft_batch_end(&bt), 0);
	CHECK_INT(rule_at(&bt, 1, &ri), 1);
	CHECK_INT(ri.canon_trunc, 1);
}

/* The lease Incus pins for a filtered NIC, as its dnsmasq host file says. */
TEST(nicfilter_parsers)
{
	unsigned char mac[6], other[6];
	uint32_t a = 0;

	CHECK_INT(mac_parse("10:66:6a:d0:42:53", mac), 0);
	CHECK(mac[0] == 0x10 && mac[5] == 0x53);
	CHECK_INT(mac_parse("10:66:6a:d0:42", other), -EINVAL);
	CHECK_INT(mac_parse("10:66:6a:d0:42:53:00", other), -EINVAL);
	CHECK_INT(mac_parse("zz:66:6a:d0:42:53", other), -EINVAL);
	CHECK_INT(mac_static_parse("10:66:6a:d0:42:53,10.88.0.37\n", 29, mac,
	    &a), 0);
	CHECK_INT(a, 0x0a580025);
	CHECK_INT(mac_static_parse("10:66:6a:d0:42:53,10.88.0.37,box", 32,
	    mac, &a), 0);
	CHECK_INT(mac_static_parse("10:66:6a:d0:42:54,10.88.0.37", 28, mac,
	    &a), -ESRCH);
	CHECK_INT(mac_static_parse("10:66:6a:d0:42:53,10.88.0.999", 29, mac,
	    &a), -EINVAL);
	CHECK_INT(mac_static_parse("10:66:6a:d0:42:53,10.88.0.3x", 29, mac,
	    &a), -EINVAL);
	CHECK_INT(mac_static_parse("garbage", 7, mac, &a), -EINVAL);
}

/* --- the read-back compare, over tables as a dump would fill them ------- */

static struct nft_chain_info kch[2][8];
static struct nft_rule_info kru[2][96];

/* The kernel holding exactly the contract. */
static void
kernel_as_contract(struct fw_kernel *k, const struct contract_env *env)
{
	struct contract_rule_ref ref;
	size_t c;
	int n, i, f;

	memset(k, 0, sizeof(*k));
	for (f = 0; f < 2; f++) {
		k->ti[f].exists = 1;
		k->ti[f].chains = kch[f];
		k->ti[f].rules = kru[f];
		k->ti[f].maxchains = 8;
		k->ti[f].maxrules = 96;
	}
	for (c = 0; c < contract_nchains; c++) {
		const struct contract_chain *cc = &contract_chains[c];
		struct nft_chain_info *ci;

		f = cc->family == NFT_FAM_BRIDGE;
		ci = &kch[f][k->ti[f].nchains++];
		memset(ci, 0, sizeof(*ci));
		snprintf(ci->name, sizeof(ci->name), "%s", cc->spec.name);
		snprintf(ci->type, sizeof(ci->type), "%s", cc->spec.type);
		ci->base = 1;
		ci->hook = (uint32_t)cc->spec.hook;
		ci->prio = cc->spec.prio;
		ci->policy = cc->spec.policy >= 0 ? cc->spec.policy : 1;
	}
	n = contract_expect(env, want, 96);
	for (i = 0; i < n; i++) {
		contract_rule_ref(env, (size_t)i, &ref);
		f = ref.family == NFT_FAM_BRIDGE;
		kru[f][k->ti[f].nrules++] = want[i];
	}
}

static int
diff_has(const struct fw_status *st, const char *needle)
{
	int i;

	for (i = 0; i < st->ndiff; i++)
		if (strstr(st->diff[i], needle) != NULL)
			return 1;
	return 0;
}

/* inet rule index of a comment */
static struct nft_rule_info *
inet_rule(struct fw_kernel *k, const char *comment)
{
	size_t i;

	for (i = 0; i < k->ti[0].nrules; i++)
		if (strcmp(kru[0][i].comment, comment) == 0)
			return &kru[0][i];
	return NULL;
}

TEST(fw_compare_names_what_the_kernel_changed)
{
	struct contract_env env = { .bridge = CONTRACT_BRIDGE, .net = NET };
	struct fw_kernel k;
	struct fw_status st;
	struct box_err e;
	struct nft_rule_info *r, tmp;
	char *v;

	err_clear(&e);
	kernel_as_contract(&k, &env);
	CHECK_INT(fw_compare(&k, CONTRACT_BRIDGE, NET, -1, &st, &e), 0);
	CHECK(st.ok);
	CHECK_INT(st.held, st.want);
	CHECK_INT(st.sibling, FW_SIBLING_SUBNET);

	/* a drop turned into an accept: same count, same comment */
	r = inet_rule(&k, "box: a box never reaches the host");
	CHECK(r != NULL);
	if (r == NULL)
		return;
	v = strstr(r->canon, "immediate(1=00000000,2{2{1=00000000}})");
	CHECK(v != NULL);
	if (v == NULL)
		return;
	v[strlen("immediate(1=00000000,2{2{1=0000000")] = '1';
	CHECK_INT(fw_compare(&k, CONTRACT_BRIDGE, NET, -1, &st, &e), 0);
	CHECK(!st.ok);
	CHECK_INT(st.held, st.want - 1);
	CHECK(diff_has(&st, "rule \"box: a box never reaches the host\" is "
	    "CHANGED: expression 3"));

	/* DNS moved to another port */
	kernel_as_contract(&k, &env);
	r = inet_rule(&k, "box: DNS to the gateway");
	v = r != NULL ? strstr(r->canon, "3{1=0035}") : NULL;
	CHECK(v != NULL);
	if (v != NULL)
		v[7] = '6';
	fw_compare(&k, CONTRACT_BRIDGE, NET, -1, &st, &e);
	CHECK(diff_has(&st, "rule \"box: DNS to the gateway\" is CHANGED"));

	/* a rule gone, and one that is not box's */
	kernel_as_contract(&k, &env);
	r = inet_rule(&k, "box: DHCP broadcast");
	if (r != NULL)
		snprintf(r->comment, sizeof(r->comment), "someone's");
	fw_compare(&k, CONTRACT_BRIDGE, NET, -1, &st, &e);
	CHECK(diff_has(&st, "rule \"box: DHCP broadcast\" is MISSING"));
	CHECK(diff_has(&st, "a rule that is not box's: \"someone's\""));
	CHECK_INT(st.extra, 1);

	/* two rules of a chain swapped */
	kernel_as_contract(&k, &env);
	tmp = kru[0][1];
	kru[0][1] = kru[0][2];
	kru[0][2] = tmp;
	fw_compare(&k, CONTRACT_BRIDGE, NET, -1, &st, &e);
	CHECK(!st.ok);
	CHECK(diff_has(&st, "is out of order"));

	/* a chain on another priority; the bridge table gone */
	kernel_as_contract(&k, &env);
	kch[0][0].prio = 10;
	k.ti[1].exists = 0;
	k.ti[1].nchains = k.ti[1].nrules = 0;
	fw_compare(&k, CONTRACT_BRIDGE, NET, -1, &st, &e);
	CHECK(diff_has(&st, "chain input is not as box sets it"));
	CHECK(diff_has(&st, "table bridge box is ABSENT"));
	CHECK_INT(st.sibling, FW_SIBLING_ABSENT);

	/* the same kernel compared for another subnet holds nothing */
	kernel_as_contract(&k, &env);
	fw_compare(&k, CONTRACT_BRIDGE, 0x0a590000u, -1, &st, &e);
	CHECK(!st.ok);
	CHECK(st.held < st.want);
}

/*
 * The known answer: every rule of the contract, in order, for each of the
 * two bridge variants, as the kernel's bytecode (the canonical text of
 * net/nft.h: expression(attribute=value,...), numbers as the kernel holds
 * them).  Written down by hand from the nft text of each rule (see
 * tests/integration/contract.nft) and checked against `nft --debug=netlink`
 * for the same text - never computed from contract.c.  A rule added to,
 * changed in or moved within contract.c fails here until its known answer
 * is written below.
 */
#define BOXNET	"626f786e657400000000000000000000"	/* "boxnet", IFNAMSIZ */
#define EQ(v)	"cmp(1=00000001,2=00000000,3{1=" v "}) "
#define NEQ(v)	"cmp(1=00000001,2=00000001,3{1=" v "}) "
#define META(k)	"meta(1=00000001,2=" k ") "
#define K_IIFNAME	"00000006"
#define K_OIFNAME	"00000007"
#define K_NFPROTO	"0000000f"
#define K_L4PROTO	"00000010"
#define K_PROTOCOL	"00000001"
#define K_IBRNAME	"00000011"
#define K_OBRNAME	"00000012"
/* iifname "boxnet", oifname "boxnet" */
#define A_IIF	META(K_IIFNAME) EQ(BOXNET)
#define A_OIF	META(K_OIFNAME) EQ(BOXNET)
/* the implicit "meta nfproto ipv4" of an ip match in table inet */
#define A_V4	META(K_NFPROTO) EQ("02")
/* payload load <len> bytes at <off> of the network header */
#define NH(off, len) "payload(1=00000001,2=00000001,3=" off ",4=" len ") "
#define DADDR	"00000010"
#define SADDR	"0000000c"
/* ip daddr a.b.c.d (32 bits) */
#define TO32(hex)	A_V4 NH(DADDR, "00000004") EQ(hex)
/* ip daddr on a byte boundary: the prefix's bytes alone */
#define TOB(len, hex)	A_V4 NH(DADDR, len) EQ(hex)
/* ip daddr off a byte boundary: masked, then compared */
#define TOM(mask, hex)	A_V4 NH(DADDR, "00000004") \
	"bitwise(1=00000001,2=00000001,3=00000004,4{1=" mask "},5{1=00000000}) " \
	EQ(hex)
/* <proto> dport <port>: meta l4proto, then the transport header's bytes 2-3 */
#define DPORT(proto, port) META(K_L4PROTO) EQ(proto) \
	"payload(1=00000001,2=00000002,3=00000002,4=00000002) " EQ(port)
#define UDP	"11"
#define TCP	"06"
/* ct state established,related (bits 2|4, in the kernel's byte order) */
#define A_EST_REL "ct(1=00000001,2=00000000) " \
	"bitwise(1=00000001,2=00000001,3=00000004,4{1=06000000},5{1=00000000}) " \
	NEQ("00000000")
#define ACCEPT	"immediate(1=00000000,2{2{1=00000001}})"
#define DROP	"immediate(1=00000000,2{2{1=00000000}})"
/* ct state new, ct state invalid */
#define A_NEW "ct(1=00000001,2=00000000) " \
	"bitwise(1=00000001,2=00000001,3=00000004,4{1=08000000},5{1=00000000}) " \
	NEQ("00000000")
#define A_INVALID "ct(1=00000001,2=00000000) " \
	"bitwise(1=00000001,2=00000001,3=00000004,4{1=01000000},5{1=00000000}) " \
	NEQ("00000000")
/* add @box_conns { ip saddr ct count over 2048 }: dynset op add, key in
 * reg 1, its expression connlimit count 0x800 flags 1 (over) */
#define A_CONNCAP A_V4 NH(SADDR, "00000004") \
	"dynset(1=626f785f636f6e6e7300,3=00000000,4=00000001," \
	"7{1=636f6e6e6c696d697400,2{1=00000800,2=00000001}}) "
/* payload load <len> bytes at <off> into <reg>, link / transport header */
#define LL(reg, off, len) "payload(1=" reg ",2=00000000,3=" off ",4=" len ") "
#define TH(reg, off, len) "payload(1=" reg ",2=00000002,3=" off ",4=" len ") "
#define NHR(reg, off, len) "payload(1=" reg ",2=00000001,3=" off ",4=" len ") "
#define R1	"00000001"
#define R2	"00000002"
#define R32_02	"0000000a"
#define R32_06	"0000000e"
/* lookup reg 1 in a set (its name with the NUL), and the inverted one */
#define IN(set)	"lookup(1=" set ",2=00000001) "
#define NOTIN(set) "lookup(1=" set ",2=00000001,5=00000001) "
#define S_MACS		"626f785f6d61637300"
#define S_CHADDRS	"626f785f6368616464727300"
#define S_SELF		"626f785f73656c6600"
#define S_PORTS		"626f785f706f72747300"
#define S_PORTNAMES	"626f785f706f72746e616d657300"
#define S_PINS		"626f785f70696e7300"
#define ETHER_ARP	LL(R1, "0000000c", "00000002") EQ("0806")
/* jump egress: NFT_JUMP (-3) and the chain's name */
#define JUMP_EGRESS "immediate(1=00000000,2{2{1=fffffffd,2=65677265737300}})"

struct ka_rule {
	int family;
	const char *chain, *comment, *canon;
};

/* 10.88.0.0/24: the gateway 0a580001, the net's first three bytes 0a5800 */
#define KA_INET \
	{ NFT_FAM_INET, "input", "box: replies to connections the host opened", \
	  A_IIF A_EST_REL ACCEPT }, \
	{ NFT_FAM_INET, "input", "box: a box's share of conntrack is capped", \
	  A_IIF A_NEW A_CONNCAP DROP }, \
	{ NFT_FAM_INET, "input", "box: DNS to the gateway", \
	  A_IIF TO32("0a580001") DPORT(UDP, "0035") ACCEPT }, \
	{ NFT_FAM_INET, "input", "box: DNS over TCP to the gateway", \
	  A_IIF TO32("0a580001") DPORT(TCP, "0035") ACCEPT }, \
	{ NFT_FAM_INET, "input", "box: DHCP to the gateway", \
	  A_IIF TO32("0a580001") DPORT(UDP, "0043") ACCEPT }, \
	{ NFT_FAM_INET, "input", "box: DHCP broadcast", \
	  A_IIF TO32("ffffffff") DPORT(UDP, "0043") ACCEPT }, \
	{ NFT_FAM_INET, "input", "box: a box never reaches the host", \
	  A_IIF DROP }, \
	{ NFT_FAM_INET, "forward", "box: no IPv6 from a box", \
	  A_IIF META(K_NFPROTO) EQ("0a") DROP }, \
	{ NFT_FAM_INET, "forward", "box: no IPv6 to a box", \
	  A_OIF META(K_NFPROTO) EQ("0a") DROP }, \
	{ NFT_FAM_INET, "forward", "box: a box sends only from its subnet", \
	  A_IIF A_V4 NH(SADDR, "00000003") NEQ("0a5800") DROP }, \
	{ NFT_FAM_INET, "forward", "box: nothing conntrack finds invalid leaves a box", \
	  A_IIF A_INVALID DROP }, \
	{ NFT_FAM_INET, "forward", "box: a box's share of conntrack is capped", \
	  A_IIF A_NEW A_CONNCAP DROP }, \
	{ NFT_FAM_INET, "forward", "box: no routed traffic between boxes", \
	  A_IIF A_OIF DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 0.0.0.0/8 (this network)", \
	  A_IIF TOB("00000001", "00") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 10.0.0.0/8 (private)", \
	  A_IIF TOB("00000001", "0a") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 100.64.0.0/10 (CGNAT)", \
	  A_IIF TOM("ffc00000", "64400000") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 127.0.0.0/8 (loopback)", \
	  A_IIF TOB("00000001", "7f") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 169.254.0.0/16 (link-local)", \
	  A_IIF TOB("00000002", "a9fe") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 172.16.0.0/12 (private)", \
	  A_IIF TOM("fff00000", "ac100000") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 192.0.0.0/24 (IETF protocol)", \
	  A_IIF TOB("00000003", "c00000") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 192.168.0.0/16 (private)", \
	  A_IIF TOB("00000002", "c0a8") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 198.18.0.0/15 (benchmarking)", \
	  A_IIF TOM("fffe0000", "c6120000") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 224.0.0.0/4 (multicast)", \
	  A_IIF TOM("f0000000", "e0000000") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 240.0.0.0/4 (reserved)", \
	  A_IIF TOM("f0000000", "f0000000") DROP }, \
	{ NFT_FAM_INET, "forward", "box: not 168.63.129.16 (Azure's host platform service)", \
	  A_IIF TO32("a83f8110") DROP }, \
	{ NFT_FAM_INET, "forward", "box: each box's egress policy (chain egress)", \
	  A_IIF JUMP_EGRESS }, \
	{ NFT_FAM_INET, "forward", "box: replies into a box", \
	  A_OIF A_EST_REL ACCEPT }, \
	{ NFT_FAM_INET, "forward", "box: nothing else enters a box", \
	  A_OIF DROP }, \
	{ NFT_FAM_INET, "expose-snat", \
	  "box: loopback-sourced expose traffic leaves as the gateway", \
	  A_OIF A_V4 NH(SADDR, "00000001") EQ("7f") "masq()" }

/*
 * bridge box prerouting, the same in both variants: DHCP's giaddr at
 * transport header byte 32 (8 + 24), chaddr at 36, the first option at 248
 * (8 + 236 + the cookie); concatenations laid out as nft does: ifname in
 * reg 1, a MAC in reg 2 (or 32-bit reg 2 after a MAC), an address in 32-bit
 * reg 6.  Checked against nft --debug=netlink of contract.nft's text.
 */
#define KA_PRE \
	{ NFT_FAM_BRIDGE, "prerouting", "box: no DHCP relay address", \
	  DPORT(UDP, "0043") TH(R1, "00000020", "00000004") NEQ("00000000") \
	  DROP }, \
	{ NFT_FAM_BRIDGE, "prerouting", \
	  "box: a pinned MAC as DHCP chaddr only from that MAC", \
	  DPORT(UDP, "0043") TH(R1, "00000024", "00000006") IN(S_CHADDRS) \
	  LL(R1, "00000006", "00000006") TH(R32_02, "00000024", "00000006") \
	  NOTIN(S_SELF) DROP }, \
	{ NFT_FAM_BRIDGE, "prerouting", \
	  "box: a pinned MAC's first DHCP from a port not yet bound", \
	  META(K_IIFNAME) NOTIN(S_PORTNAMES) \
	  META(K_PROTOCOL) EQ("0800") NH(SADDR, "00000004") EQ("00000000") \
	  DPORT(UDP, "0043") LL(R1, "00000006", "00000006") IN(S_MACS) \
	  TH(R1, "000000f8", "00000003") \
	  "bitwise(1=00000001,2=00000001,3=00000003,4{1=fffffd},5{1=000000}) " \
	  EQ("350101") ACCEPT }, \
	{ NFT_FAM_BRIDGE, "prerouting", "box: a pinned MAC only from its own port", \
	  LL(R1, "00000006", "00000006") IN(S_MACS) META(K_IIFNAME) \
	  LL(R2, "00000006", "00000006") NOTIN(S_PORTS) DROP }, \
	/* nft loads udp sport 68 dport 67 as one 4-byte word: 0044 0043 */ \
	{ NFT_FAM_BRIDGE, "prerouting", "box: a bound port's DHCP from 0.0.0.0:68", \
	  META(K_IIFNAME) IN(S_PORTNAMES) \
	  META(K_PROTOCOL) EQ("0800") NH(SADDR, "00000004") EQ("00000000") \
	  META(K_L4PROTO) EQ(UDP) \
	  "payload(1=00000001,2=00000002,3=00000000,4=00000004) " \
	  EQ("00440043") ACCEPT }, \
	{ NFT_FAM_BRIDGE, "prerouting", \
	  "box: a bound port's IPv4 only with its pinned MAC and address, from any source", \
	  META(K_IIFNAME) IN(S_PORTNAMES) META(K_PROTOCOL) EQ("0800") \
	  META(K_IIFNAME) LL(R2, "00000006", "00000006") \
	  NHR(R32_06, "0000000c", "00000004") NOTIN(S_PINS) DROP }, \
	{ NFT_FAM_BRIDGE, "prerouting", \
	  "box: a bound port's ARP only with its pinned MAC and address, for any sender", \
	  META(K_IIFNAME) IN(S_PORTNAMES) ETHER_ARP META(K_IIFNAME) \
	  NHR(R2, "00000008", "00000006") NHR(R32_06, "0000000e", "00000004") \
	  NOTIN(S_PINS) DROP }, \
	{ NFT_FAM_BRIDGE, "prerouting", \
	  "box: a box's IPv4 only with its pinned port, MAC and address", \
	  META(K_PROTOCOL) EQ("0800") NH(SADDR, "00000003") EQ("0a5800") \
	  META(K_IIFNAME) LL(R2, "00000006", "00000006") \
	  NHR(R32_06, "0000000c", "00000004") NOTIN(S_PINS) DROP }, \
	{ NFT_FAM_BRIDGE, "prerouting", \
	  "box: a box's ARP only with its pinned port, MAC and address", \
	  ETHER_ARP NH("0000000e", "00000003") EQ("0a5800") META(K_IIFNAME) \
	  NHR(R2, "00000008", "00000006") NHR(R32_06, "0000000e", "00000004") \
	  NOTIN(S_PINS) DROP }, \
	{ NFT_FAM_BRIDGE, "prerouting", "box: a box ARPs for the gateway only", \
	  ETHER_ARP NH("0000000e", "00000003") EQ("0a5800") \
	  NH("00000018", "00000004") NEQ("0a580001") DROP }

/* the kernel refuses meta ibrname/obrname: by subnet, IPv4 and ARP */
static const struct ka_rule ka_subnet[] = {
	KA_INET,
	{ NFT_FAM_BRIDGE, "forward",
	  "box: no frame from a bound port to another port",
	  META(K_IIFNAME) IN(S_PORTNAMES) DROP },
	{ NFT_FAM_BRIDGE, "forward",
	  "box: no frame to a bound port from another port",
	  META(K_OIFNAME) IN(S_PORTNAMES) DROP },
	{ NFT_FAM_BRIDGE, "forward", "box: no IPv4 from one box to another",
	  META(K_PROTOCOL) EQ("0800") NH(DADDR, "00000003") EQ("0a5800")
	  DROP },
	/* ether type arp (link header bytes 12-13), then the ARP target's
	 * protocol address (bytes 24-26) */
	{ NFT_FAM_BRIDGE, "forward", "box: no ARP from one box to another",
	  "payload(1=00000001,2=00000000,3=0000000c,4=00000002) " EQ("0806")
	  NH("00000018", "00000003") EQ("0a5800") DROP },
	KA_PRE,
};

/* it takes them: every frame between two ports of the bridge */
static const struct ka_rule ka_brname[] = {
	KA_INET,
	{ NFT_FAM_BRIDGE, "forward", "box: no frame from one box to another",
	  META(K_IBRNAME) EQ(BOXNET) META(K_OBRNAME) EQ(BOXNET) DROP },
	KA_PRE,
};

#define NKA(a) (sizeof(a) / sizeof(a[0]))

/* Every rule of both variants, by content, against the written answer. */
TEST(contract_rules_equal_the_known_answer)
{
	struct contract_env env = { .bridge = CONTRACT_BRIDGE, .net = NET };
	struct contract_rule_ref ref;
	const struct ka_rule *ka;
	size_t nka, i;
	int n;

	for (env.brname = 0; env.brname <= 1; env.brname++) {
		ka = env.brname ? ka_brname : ka_subnet;
		nka = env.brname ? NKA(ka_brname) : NKA(ka_subnet);
		n = contract_expect(&env, want, 96);
		CHECK_INT(n, (long long)nka);
		for (i = 0; i < (size_t)n; i++) {
			CHECK_INT(contract_rule_ref(&env, i, &ref), 0);
			if (i >= nka) {
				t_fail(__FILE__, __LINE__, "variant %d: rule "
				    "\"%s\" has no known answer here",
				    env.brname, ref.comment);
				continue;
			}
			CHECK_INT(ref.family, ka[i].family);
			CHECK_STR(ref.chain, ka[i].chain);
			CHECK_STR(ref.comment, ka[i].comment);
			CHECK_STR(want[i].chain, ka[i].chain);
			CHECK_STR(want[i].comment, ka[i].comment);
			CHECK_STR(want[i].canon, ka[i].canon);
		}
	}
}

/* The addresses derived from the bridge's /24 follow it: another subnet. */
TEST(contract_rules_follow_the_subnet)
{
	struct contract_env env = { .bridge = CONTRACT_BRIDGE, .net = 0xc0a80700u };	/* 192.168.7.0 */
	int n = contract_expect(&env, want, 96);

	CHECK(n > 8);
	if (n <= 8)
		return;
	CHECK_STR(want[2].canon, A_IIF TO32("c0a80701") DPORT(UDP, "0035")
	    ACCEPT);
	CHECK_STR(want[9].canon, A_IIF A_V4 NH(SADDR, "00000003")
	    NEQ("c0a807") DROP);
}

/* The Incus side of the contract, key by key, against the written answer. */
TEST(contract_keys_equal_the_known_answer)
{
	static const char *const bridge[][2] = {
		{ "ipv4.address", NULL }, { "ipv4.nat", "true" },
		{ "ipv4.dhcp", "true" }, { "ipv6.address", "none" },
		{ "ipv6.nat", "false" }, { "dns.mode", "none" },
		{ "raw.dnsmasq", NULL }, { "security.acls", "box-isolate" },
		{ "security.acls.default.egress.action", "allow" },
		{ "security.acls.default.ingress.action", "drop" },
	};
	static const char *const nic[][2] = {
		{ "type", "nic" }, { "network", "boxnet" }, { "name", "eth0" },
		{ "security.port_isolation", "true" },
		{ "security.mac_filtering", "true" },
		{ "security.ipv4_filtering", "true" },
		{ "security.ipv6_filtering", "true" },
	};
	static const char *const root[][2] = {
		/* the pool is setup-host's choice (CV_POOL) */
		{ "type", "disk" }, { "pool", NULL }, { "path", "/" },
	};
	static const char *const acl[][2] = {
		{ "allow", NULL }, { "drop", "10.0.0.0/8" },
		{ "drop", "172.16.0.0/12" }, { "drop", "192.168.0.0/16" },
		{ "drop", "169.254.0.0/16" }, { "drop", "100.64.0.0/10" },
	};
	size_t i;

	CHECK_INT(contract_nbridge_keys, NKA(bridge));
	for (i = 0; i < contract_nbridge_keys && i < NKA(bridge); i++) {
		CHECK_STR(contract_bridge_keys[i].key, bridge[i][0]);
		if (bridge[i][1] != NULL)
			CHECK_STR(contract_bridge_keys[i].value, bridge[i][1]);
		else
			CHECK(contract_bridge_keys[i].how != CV_FIXED);
	}
	CHECK_INT(contract_nnic_keys, NKA(nic));
	for (i = 0; i < contract_nnic_keys && i < NKA(nic); i++) {
		CHECK_STR(contract_nic_keys[i].key, nic[i][0]);
		CHECK_STR(contract_nic_keys[i].value, nic[i][1]);
	}
	CHECK_INT(contract_nroot_keys, NKA(root));
	for (i = 0; i < contract_nroot_keys && i < NKA(root); i++) {
		CHECK_STR(contract_root_keys[i].key, root[i][0]);
		if (root[i][1] != NULL)
			CHECK_STR(contract_root_keys[i].value, root[i][1]);
		else
			CHECK(contract_root_keys[i].how == CV_POOL &&
			    contract_root_keys[i].value == NULL);
	}
	CHECK_INT(contract_nacl_egress, NKA(acl));
	for (i = 0; i < contract_nacl_egress && i < NKA(acl); i++) {
		CHECK_STR(contract_acl_egress[i].action, acl[i][0]);
		if (acl[i][1] != NULL)
			CHECK_STR(contract_acl_egress[i].destination, acl[i][1]);
		else
			CHECK(contract_acl_egress[i].destination == NULL);
	}
}
