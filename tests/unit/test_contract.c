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
#include "host/stack/firewall.h"
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

	CHECK_INT(nicf_parse_mac("10:66:6a:d0:42:53", mac), 0);
	CHECK(mac[0] == 0x10 && mac[5] == 0x53);
	CHECK_INT(nicf_parse_mac("10:66:6a:d0:42", other), -EINVAL);
	CHECK_INT(nicf_parse_mac("10:66:6a:d0:42:53:00", other), -EINVAL);
	CHECK_INT(nicf_parse_mac("zz:66:6a:d0:42:53", other), -EINVAL);
	CHECK_INT(nicf_parse_static("10:66:6a:d0:42:53,10.88.0.37\n", 29, mac,
	    &a), 0);
	CHECK_INT(a, 0x0a580025);
	CHECK_INT(nicf_parse_static("10:66:6a:d0:42:53,10.88.0.37,box", 32,
	    mac, &a), 0);
	CHECK_INT(nicf_parse_static("10:66:6a:d0:42:54,10.88.0.37", 28, mac,
	    &a), -ESRCH);
	CHECK_INT(nicf_parse_static("10:66:6a:d0:42:53,10.88.0.999", 29, mac,
	    &a), -EINVAL);
	CHECK_INT(nicf_parse_static("10:66:6a:d0:42:53,10.88.0.3x", 29, mac,
	    &a), -EINVAL);
	CHECK_INT(nicf_parse_static("garbage", 7, mac, &a), -EINVAL);
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
