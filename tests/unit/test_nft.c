/* Unit tests for net/nft: message bytes, refusals, dump decoders. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter/nfnetlink.h>

#include "net/nft.h"
#include "t.h"

/*
 * Known answers: the payloads (everything after the 16-byte netlink
 * header) that nft 1.0.6 sent for the same commands, captured with
 * `nft --debug=mnl` and tests/integration/mnl2hex.py.
 */
/* add table inet box */
static const char kat_table[] =
    "0100000008000100626f78000800020000000000";
/* add chain inet box input { type filter hook input priority -5;
 * policy accept; } */
static const char kat_chain[] =
    "0100000008000100626f78000a000300696e7075740000000b00070066696c7465"
    "720000080005000000000114000480080001000000000108000200fffffffb";
/* add rule inet kat c iifname "boxnet" drop comment "c" */
static const char kat_rule[] =
    "01000000080001006b6174000600020063000000900004802400018009000100"
    "6d65746100000000140002800800020000000006080001000000000138000180"
    "08000100636d70002c0002800800010000000001080002000000000018000380"
    "14000100626f786e657400000000000000000000300001800e000100696d6d65"
    "64696174650000001c0002800800010000000000100002800c00028008000100"
    "000000000800070000026300";
/* add rule inet kat c ip daddr 172.16.0.0/12 tcp dport 53
 * ct state established,related counter accept */
static const char kat_rule2[] =
    "01000000080001006b61740006000200630000007c0204802400018009000100"
    "6d6574610000000014000280080002000000000f08000100000000012c000180"
    "08000100636d700020000280080001000000000108000200000000000c000380"
    "0500010002000000340001800c0001007061796c6f6164002400028008000100"
    "0000000108000200000000010800030000000010080004000000000444000180"
    "0c00010062697477697365003400028008000100000000010800020000000001"
    "08000300000000040c00048008000100fff000000c0005800800010000000000"
    "2c00018008000100636d70002000028008000100000000010800020000000000"
    "0c00038008000100ac10000024000180090001006d6574610000000014000280"
    "080002000000001008000100000000012c00018008000100636d700020000280"
    "080001000000000108000200000000000c000380050001000600000034000180"
    "0c0001007061796c6f6164002400028008000100000000010800020000000002"
    "080003000000000208000400000000022c00018008000100636d700020000280"
    "080001000000000108000200000000000c000380060001000035000020000180"
    "0700010063740000140002800800020000000000080001000000000144000180"
    "0c00010062697477697365003400028008000100000000010800020000000001"
    "08000300000000040c00048008000100060000000c0005800800010000000000"
    "2c00018008000100636d70002000028008000100000000010800020000000001"
    "0c0003800800010000000000140001800c000100636f756e7465720004000280"
    "300001800e000100696d6d6564696174650000001c0002800800010000000000"
    "100002800c0002800800010000000001";

static size_t
unhex(const char *h, unsigned char *out, size_t cap)
{
	size_t n = 0;
	unsigned v;

	while (h[0] != '\0' && h[1] != '\0' && n < cap) {
		if (sscanf(h, "%2x", &v) != 1)
			break;
		out[n++] = (unsigned char)v;
		h += 2;
	}
	return n;
}

/* Message k (0 = begin marker) of a built batch. */
static const unsigned char *
batch_msg(const struct nft_batch *bt, unsigned k, struct nlmsghdr *h)
{
	size_t off = 0;

	for (;;) {
		if (off + sizeof(*h) > bt->b.len)
			return NULL;
		memcpy(h, bt->b.p + off, sizeof(*h));
		if (k-- == 0)
			return bt->b.p + off;
		off += NL_ALIGN(h->nlmsg_len);
	}
}

static void
check_payload(const struct nft_batch *bt, unsigned k, uint16_t type,
    uint16_t flags, const char *hex)
{
	static unsigned char want[2048];
	const unsigned char *m;
	struct nlmsghdr h;
	size_t n = unhex(hex, want, sizeof(want));

	m = batch_msg(bt, k, &h);
	CHECK(m != NULL);
	if (m == NULL)
		return;
	CHECK_INT(h.nlmsg_type, type);
	CHECK_INT(h.nlmsg_flags, flags);
	CHECK_INT(h.nlmsg_seq, bt->seq0 + k);
	CHECK_MEM(m + NL_HDRLEN, h.nlmsg_len - NL_HDRLEN, want, n);
}

#define T(m) ((uint16_t)(NFNL_SUBSYS_NFTABLES << 8 | (m)))
#define ACKREQ (NLM_F_REQUEST | NLM_F_ACK)

TEST(nft_kat_table_and_chain)
{
	static struct nft_batch bt;
	unsigned char buf[1024];
	struct nft_chain_spec c = { "input", "filter", NFT_HOOK_INPUT, -5,
	    NFT_V_ACCEPT };

	nft_batch_init(&bt, buf, sizeof(buf), 100);
	CHECK_INT(nft_table_add(&bt, NFT_FAM_INET, "box", 0), 0);
	CHECK_INT(nft_chain_add(&bt, NFT_FAM_INET, "box", &c), 0);
	CHECK_INT(nft_batch_end(&bt), 0);
	check_payload(&bt, 1, T(NFT_MSG_NEWTABLE), ACKREQ | NLM_F_CREATE,
	    kat_table);
	check_payload(&bt, 2, T(NFT_MSG_NEWCHAIN), ACKREQ | NLM_F_CREATE,
	    kat_chain);
	CHECK_INT(bt.nmsg, 2);
	CHECK_INT(bt.seq, 103);		/* the end marker's */
}

TEST(nft_kat_rules)
{
	static struct nft_batch bt;
	unsigned char buf[4096];
	unsigned char net[4] = { 172, 16, 0, 0 };

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "kat", "c", "c");
	nft_match_ifname(&bt, NFT_META_IIFNAME, "boxnet");
	nft_verdict(&bt, NFT_V_DROP, NULL);
	nft_rule_end(&bt);
	nft_rule_begin(&bt, NFT_FAM_INET, "kat", "c", NULL);
	nft_match_addr(&bt, 1, net, 4, 12);
	nft_match_port(&bt, 6, 1, 53);
	nft_match_ct_state(&bt, NFT_CTSTATE_ESTABLISHED | NFT_CTSTATE_RELATED);
	nft_expr_counter(&bt);
	nft_verdict(&bt, NFT_V_ACCEPT, NULL);
	nft_rule_end(&bt);
	CHECK_INT(nft_batch_end(&bt), 0);
	check_payload(&bt, 1, T(NFT_MSG_NEWRULE),
	    ACKREQ | NLM_F_CREATE | NLM_F_APPEND, kat_rule);
	check_payload(&bt, 2, T(NFT_MSG_NEWRULE),
	    ACKREQ | NLM_F_CREATE | NLM_F_APPEND, kat_rule2);
}

/* A small firewall, used for the overflow sweep. */
static void
build_small_fw(struct nft_batch *bt)
{
	static const struct nft_chain_spec in = { "input", "filter",
	    NFT_HOOK_INPUT, -5, NFT_V_ACCEPT };
	unsigned char lo[4] = { 127, 0, 0, 0 };

	nft_table_add(bt, NFT_FAM_INET, "box", 0);
	nft_chain_add(bt, NFT_FAM_INET, "box", &in);
	nft_chain_flush(bt, NFT_FAM_INET, "box", "input");
	nft_rule_begin(bt, NFT_FAM_INET, "box", "input", "established");
	nft_match_ifname(bt, NFT_META_IIFNAME, "boxnet");
	nft_match_ct_state(bt, NFT_CTSTATE_ESTABLISHED | NFT_CTSTATE_RELATED);
	nft_verdict(bt, NFT_V_ACCEPT, NULL);
	nft_rule_end(bt);
	nft_rule_begin(bt, NFT_FAM_INET, "box", "input", "lo");
	nft_match_addr(bt, 0, lo, 4, 8);
	nft_expr_masq(bt);
	nft_rule_end(bt);
}

TEST(nft_overflow_sweep_never_writes_past_cap)
{
	static unsigned char buf[2048];
	static struct nft_batch bt;
	size_t full, cap, i;

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	build_small_fw(&bt);
	CHECK_INT(nft_batch_end(&bt), 0);
	full = bt.b.len;
	CHECK(full > 200 && full < 1024);
	for (cap = 0; cap < full; cap++) {
		memset(buf, 0xee, sizeof(buf));
		nft_batch_init(&bt, buf, cap, 1);
		build_small_fw(&bt);
		CHECK_INT(nft_batch_end(&bt), -ENOSPC);
		for (i = cap; i < sizeof(buf) && buf[i] == 0xee; i++)
			;
		CHECK_INT(i, sizeof(buf));
	}
	nft_batch_init(&bt, buf, full, 1);
	build_small_fw(&bt);
	CHECK_INT(nft_batch_end(&bt), 0);
}

TEST(nft_refusals)
{
	static struct nft_batch bt;
	unsigned char buf[4096];
	char longname[NFT_NAMELEN + 1], longc[NFT_COMMENT_MAX + 1];
	struct nft_chain_spec bad = { "c", "filter", 9, 0, NFT_V_ACCEPT };

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memset(longc, 'c', sizeof(longc) - 1);
	longc[sizeof(longc) - 1] = '\0';

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(nft_table_add(&bt, NFT_FAM_INET, longname, 0),
	    -ENAMETOOLONG);
	CHECK_INT(nft_table_add(&bt, NFT_FAM_INET, "ok", 0), -ENAMETOOLONG);

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(nft_rule_begin(&bt, NFT_FAM_INET, "t", "c", longc),
	    -ENAMETOOLONG);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(nft_expr_counter(&bt), -EINVAL);	/* outside a rule */
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "t", "c", NULL);
	CHECK_INT(nft_table_add(&bt, NFT_FAM_INET, "t", 0), -EINVAL);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "t", "c", NULL);
	CHECK_INT(nft_match_ifname(&bt, NFT_META_IIFNAME,
	    "sixteen-chars-xx"), -ENAMETOOLONG);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "t", "c", NULL);
	CHECK_INT(nft_verdict(&bt, NFT_V_JUMP, NULL), -EINVAL);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "t", "c", NULL);
	CHECK_INT(nft_verdict(&bt, 42, NULL), -EINVAL);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_IPV4, "t", "c", NULL);
	CHECK_INT(nft_match_addr(&bt, 0, longc, 16, 64), -EINVAL);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(nft_chain_add(&bt, NFT_FAM_INET, "t", &bad), -EINVAL);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "t", "c", NULL);
	CHECK_INT(nft_batch_end(&bt), -EINVAL);		/* rule still open */
}

TEST(nft_batch_message_limit)
{
	static unsigned char buf[65536];
	static struct nft_batch bt;
	unsigned i;

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	for (i = 0; i < NFT_BATCH_MAXMSG; i++)
		CHECK_INT(nft_table_flush(&bt, NFT_FAM_INET, "t"), 0);
	CHECK_INT(nft_table_flush(&bt, NFT_FAM_INET, "t"), -ENOSPC);
}

TEST(nft_batch_descriptions)
{
	static struct nft_batch bt;
	unsigned char buf[4096];
	struct nft_chain_spec c = { "input", "filter", NFT_HOOK_INPUT, -5,
	    -1 };

	nft_batch_init(&bt, buf, sizeof(buf), 50);
	nft_table_add(&bt, NFT_FAM_INET, "box", 0);
	nft_chain_reset(&bt, NFT_FAM_INET, "box", &c);
	nft_rule_begin(&bt, NFT_FAM_BRIDGE, "box", "forward", "sib");
	nft_verdict(&bt, NFT_V_DROP, NULL);
	nft_rule_end(&bt);
	nft_batch_end(&bt);
	CHECK_INT(bt.nmsg, 6);
	CHECK_STR(nft_batch_desc(&bt, 50), "batch");
	CHECK_STR(nft_batch_desc(&bt, 51), "add table inet box");
	CHECK_STR(nft_batch_desc(&bt, 52), "add chain inet box/input");
	CHECK_STR(nft_batch_desc(&bt, 53), "flush chain inet box/input");
	CHECK_STR(nft_batch_desc(&bt, 54), "delete chain inet box/input");
	CHECK_STR(nft_batch_desc(&bt, 55), "add chain inet box/input");
	CHECK_STR(nft_batch_desc(&bt, 56),
	    "add rule bridge box/forward \"sib\"");
	CHECK_STR(nft_batch_desc(&bt, 57), "batch");
	CHECK_STR(nft_batch_desc(&bt, 58), "?");
}

TEST(nft_chain_reset_first_add_is_plain)
{
	static struct nft_batch bt;
	unsigned char buf[4096];
	struct nft_chain_spec c = { "input", "filter", NFT_HOOK_INPUT, -5,
	    NFT_V_DROP };
	struct nlmsghdr h;

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_chain_reset(&bt, NFT_FAM_INET, "box", &c);
	CHECK_INT(nft_batch_end(&bt), 0);
	/* plain add: nfgenmsg + table + name only */
	CHECK(batch_msg(&bt, 1, &h) != NULL);
	CHECK_INT(h.nlmsg_len, 16 + 4 + 8 + 12);
	CHECK(batch_msg(&bt, 4, &h) != NULL);
	CHECK_INT(h.nlmsg_type, T(NFT_MSG_NEWCHAIN));
	CHECK(h.nlmsg_len > 16 + 4 + 8 + 12);
}

TEST(nft_addr_prefixes)
{
	static struct nft_batch bt;
	unsigned char buf[4096], a[4] = { 10, 1, 2, 3 };
	unsigned char v6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 1 };

	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_IPV4, "t", "c", NULL);
	CHECK_INT(nft_match_addr(&bt, 0, a, 4, 32), 0);
	CHECK_INT(nft_match_addr(&bt, 0, a, 4, 24), 0);
	CHECK_INT(nft_match_addr(&bt, 1, a, 4, 7), 0);
	CHECK_INT(nft_match_addr(&bt, 1, a, 4, 0), -EINVAL);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "t", "c", NULL);
	CHECK_INT(nft_match_addr(&bt, 0, v6, 16, 64), 0);
	CHECK_INT(nft_match_addr(&bt, 0, v6, 16, 129), -EINVAL);
}

/* ---------------------------------------------------------- decoders */

/* Build a kernel-style dump message into buf; returns it as nl_msg. */
static void
as_msg(struct nl_buf *b, struct nl_msg *m)
{
	memcpy(&m->hdr, b->p, sizeof(m->hdr));
	m->data = b->p + NL_HDRLEN;
	m->len = b->len - NL_HDRLEN;
}

TEST(nft_parse_chain_msg)
{
	unsigned char buf[512];
	struct nft_chain_info ci;
	struct nl_buf b;
	struct nl_msg m;
	size_t h;

	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWCHAIN,
	    NFT_FAM_INET, NLM_F_MULTI, 1);
	nl_put_str(&b, NFTA_CHAIN_TABLE, "box");
	nl_put_str(&b, NFTA_CHAIN_NAME, "input");
	nl_put_be64(&b, NFTA_CHAIN_HANDLE, 7);
	h = nl_nest_begin(&b, NFTA_CHAIN_HOOK);
	nl_put_be32(&b, NFTA_HOOK_HOOKNUM, 1);
	nl_put_be32(&b, NFTA_HOOK_PRIORITY, (uint32_t)-5);
	nl_nest_end(&b, h);
	nl_put_be32(&b, NFTA_CHAIN_POLICY, 0);
	nl_put_str(&b, NFTA_CHAIN_TYPE, "filter");
	as_msg(&b, &m);
	CHECK_INT(nft_parse_chain(&m, "box", &ci), 1);
	CHECK_STR(ci.name, "input");
	CHECK_STR(ci.type, "filter");
	CHECK_INT(ci.base, 1);
	CHECK_INT(ci.hook, 1);
	CHECK_INT(ci.prio, -5);
	CHECK_INT(ci.policy, NFT_V_DROP);
	CHECK_INT(ci.handle, 7);
	CHECK_INT(nft_parse_chain(&m, "other", &ci), 0);
	/* a rule message is not a chain */
	CHECK_INT(nft_parse_rule(&m, "box", NULL), 0);
	/* missing table attribute: malformed */
	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWCHAIN,
	    NFT_FAM_INET, 0, 1);
	nl_put_str(&b, NFTA_CHAIN_NAME, "input");
	as_msg(&b, &m);
	CHECK_INT(nft_parse_chain(&m, "box", &ci), -EBOX_PROTO);
	/* a hook nest with a short priority */
	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWCHAIN,
	    NFT_FAM_INET, 0, 1);
	nl_put_str(&b, NFTA_CHAIN_TABLE, "box");
	nl_put_str(&b, NFTA_CHAIN_NAME, "input");
	h = nl_nest_begin(&b, NFTA_CHAIN_HOOK);
	nl_put_be32(&b, NFTA_HOOK_HOOKNUM, 1);
	nl_put_be16(&b, NFTA_HOOK_PRIORITY, 5);
	nl_nest_end(&b, h);
	as_msg(&b, &m);
	CHECK_INT(nft_parse_chain(&m, "box", &ci), -EBOX_PROTO);
}

TEST(nft_parse_rule_msg)
{
	static struct nft_batch bt;
	unsigned char buf[2048];
	struct nft_rule_info ri;
	struct nlmsghdr h;
	struct nl_msg m;
	const unsigned char *p;

	/* Our own NEWRULE has the shape of a dumped one, minus the handle. */
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	nft_rule_begin(&bt, NFT_FAM_INET, "box", "input", "box: dns udp");
	nft_match_ifname(&bt, NFT_META_IIFNAME, "boxnet");
	nft_match_port(&bt, 17, 1, 53);
	nft_verdict(&bt, NFT_V_ACCEPT, NULL);
	nft_rule_end(&bt);
	CHECK_INT(nft_batch_err(&bt), 0);
	p = batch_msg(&bt, 1, &h);
	CHECK(p != NULL);
	if (p == NULL)
		return;
	m.hdr = h;
	m.data = p + NL_HDRLEN;
	m.len = h.nlmsg_len - NL_HDRLEN;
	CHECK_INT(nft_parse_rule(&m, "box", &ri), 1);
	CHECK_STR(ri.chain, "input");
	CHECK_STR(ri.comment, "box: dns udp");
	CHECK_STR(ri.exprs, "meta,cmp,meta,cmp,payload,cmp,immediate");
	CHECK_INT(ri.nexprs, 7);
	CHECK_INT(nft_parse_rule(&m, "xbox", &ri), 0);
}

TEST(nft_parse_rule_bad_udata)
{
	static const unsigned char ud[] = { 0, 9, 'a', 'b' };	/* len past */
	unsigned char buf[512];
	struct nft_rule_info ri;
	struct nl_buf b;
	struct nl_msg m;

	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE,
	    NFT_FAM_INET, 0, 1);
	nl_put_str(&b, NFTA_RULE_TABLE, "box");
	nl_put_str(&b, NFTA_RULE_CHAIN, "input");
	nl_put(&b, NFTA_RULE_USERDATA, ud, sizeof(ud));
	as_msg(&b, &m);
	CHECK_INT(nft_parse_rule(&m, "box", &ri), -EBOX_PROTO);
}

TEST(nft_parse_table_msg)
{
	unsigned char buf[256];
	struct nl_buf b;
	struct nl_msg m;
	uint32_t flags;
	uint64_t handle;

	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWTABLE,
	    NFT_FAM_BRIDGE, 0, 1);
	nl_put_str(&b, NFTA_TABLE_NAME, "box");
	nl_put_be32(&b, NFTA_TABLE_FLAGS, 1);
	nl_put_be64(&b, NFTA_TABLE_HANDLE, 3);
	as_msg(&b, &m);
	CHECK_INT(nft_parse_table(&m, "box", &flags, &handle), 1);
	CHECK_INT(flags, 1);
	CHECK_INT(handle, 3);
	CHECK_INT(nft_parse_table(&m, "boxx", &flags, &handle), 0);
}
