/*
 * nft.c - nf_tables batches, expressions, listing and probing (see nft.h).
 */
#include "net/nft.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/netfilter/nfnetlink.h>

#define IFNAMSIZ_	16	/* IFNAMSIZ, without <net/if.h> */
#define ETH_P_IP_	0x0800
#define ETH_P_IPV6_	0x86dd
#define UDATA_COMMENT	0	/* NFTNL_UDATA_RULE_COMMENT, _SET_ELEM_COMMENT */
#define UDATA_SET_COMMENT 7	/* NFTNL_UDATA_SET_COMMENT */

static const char *
fam_name(int family)
{
	switch (family) {
	case NFT_FAM_INET:
		return "inet";
	case NFT_FAM_IPV4:
		return "ip";
	case NFT_FAM_IPV6:
		return "ip6";
	case NFT_FAM_BRIDGE:
		return "bridge";
	case NFT_FAM_NETDEV:
		return "netdev";
	case NFT_FAM_ARP:
		return "arp";
	}
	return "?";
}

static int
bt_fail(struct nft_batch *bt, int code)
{
	if (bt->b.err == 0)
		bt->b.err = code;
	return bt->b.err;
}

/* Refuse names the kernel would refuse, and ours beyond NFT_NAMELEN. */
static int
name_ok(struct nft_batch *bt, const char *s)
{
	if (s == NULL || s[0] == '\0')
		return bt_fail(bt, -EINVAL);
	if (strnlen(s, NFT_NAMELEN) >= NFT_NAMELEN)
		return bt_fail(bt, -ENAMETOOLONG);
	return bt->b.err;
}

void
nft_batch_init(struct nft_batch *bt, void *buf, size_t cap, uint32_t seq)
{
	bt->seq0 = seq;
	bt->seq = seq + 1;
	bt->ended = 0;
	bt->rule_family = 0;
	bt->rule_exprs = 0;
	bt->rule_deps = 0;
	bt->rule_l4 = -1;
	bt->nmsg = 0;
	bt->nrules = 0;
	nl_buf_init(&bt->b, buf, cap);
	nl_batch_begin(&bt->b, seq);
}

int
nft_batch_err(const struct nft_batch *bt)
{
	return bt->b.err;
}

const char *
nft_batch_desc(const struct nft_batch *bt, uint32_t seq)
{
	if (seq == bt->seq0 || (bt->ended && seq == bt->seq))
		return "batch";
	if (seq <= bt->seq0 || seq - bt->seq0 - 1 >= bt->nmsg)
		return "?";
	return bt->desc[seq - bt->seq0 - 1];
}

/* Open the next message of the batch, with its description. */
static int
msg_begin(struct nft_batch *bt, uint8_t msg, int family, uint16_t flags,
    const char *desc)
{
	if (bt->b.err != 0)
		return bt->b.err;
	if (bt->ended || bt->rule_family != 0 || family <= 0 || family > 255)
		return bt_fail(bt, -EINVAL);
	if (bt->nmsg >= NFT_BATCH_MAXMSG)
		return bt_fail(bt, -ENOSPC);
	snprintf(bt->desc[bt->nmsg], NFT_DESC_LEN, "%s", desc);
	if (nl_nfmsg_begin(&bt->b, NFNL_SUBSYS_NFTABLES, msg, (uint8_t)family,
	    flags | NLM_F_ACK, bt->seq) != 0)
		return bt->b.err;
	bt->nmsg++;
	bt->seq++;
	return 0;
}

int
nft_batch_end(struct nft_batch *bt)
{
	if (bt->ended)
		return bt->b.err;
	if (bt->rule_family != 0)
		return bt_fail(bt, -EINVAL);
	if (nl_batch_end(&bt->b, bt->seq) == 0)
		bt->ended = 1;
	return bt->b.err;
}

int
nft_batch_send(struct nl_sock *s, struct nft_batch *bt, struct nl_error *ne,
    struct box_err *e)
{
	char why[NL_ERRMSG_MAX + 64];
	struct nl_error ke;
	unsigned nerr = 0;
	int r;

	memset(&ke, 0, sizeof(ke));
	if (ne != NULL)
		memset(ne, 0, sizeof(*ne));
	if ((r = nft_batch_end(bt)) != 0)
		return err_set(e, r, "nf_tables: building the batch: %s",
		    err_str(r));
	r = nl_batch_talk(s, bt->b.p, bt->b.len, bt->seq0, bt->seq, &ke,
	    &nerr, e);
	if (s->seq <= bt->seq)
		s->seq = bt->seq + 1;
	if (r == 0 || ke.code == 0)
		return r;
	if (ne != NULL)
		*ne = ke;
	nl_error_str(&ke, why, sizeof(why));
	if (ke.seq == bt->seq0)
		return err_set(e, ke.code, "nf_tables: the kernel refused the "
		    "batch: %s", why);
	return err_set(e, ke.code, "nf_tables: message %u of %u (%s) "
	    "refused: %s", ke.seq - bt->seq0, bt->nmsg,
	    nft_batch_desc(bt, ke.seq), why);
}

/* ------------------------------------------------------ tables and chains */

static int
table_msg(struct nft_batch *bt, uint8_t msg, int family, const char *name,
    uint16_t flags, const char *verb)
{
	char d[NFT_DESC_LEN];

	if (name_ok(bt, name) != 0)
		return bt->b.err;
	snprintf(d, sizeof(d), "%s table %s %s", verb, fam_name(family), name);
	if (msg_begin(bt, msg, family, flags, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_TABLE_NAME, name);
	return bt->b.err;
}

int
nft_table_add(struct nft_batch *bt, int family, const char *name,
    uint32_t flags)
{
	if (table_msg(bt, NFT_MSG_NEWTABLE, family, name, NLM_F_CREATE,
	    "add") != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_TABLE_FLAGS, flags);
	return nl_msg_end(&bt->b);
}

int
nft_table_del(struct nft_batch *bt, int family, const char *name)
{
	if (table_msg(bt, NFT_MSG_DELTABLE, family, name, 0, "delete") != 0)
		return bt->b.err;
	return nl_msg_end(&bt->b);
}

int
nft_table_destroy(struct nft_batch *bt, int family, const char *name)
{
	if (nft_table_add(bt, family, name, 0) != 0)
		return bt->b.err;
	return nft_table_del(bt, family, name);
}

int
nft_table_flush(struct nft_batch *bt, int family, const char *name)
{
	char d[NFT_DESC_LEN];

	if (name_ok(bt, name) != 0)
		return bt->b.err;
	snprintf(d, sizeof(d), "flush table %s %s", fam_name(family), name);
	if (msg_begin(bt, NFT_MSG_DELRULE, family, 0, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_RULE_TABLE, name);
	return nl_msg_end(&bt->b);
}

static int
chain_msg(struct nft_batch *bt, uint8_t msg, int family, const char *table,
    const char *name, uint16_t flags, const char *verb)
{
	char d[NFT_DESC_LEN];

	if (name_ok(bt, table) != 0 || name_ok(bt, name) != 0)
		return bt->b.err;
	snprintf(d, sizeof(d), "%s chain %s %s/%s", verb, fam_name(family),
	    table, name);
	if (msg_begin(bt, msg, family, flags, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_CHAIN_TABLE, table);
	nl_put_str(&bt->b, NFTA_CHAIN_NAME, name);
	return bt->b.err;
}

static int
chain_add(struct nft_batch *bt, int family, const char *table,
    const struct nft_chain_spec *c, int plain)
{
	size_t hook;

	if (c == NULL)
		return bt_fail(bt, -EINVAL);
	if (chain_msg(bt, NFT_MSG_NEWCHAIN, family, table, c->name,
	    NLM_F_CREATE, "add") != 0)
		return bt->b.err;
	/* Attribute order as nft(8) writes it, so our bytes equal its. */
	if (!plain && c->type != NULL) {
		if (c->hook < 0 || c->hook > NFT_HOOK_POSTROUTING ||
		    strlen(c->type) >= 16)
			return bt_fail(bt, -EINVAL);
		nl_put_str(&bt->b, NFTA_CHAIN_TYPE, c->type);
		if (c->policy >= 0)
			nl_put_be32(&bt->b, NFTA_CHAIN_POLICY,
			    (uint32_t)c->policy);
		hook = nl_nest_begin(&bt->b, NFTA_CHAIN_HOOK);
		nl_put_be32(&bt->b, NFTA_HOOK_HOOKNUM, (uint32_t)c->hook);
		nl_put_be32(&bt->b, NFTA_HOOK_PRIORITY, (uint32_t)c->prio);
		nl_nest_end(&bt->b, hook);
	}
	return nl_msg_end(&bt->b);
}

int
nft_chain_add(struct nft_batch *bt, int family, const char *table,
    const struct nft_chain_spec *c)
{
	return chain_add(bt, family, table, c, 0);
}

int
nft_chain_del(struct nft_batch *bt, int family, const char *table,
    const char *name)
{
	if (chain_msg(bt, NFT_MSG_DELCHAIN, family, table, name, 0,
	    "delete") != 0)
		return bt->b.err;
	return nl_msg_end(&bt->b);
}

int
nft_chain_flush(struct nft_batch *bt, int family, const char *table,
    const char *name)
{
	char d[NFT_DESC_LEN];

	if (name_ok(bt, table) != 0 || name_ok(bt, name) != 0)
		return bt->b.err;
	snprintf(d, sizeof(d), "flush chain %s %s/%s", fam_name(family),
	    table, name);
	if (msg_begin(bt, NFT_MSG_DELRULE, family, 0, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_RULE_TABLE, table);
	nl_put_str(&bt->b, NFTA_RULE_CHAIN, name);
	return nl_msg_end(&bt->b);
}

int
nft_chain_reset(struct nft_batch *bt, int family, const char *table,
    const struct nft_chain_spec *c)
{
	if (c == NULL)
		return bt_fail(bt, -EINVAL);
	chain_add(bt, family, table, c, 1);
	nft_chain_flush(bt, family, table, c->name);
	nft_chain_del(bt, family, table, c->name);
	return chain_add(bt, family, table, c, 0);
}

/* ----------------------------------------------------------------- rules */

int
nft_rule_begin(struct nft_batch *bt, int family, const char *table,
    const char *chain, const char *comment)
{
	char d[NFT_DESC_LEN];
	size_t n;

	if (name_ok(bt, table) != 0 || name_ok(bt, chain) != 0)
		return bt->b.err;
	if (family <= 0 || family > 255)
		return bt_fail(bt, -EINVAL);
	n = comment != NULL ? strnlen(comment, NFT_COMMENT_MAX) : 0;
	if (n >= NFT_COMMENT_MAX)
		return bt_fail(bt, -ENAMETOOLONG);
	snprintf(d, sizeof(d), "add rule %s %s/%s \"%s\"", fam_name(family),
	    table, chain, comment != NULL ? comment : "");
	if (msg_begin(bt, NFT_MSG_NEWRULE, family, NLM_F_CREATE | NLM_F_APPEND,
	    d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_RULE_TABLE, table);
	nl_put_str(&bt->b, NFTA_RULE_CHAIN, chain);
	bt->rule_comment[0] = '\0';
	if (comment != NULL)
		memcpy(bt->rule_comment, comment, n + 1);
	bt->rule_has_comment = comment != NULL;
	bt->rule_exprs = nl_nest_begin(&bt->b, NFTA_RULE_EXPRESSIONS);
	if (bt->b.err != 0)
		return bt->b.err;
	bt->rule_family = family;
	bt->rule_deps = 0;
	bt->rule_l4 = -1;
	bt->nrules++;
	return 0;
}

int
nft_rule_end(struct nft_batch *bt)
{
	unsigned char ud[2 + NFT_COMMENT_MAX];
	size_t n;

	if (bt->b.err != 0)
		return bt->b.err;
	if (bt->rule_family == 0)
		return bt_fail(bt, -EINVAL);
	nl_nest_end(&bt->b, bt->rule_exprs);
	if (bt->rule_has_comment) {
		/* libnftnl's udata TLV: type, length (NUL included), bytes. */
		n = strlen(bt->rule_comment);
		ud[0] = UDATA_COMMENT;
		ud[1] = (unsigned char)(n + 1);
		memcpy(ud + 2, bt->rule_comment, n + 1);
		nl_put(&bt->b, NFTA_RULE_USERDATA, ud, n + 3);
	}
	bt->rule_family = 0;
	bt->rule_exprs = 0;
	return nl_msg_end(&bt->b);
}

/* An expression: list element { name, data { ... } }. */
struct expr {
	size_t elem, data;
};

static int
expr_begin(struct nft_batch *bt, struct expr *x, const char *name,
    int has_data)
{
	x->elem = x->data = 0;
	if (bt->b.err != 0)
		return bt->b.err;
	if (bt->rule_family == 0)
		return bt_fail(bt, -EINVAL);
	x->elem = nl_nest_begin(&bt->b, NFTA_LIST_ELEM);
	nl_put_str(&bt->b, NFTA_EXPR_NAME, name);
	if (has_data)
		x->data = nl_nest_begin(&bt->b, NFTA_EXPR_DATA);
	return bt->b.err;
}

static int
expr_end(struct nft_batch *bt, struct expr *x)
{
	if (x->data != 0)
		nl_nest_end(&bt->b, x->data);
	return nl_nest_end(&bt->b, x->elem);
}

/* A data nest { NFTA_DATA_VALUE bytes }. */
static void
put_data(struct nft_batch *bt, uint16_t type, const void *p, size_t n)
{
	size_t d;

	d = nl_nest_begin(&bt->b, type);
	nl_put(&bt->b, NFTA_DATA_VALUE, p, n);
	nl_nest_end(&bt->b, d);
}

/* Register data is at most 64 bytes (the four 16-byte registers). */
static int
data_ok(struct nft_batch *bt, const void *p, size_t n)
{
	if (p == NULL || n == 0 || n > 64)
		return bt_fail(bt, -EINVAL);
	return bt->b.err;
}

int
nft_expr_meta(struct nft_batch *bt, uint32_t key, uint32_t dreg)
{
	struct expr x;

	if (expr_begin(bt, &x, "meta", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_META_KEY, key);
	nl_put_be32(&bt->b, NFTA_META_DREG, dreg);
	return expr_end(bt, &x);
}

int
nft_expr_cmp(struct nft_batch *bt, uint32_t sreg, uint32_t op,
    const void *data, size_t n)
{
	struct expr x;

	if (data_ok(bt, data, n) != 0 || expr_begin(bt, &x, "cmp", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_CMP_SREG, sreg);
	nl_put_be32(&bt->b, NFTA_CMP_OP, op);
	put_data(bt, NFTA_CMP_DATA, data, n);
	return expr_end(bt, &x);
}

int
nft_expr_payload(struct nft_batch *bt, uint32_t base, uint32_t off,
    uint32_t len, uint32_t dreg)
{
	struct expr x;

	if (len == 0 || len > 64)
		return bt_fail(bt, -EINVAL);
	if (expr_begin(bt, &x, "payload", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_PAYLOAD_DREG, dreg);
	nl_put_be32(&bt->b, NFTA_PAYLOAD_BASE, base);
	nl_put_be32(&bt->b, NFTA_PAYLOAD_OFFSET, off);
	nl_put_be32(&bt->b, NFTA_PAYLOAD_LEN, len);
	return expr_end(bt, &x);
}

int
nft_expr_bitwise(struct nft_batch *bt, uint32_t sreg, uint32_t dreg,
    const void *mask, const void *xor, size_t n)
{
	struct expr x;

	if (data_ok(bt, mask, n) != 0 || data_ok(bt, xor, n) != 0 ||
	    expr_begin(bt, &x, "bitwise", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_BITWISE_SREG, sreg);
	nl_put_be32(&bt->b, NFTA_BITWISE_DREG, dreg);
	nl_put_be32(&bt->b, NFTA_BITWISE_LEN, (uint32_t)n);
	put_data(bt, NFTA_BITWISE_MASK, mask, n);
	put_data(bt, NFTA_BITWISE_XOR, xor, n);
	return expr_end(bt, &x);
}

int
nft_expr_ct(struct nft_batch *bt, uint32_t key, uint32_t dreg)
{
	struct expr x;

	if (expr_begin(bt, &x, "ct", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_CT_KEY, key);
	nl_put_be32(&bt->b, NFTA_CT_DREG, dreg);
	return expr_end(bt, &x);
}

static int
nft_expr_immediate(struct nft_batch *bt, uint32_t dreg, const void *data,
    size_t n)
{
	struct expr x;

	if (data_ok(bt, data, n) != 0 ||
	    expr_begin(bt, &x, "immediate", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_IMMEDIATE_DREG, dreg);
	put_data(bt, NFTA_IMMEDIATE_DATA, data, n);
	return expr_end(bt, &x);
}

int
nft_expr_counter(struct nft_batch *bt)
{
	struct expr x;

	if (expr_begin(bt, &x, "counter", 1) != 0)
		return bt->b.err;
	return expr_end(bt, &x);
}

int
nft_expr_masq(struct nft_batch *bt)
{
	struct expr x;

	if (expr_begin(bt, &x, "masq", 1) != 0)
		return bt->b.err;
	return expr_end(bt, &x);
}

int
nft_expr_reject(struct nft_batch *bt, uint32_t type, int code)
{
	struct expr x;

	if (type > NFT_REJECT_ICMPX_UNREACH || (code < 0) !=
	    (type == NFT_REJECT_TCP_RST) || code > 255)
		return bt_fail(bt, -EINVAL);
	if (expr_begin(bt, &x, "reject", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_REJECT_TYPE, type);
	/* The kernel dumps a code only for the ICMP types: a reset sends
	 * none, so the rule reads back as it was sent. */
	if (code >= 0)
		nl_put_u8(&bt->b, NFTA_REJECT_ICMP_CODE, (uint8_t)code);
	return expr_end(bt, &x);
}

static int
nft_expr_nat(struct nft_batch *bt, uint32_t type, int family,
    uint32_t reg_addr, uint32_t reg_proto)
{
	struct expr x;

	if (type != NFT_NAT_SNAT && type != NFT_NAT_DNAT)
		return bt_fail(bt, -EINVAL);
	if (expr_begin(bt, &x, "nat", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_NAT_TYPE, type);
	nl_put_be32(&bt->b, NFTA_NAT_FAMILY, (uint32_t)family);
	nl_put_be32(&bt->b, NFTA_NAT_REG_ADDR_MIN, reg_addr);
	if (reg_proto != 0) {
		nl_put_be32(&bt->b, NFTA_NAT_REG_PROTO_MIN, reg_proto);
		/* NF_NAT_RANGE_PROTO_SPECIFIED, as nft sends it. */
		nl_put_be32(&bt->b, NFTA_NAT_FLAGS, 2);
	}
	return expr_end(bt, &x);
}

int
nft_verdict(struct nft_batch *bt, int code, const char *chain)
{
	struct expr x;
	size_t d, v;
	int jump = code == NFT_V_JUMP || code == NFT_V_GOTO;

	switch (code) {
	case NFT_V_ACCEPT:
	case NFT_V_DROP:
	case NFT_V_RETURN:
	case NFT_V_CONTINUE:
	case NFT_V_JUMP:
	case NFT_V_GOTO:
		break;
	default:
		return bt_fail(bt, -EINVAL);
	}
	if (jump && name_ok(bt, chain) != 0)
		return bt->b.err;
	if (!jump && chain != NULL)
		return bt_fail(bt, -EINVAL);
	if (expr_begin(bt, &x, "immediate", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_IMMEDIATE_DREG, NFT_REG_VERDICT);
	d = nl_nest_begin(&bt->b, NFTA_IMMEDIATE_DATA);
	v = nl_nest_begin(&bt->b, NFTA_DATA_VERDICT);
	nl_put_be32(&bt->b, NFTA_VERDICT_CODE, (uint32_t)code);
	if (jump)
		nl_put_str(&bt->b, NFTA_VERDICT_CHAIN, chain);
	nl_nest_end(&bt->b, v);
	nl_nest_end(&bt->b, d);
	return expr_end(bt, &x);
}

/* ------------------------------------------------------------ composites */

int
nft_match_ifname(struct nft_batch *bt, uint32_t key, const char *name)
{
	char v[IFNAMSIZ_];
	size_t n;

	switch (key) {
	case NFT_META_IIFNAME:
	case NFT_META_OIFNAME:
	case NFT_META_BRI_IIFNAME:
	case NFT_META_BRI_OIFNAME:
		break;
	default:
		return bt_fail(bt, -EINVAL);
	}
	if (name == NULL || name[0] == '\0')
		return bt_fail(bt, -EINVAL);
	n = strnlen(name, IFNAMSIZ_);
	if (n >= IFNAMSIZ_)
		return bt_fail(bt, -ENAMETOOLONG);
	memset(v, 0, sizeof(v));
	memcpy(v, name, n);
	nft_expr_meta(bt, key, NFT_REG_1);
	/* "eth*": compare the prefix only; else the whole zero-padded name. */
	if (n > 1 && name[n - 1] == '*')
		return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, v, n - 1);
	return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, v, sizeof(v));
}

int
nft_match_l4proto(struct nft_batch *bt, uint8_t proto)
{
	bt->rule_l4 = proto;
	nft_expr_meta(bt, NFT_META_L4PROTO, NFT_REG_1);
	return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &proto, 1);
}

int
nft_match_nfproto(struct nft_batch *bt, uint8_t nfproto)
{
	nft_expr_meta(bt, NFT_META_NFPROTO, NFT_REG_1);
	return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &nfproto, 1);
}

int
nft_match_port(struct nft_batch *bt, uint8_t proto, int dport, uint16_t port)
{
	unsigned char be[2] = { (unsigned char)(port >> 8),
	    (unsigned char)port };

	if (bt->rule_l4 != proto)
		nft_match_l4proto(bt, proto);
	nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, dport ? 2 : 0, 2,
	    NFT_REG_1);
	return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, be, sizeof(be));
}

/* The network-protocol dependency nft adds before an ip/ip6 match. */
static int
addr_dep(struct nft_batch *bt, size_t alen)
{
	unsigned char eth[2];
	uint16_t p = alen == 4 ? ETH_P_IP_ : ETH_P_IPV6_;
	unsigned bit = alen == 4 ? 1u : 2u;

	if (bt->rule_deps & bit)
		return bt->b.err;
	bt->rule_deps |= bit;
	switch (bt->rule_family) {
	case NFT_FAM_INET:
		return nft_match_nfproto(bt, alen == 4 ? NFT_FAM_IPV4 :
		    NFT_FAM_IPV6);
	case NFT_FAM_BRIDGE:
	case NFT_FAM_NETDEV:
		eth[0] = (unsigned char)(p >> 8);
		eth[1] = (unsigned char)p;
		nft_expr_meta(bt, NFT_META_PROTOCOL, NFT_REG_1);
		return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, eth, 2);
	case NFT_FAM_IPV4:
		return alen == 4 ? bt->b.err : bt_fail(bt, -EINVAL);
	case NFT_FAM_IPV6:
		return alen == 16 ? bt->b.err : bt_fail(bt, -EINVAL);
	}
	return bt_fail(bt, -EINVAL);
}

int
nft_match_addr(struct nft_batch *bt, int daddr, const void *addr,
    size_t alen, unsigned prefix)
{
	return nft_match_addr_op(bt, daddr, addr, alen, prefix, NFT_CMP_EQ);
}

int
nft_match_addr_op(struct nft_batch *bt, int daddr, const void *addr,
    size_t alen, unsigned prefix, uint32_t op)
{
	unsigned char a[16], mask[16], zero[16];
	uint32_t off;
	size_t i;

	if (bt->b.err != 0)
		return bt->b.err;
	if (bt->rule_family == 0 || addr == NULL || (alen != 4 && alen != 16) ||
	    prefix == 0 || prefix > alen * 8 ||
	    (op != NFT_CMP_EQ && op != NFT_CMP_NEQ))
		return bt_fail(bt, -EINVAL);
	if (alen == 4)
		off = daddr ? 16 : 12;
	else
		off = daddr ? 24 : 8;
	memset(mask, 0, sizeof(mask));
	for (i = 0; i < alen; i++) {
		if (prefix >= (i + 1) * 8)
			mask[i] = 0xff;
		else if (prefix > i * 8)
			mask[i] = (unsigned char)(0xff <<
			    (8 - (prefix - i * 8)));
	}
	memcpy(a, addr, alen);
	for (i = 0; i < alen; i++)
		a[i] &= mask[i];
	addr_dep(bt, alen);
	if (prefix % 8 == 0) {
		/* Byte-aligned: load only the prefix bytes (as nft does). */
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, off,
		    prefix / 8, NFT_REG_1);
		return nft_expr_cmp(bt, NFT_REG_1, op, a, prefix / 8);
	}
	memset(zero, 0, sizeof(zero));
	nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, off, (uint32_t)alen,
	    NFT_REG_1);
	nft_expr_bitwise(bt, NFT_REG_1, NFT_REG_1, mask, zero, alen);
	return nft_expr_cmp(bt, NFT_REG_1, op, a, alen);
}

int
nft_match_ct_state(struct nft_batch *bt, uint32_t states)
{
	uint32_t zero = 0;

	if (states == 0)
		return bt_fail(bt, -EINVAL);
	/* ct state is a host-order u32 in the register. */
	nft_expr_ct(bt, NFT_CT_STATE, NFT_REG_1);
	nft_expr_bitwise(bt, NFT_REG_1, NFT_REG_1, &states, &zero,
	    sizeof(states));
	return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_NEQ, &zero, sizeof(zero));
}

int
nft_nat_to(struct nft_batch *bt, uint32_t type, const void *addr4,
    uint16_t port)
{
	unsigned char be[2] = { (unsigned char)(port >> 8),
	    (unsigned char)port };

	if (addr4 == NULL)
		return bt_fail(bt, -EINVAL);
	nft_expr_immediate(bt, NFT_REG_1, addr4, 4);
	if (port != 0)
		nft_expr_immediate(bt, NFT_REG_2, be, sizeof(be));
	return nft_expr_nat(bt, type, NFT_FAM_IPV4, NFT_REG_1,
	    port != 0 ? NFT_REG_2 : 0);
}

/* ------------------------------------------------------- reading back */

static int
parse_fail(int r)
{
	return r < 0 ? -EBOX_PROTO : r;
}

/* Does the message's table attribute name table?  1, 0, or < 0. */
static int
is_table(const struct nl_attr *a, const char *table)
{
	char name[NFT_NAME_MAXLEN];
	int r;

	r = nl_attr_str(a, name, sizeof(name));
	if (r == -ENOENT)
		return -EBOX_PROTO;
	if (r < 0)
		return parse_fail(r);
	return strcmp(name, table) == 0;
}

int
nft_parse_table(const struct nl_msg *m, const char *table, uint32_t *flags,
    uint64_t *handle)
{
	struct nl_attr tb[NFTA_TABLE_MAX + 1];
	int r;

	if (m->hdr.nlmsg_type !=
	    (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWTABLE))
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(struct nfgenmsg), tb,
	    NFTA_TABLE_MAX + 1)) < 0)
		return r;
	if ((r = is_table(&tb[NFTA_TABLE_NAME], table)) <= 0)
		return r;
	*flags = 0;
	*handle = 0;
	if (tb[NFTA_TABLE_FLAGS].present &&
	    nl_attr_be32(&tb[NFTA_TABLE_FLAGS], flags) < 0)
		return -EBOX_PROTO;
	if (tb[NFTA_TABLE_HANDLE].present &&
	    nl_attr_be64(&tb[NFTA_TABLE_HANDLE], handle) < 0)
		return -EBOX_PROTO;
	return 1;
}

static int
parse_hook(const struct nl_attr *a, struct nft_chain_info *ci)
{
	struct nl_attr tb[NFTA_HOOK_MAX + 1];
	uint32_t prio;

	if (nl_attr_parse_nested(a, tb, NFTA_HOOK_MAX + 1) < 0)
		return -EBOX_PROTO;
	if (nl_attr_be32(&tb[NFTA_HOOK_HOOKNUM], &ci->hook) < 0 ||
	    nl_attr_be32(&tb[NFTA_HOOK_PRIORITY], &prio) < 0)
		return -EBOX_PROTO;
	ci->prio = (int32_t)prio;
	ci->base = 1;
	return 0;
}

int
nft_parse_chain(const struct nl_msg *m, const char *table,
    struct nft_chain_info *ci)
{
	struct nl_attr tb[NFTA_CHAIN_MAX + 1];
	uint32_t pol;
	int r;

	if (m->hdr.nlmsg_type !=
	    (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWCHAIN))
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(struct nfgenmsg), tb,
	    NFTA_CHAIN_MAX + 1)) < 0)
		return r;
	if ((r = is_table(&tb[NFTA_CHAIN_TABLE], table)) <= 0)
		return r;
	memset(ci, 0, sizeof(*ci));
	ci->policy = -1;
	if ((r = nl_attr_str(&tb[NFTA_CHAIN_NAME], ci->name,
	    sizeof(ci->name))) < 0)
		return parse_fail(r);
	if (tb[NFTA_CHAIN_HANDLE].present &&
	    nl_attr_be64(&tb[NFTA_CHAIN_HANDLE], &ci->handle) < 0)
		return -EBOX_PROTO;
	if (tb[NFTA_CHAIN_HOOK].present &&
	    parse_hook(&tb[NFTA_CHAIN_HOOK], ci) < 0)
		return -EBOX_PROTO;
	if (tb[NFTA_CHAIN_POLICY].present) {
		if (nl_attr_be32(&tb[NFTA_CHAIN_POLICY], &pol) < 0)
			return -EBOX_PROTO;
		ci->policy = (int)pol;
	}
	if (tb[NFTA_CHAIN_TYPE].present &&
	    nl_attr_str(&tb[NFTA_CHAIN_TYPE], ci->type, sizeof(ci->type)) < 0)
		return -EBOX_PROTO;
	return 1;
}

/* The TLV of type in libnftnl's udata, if any, as a string. */
static int
parse_udata_type(const struct nl_attr *a, unsigned type, char *dst,
    size_t cap)
{
	const unsigned char *p = a->data;
	size_t left = a->len, l;

	dst[0] = '\0';
	while (left >= 2) {
		l = p[1];
		if (l > left - 2)
			return -EBOX_PROTO;
		if (p[0] == type && l > 0) {
			const unsigned char *nul = memchr(p + 2, '\0', l);
			size_t n = nul != NULL ? (size_t)(nul - (p + 2)) : l;

			if (n >= cap)
				n = cap - 1;
			memcpy(dst, p + 2, n);
			dst[n] = '\0';
		}
		p += 2 + l;
		left -= 2 + l;
	}
	return 0;
}

/*
 * The canonical text of a rule's expressions: what "the same rule" means
 * when the contract is compared with what the kernel holds.  Each
 * expression is written as  name(T=hex,T{...},...)  with its attributes
 * sorted by type, nests recursed into, and nothing interpreted, so a
 * changed verdict, port, address, register or operator changes the text.
 * Two kinds of attribute are left out, on both sides alike: a counter's
 * values (they move), and attributes the kernel reports with their zero
 * default although nobody sent them (bitwise op, payload checksum fields,
 * lookup flags).  Order of expressions is kept: it is the rule.
 */
static int
parse_udata(const struct nl_attr *a, char *dst, size_t cap)
{
	return parse_udata_type(a, UDATA_COMMENT, dst, cap);
}

struct canon {
	char *p;
	size_t cap, len;
	int trunc;
};

static void
canon_put(struct canon *c, const char *s, size_t n)
{
	if (c->trunc || c->len + n + 1 > c->cap) {
		c->trunc = 1;
		return;
	}
	memcpy(c->p + c->len, s, n);
	c->len += n;
	c->p[c->len] = '\0';
}

static void
canon_hex(struct canon *c, const unsigned char *d, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	char two[2];
	size_t i;

	for (i = 0; i < n; i++) {
		two[0] = hx[d[i] >> 4];
		two[1] = hx[d[i] & 15];
		canon_put(c, two, 2);
	}
}

static int
is_zero(const struct nl_attr *a)
{
	size_t i;

	for (i = 0; i < a->len; i++)
		if (a->data[i] != 0)
			return 0;
	return 1;
}

/* Attributes the kernel dumps with a zero default, by expression. */
static int
canon_skip(const char *expr, const struct nl_attr *a)
{
	if (strcmp(expr, "counter") == 0)
		return 1;
	if (!is_zero(a))
		return 0;
	if (strcmp(expr, "bitwise") == 0)
		return a->type == NFTA_BITWISE_OP;
	if (strcmp(expr, "payload") == 0)
		return a->type == NFTA_PAYLOAD_CSUM_TYPE ||
		    a->type == NFTA_PAYLOAD_CSUM_OFFSET ||
		    a->type == NFTA_PAYLOAD_CSUM_FLAGS;
	if (strcmp(expr, "lookup") == 0)
		return a->type == NFTA_LOOKUP_FLAGS;
	if (strcmp(expr, "dynset") == 0)
		return a->type == NFTA_DYNSET_TIMEOUT ||
		    a->type == NFTA_DYNSET_FLAGS || a->type == NFTA_DYNSET_PAD;
	return 0;
}

#define CANON_ATTRS 24
#define CANON_DEPTH 4

/*
 * Which attributes are nests.  The flag cannot say: the kernel dumps data
 * nests without NLA_F_NESTED, while we send them with it.  So the
 * structure comes from the protocol, the same for both sides: the data
 * attributes of these expressions hold a struct nft_data (NFTA_DATA_VALUE,
 * or NFTA_DATA_VERDICT, itself a nest).
 */
static int
canon_nested(const char *expr, const struct nl_attr *a, int depth)
{
	if (depth == 1)
		return a->type == NFTA_DATA_VERDICT;
	if (depth != 0)
		return 0;
	if (strcmp(expr, "cmp") == 0)
		return a->type == NFTA_CMP_DATA;
	if (strcmp(expr, "immediate") == 0)
		return a->type == NFTA_IMMEDIATE_DATA;
	if (strcmp(expr, "bitwise") == 0)
		return a->type == NFTA_BITWISE_MASK ||
		    a->type == NFTA_BITWISE_XOR || a->type == NFTA_BITWISE_DATA;
	if (strcmp(expr, "range") == 0)
		return a->type == NFTA_RANGE_FROM_DATA ||
		    a->type == NFTA_RANGE_TO_DATA;
	/* the expression a dynset attaches (ct count): its data nest is
	 * attribute 2 one level down, as NFTA_DATA_VERDICT is */
	if (strcmp(expr, "dynset") == 0)
		return a->type == NFTA_DYNSET_EXPR;
	return 0;
}

static int
canon_attrs(struct canon *c, const struct nl_attr *nest, const char *expr,
    int depth)
{
	struct nl_attr_iter it;
	struct nl_attr a[CANON_ATTRS], t;
	char num[16];
	size_t n = 0, i, j;
	int r;

	if (depth > CANON_DEPTH)
		return -EBOX_PROTO;
	nl_attr_iter_nested(&it, nest);
	while ((r = nl_attr_next(&it, &t)) > 0) {
		if (n == CANON_ATTRS)
			return -EBOX_PROTO;
		if (depth == 0 && canon_skip(expr, &t))
			continue;
		/* insertion sort by type: the kernel's order is not ours */
		for (j = n; j > 0 && a[j - 1].type > t.type; j--)
			a[j] = a[j - 1];
		a[j] = t;
		a[j].present = 1;
		n++;
	}
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		if (i > 0)
			canon_put(c, ",", 1);
		snprintf(num, sizeof(num), "%u", a[i].type);
		canon_put(c, num, strlen(num));
		if (canon_nested(expr, &a[i], depth)) {
			canon_put(c, "{", 1);
			if ((r = canon_attrs(c, &a[i], expr, depth + 1)) < 0)
				return r;
			canon_put(c, "}", 1);
		} else {
			canon_put(c, "=", 1);
			canon_hex(c, a[i].data, a[i].len);
		}
	}
	return 0;
}

/* A counter's values; a malformed one is only not counted. */
static void
parse_counter(const struct nl_attr *data, struct nft_rule_info *ri)
{
	struct nl_attr tb[NFTA_COUNTER_MAX + 1];

	if (nl_attr_parse_nested(data, tb, NFTA_COUNTER_MAX + 1) < 0 ||
	    nl_attr_be64(&tb[NFTA_COUNTER_PACKETS], &ri->packets) < 0 ||
	    nl_attr_be64(&tb[NFTA_COUNTER_BYTES], &ri->bytes) < 0)
		return;
	ri->has_counter = 1;
}

static int
parse_exprs(const struct nl_attr *list, struct nft_rule_info *ri)
{
	struct nl_attr_iter it;
	struct nl_attr el, tb[NFTA_EXPR_MAX + 1];
	struct canon c = { ri->canon, sizeof(ri->canon), 0, 0 };
	char name[32];
	size_t used = 0, n;
	int r;

	ri->canon[0] = '\0';
	nl_attr_iter_nested(&it, list);
	while ((r = nl_attr_next(&it, &el)) > 0) {
		if (el.type != NFTA_LIST_ELEM)
			continue;
		if (nl_attr_parse_nested(&el, tb, NFTA_EXPR_MAX + 1) < 0 ||
		    nl_attr_str(&tb[NFTA_EXPR_NAME], name, sizeof(name)) < 0)
			return -EBOX_PROTO;
		ri->nexprs++;
		n = strlen(name);
		/* Keep whole names only; the count stays exact. */
		if (used + n + 2 <= sizeof(ri->exprs)) {
			if (used > 0)
				ri->exprs[used++] = ',';
			memcpy(ri->exprs + used, name, n + 1);
			used += n;
		}
		if (ri->nexprs > 1)
			canon_put(&c, " ", 1);
		canon_put(&c, name, n);
		canon_put(&c, "(", 1);
		if (tb[NFTA_EXPR_DATA].present &&
		    canon_attrs(&c, &tb[NFTA_EXPR_DATA], name, 0) < 0)
			return -EBOX_PROTO;
		if (strcmp(name, "counter") == 0 && tb[NFTA_EXPR_DATA].present)
			parse_counter(&tb[NFTA_EXPR_DATA], ri);
		canon_put(&c, ")", 1);
	}
	ri->canon_trunc = c.trunc;
	return r < 0 ? -EBOX_PROTO : 0;
}

int
nft_parse_rule(const struct nl_msg *m, const char *table,
    struct nft_rule_info *ri)
{
	struct nl_attr tb[NFTA_RULE_MAX + 1];
	int r;

	if (m->hdr.nlmsg_type != (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWRULE))
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(struct nfgenmsg), tb,
	    NFTA_RULE_MAX + 1)) < 0)
		return r;
	if ((r = is_table(&tb[NFTA_RULE_TABLE], table)) <= 0)
		return r;
	memset(ri, 0, sizeof(*ri));
	if ((r = nl_attr_str(&tb[NFTA_RULE_CHAIN], ri->chain,
	    sizeof(ri->chain))) < 0)
		return parse_fail(r);
	if (tb[NFTA_RULE_HANDLE].present &&
	    nl_attr_be64(&tb[NFTA_RULE_HANDLE], &ri->handle) < 0)
		return -EBOX_PROTO;
	if (tb[NFTA_RULE_USERDATA].present &&
	    parse_udata(&tb[NFTA_RULE_USERDATA], ri->comment,
	    sizeof(ri->comment)) < 0)
		return -EBOX_PROTO;
	if (tb[NFTA_RULE_EXPRESSIONS].present)
		return parse_exprs(&tb[NFTA_RULE_EXPRESSIONS], ri) < 0 ?
		    -EBOX_PROTO : 1;
	return 1;
}

struct list_ctx {
	const char *table;
	struct nft_table_info *ti;
	int overflow;
};

static int
on_table(const struct nl_msg *m, void *arg)
{
	struct list_ctx *c = arg;
	int r;

	r = nft_parse_table(m, c->table, &c->ti->flags, &c->ti->handle);
	if (r > 0)
		c->ti->exists = 1;
	return r < 0 ? r : 0;
}

static int
on_chain(const struct nl_msg *m, void *arg)
{
	struct list_ctx *c = arg;
	struct nft_chain_info ci;
	int r;

	if ((r = nft_parse_chain(m, c->table, &ci)) <= 0)
		return r;
	if (c->ti->nchains >= c->ti->maxchains) {
		c->overflow = 1;
		return 0;
	}
	c->ti->chains[c->ti->nchains++] = ci;
	return 0;
}

static int
on_rule(const struct nl_msg *m, void *arg)
{
	struct list_ctx *c = arg;
	struct nft_rule_info ri;
	size_t i;
	int r;

	if ((r = nft_parse_rule(m, c->table, &ri)) <= 0)
		return r;
	for (i = 0; i < c->ti->nchains; i++)
		if (strcmp(c->ti->chains[i].name, ri.chain) == 0)
			c->ti->chains[i].nrules++;
	if (c->ti->rules == NULL)
		return 0;
	if (c->ti->nrules >= c->ti->maxrules) {
		c->overflow = 1;
		return 0;
	}
	c->ti->rules[c->ti->nrules++] = ri;
	return 0;
}

/* One GET request for table, dump or not, retried while interrupted. */
static int
list_get(struct nl_sock *s, int family, uint8_t msg, const char *table,
    int dump, nl_msg_fn fn, struct list_ctx *c, struct box_err *e)
{
	unsigned char req[512];
	struct nl_buf b;
	struct nl_error ne;
	int r, tries;
	uint16_t attr = msg == NFT_MSG_GETTABLE ? NFTA_TABLE_NAME :
	    msg == NFT_MSG_GETCHAIN ? NFTA_CHAIN_TABLE : NFTA_RULE_TABLE;

	for (tries = 0; tries < 5; tries++) {
		if (msg == NFT_MSG_GETCHAIN)
			c->ti->nchains = 0;
		if (msg == NFT_MSG_GETRULE) {
			size_t i;

			c->ti->nrules = 0;
			for (i = 0; i < c->ti->nchains; i++)
				c->ti->chains[i].nrules = 0;
		}
		c->overflow = 0;
		nl_buf_init(&b, req, sizeof(req));
		nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, msg, (uint8_t)family,
		    dump ? NLM_F_DUMP : NLM_F_ACK, nl_seq_take(s, 1));
		/* The kernel filters rule dumps by table; we filter all. */
		nl_put_str(&b, attr, table);
		if ((r = nl_msg_end(&b)) != 0)
			return err_set(e, r, "nf_tables: list %s: %s", table,
			    err_str(r));
		if (dump)
			r = nl_dump(s, req, b.len, fn, c, &ne,
			    "nf_tables: list", e);
		else
			r = nl_request(s, req, b.len, fn, c, &ne,
			    "nf_tables: list", e);
		if (r != -EINTR)
			return r;
	}
	return err_set(e, -EAGAIN, "nf_tables: list %s: the ruleset kept "
	    "changing while it was read", table);
}

int
nft_list_table(struct nl_sock *s, int family, const char *table,
    struct nft_table_info *ti, struct box_err *e)
{
	struct list_ctx c;
	struct box_err quiet;
	int r;

	ti->exists = 0;
	ti->flags = 0;
	ti->handle = 0;
	ti->nchains = ti->nrules = 0;
	if (table == NULL || strnlen(table, NFT_NAMELEN) >= NFT_NAMELEN)
		return err_set(e, -EINVAL, "nf_tables: list: bad table name");
	c.table = table;
	c.ti = ti;
	c.overflow = 0;
	/* A missing table is an answer, not a failure: keep e clear. */
	err_clear(&quiet);
	r = list_get(s, family, NFT_MSG_GETTABLE, table, 0, on_table, &c,
	    &quiet);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		err_set(e, r, "%s", quiet.msg);
		return r;
	}
	if ((r = list_get(s, family, NFT_MSG_GETCHAIN, table, 1, on_chain, &c,
	    e)) < 0)
		return r;
	if (!c.overflow && (r = list_get(s, family, NFT_MSG_GETRULE, table, 1,
	    on_rule, &c, e)) < 0)
		return r;
	if (c.overflow)
		return err_set(e, -ENOSPC, "nf_tables: list %s %s: more "
		    "chains or rules than the caller's arrays hold",
		    fam_name(family), table);
	return 0;
}

/* ------------------------------------------------------------------ sets */

static int
set_name_ok(struct nft_batch *bt, const char *s)
{
	return name_ok(bt, s);
}

int
nft_set_add(struct nft_batch *bt, int family, const char *table,
    const struct nft_set_spec *sp)
{
	return nft_set_add_udata(bt, family, table, sp, NULL, 0);
}

int
nft_set_add_udata(struct nft_batch *bt, int family, const char *table,
    const struct nft_set_spec *sp, const void *udata, size_t udata_len)
{
	char d[NFT_DESC_LEN];
	size_t desc;

	if (name_ok(bt, table) != 0 || sp == NULL ||
	    set_name_ok(bt, sp->name) != 0)
		return bt->b.err;
	if (sp->key_len == 0 || sp->key_len > NFT_SET_KEYMAX ||
	    sp->data_len > NFT_SET_KEYMAX ||
	    (sp->flags & ~(uint32_t)(NFT_SET_TIMEOUT | NFT_SET_EVAL)) != 0 ||
	    (sp->timeout_ms != 0 && !(sp->flags & NFT_SET_TIMEOUT)) ||
	    (sp->comment != NULL && strlen(sp->comment) >= NFT_COMMENT_MAX) ||
	    (sp->comment != NULL && udata != NULL))	/* one userdata */
		return bt_fail(bt, -EINVAL);
	snprintf(d, sizeof(d), "add set %s %s %s", fam_name(family), table,
	    sp->name);
	if (msg_begin(bt, NFT_MSG_NEWSET, family, NLM_F_CREATE, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_SET_TABLE, table);
	nl_put_str(&bt->b, NFTA_SET_NAME, sp->name);
	nl_put_be32(&bt->b, NFTA_SET_FLAGS, sp->flags |
	    (sp->data_len ? NFT_SET_MAP : 0));
	nl_put_be32(&bt->b, NFTA_SET_KEY_TYPE, sp->key_type);
	nl_put_be32(&bt->b, NFTA_SET_KEY_LEN, sp->key_len);
	if (sp->data_len) {
		nl_put_be32(&bt->b, NFTA_SET_DATA_TYPE, sp->data_type);
		nl_put_be32(&bt->b, NFTA_SET_DATA_LEN, sp->data_len);
	}
	if (sp->comment != NULL) {
		unsigned char ud[2 + NFT_COMMENT_MAX];
		size_t n = strlen(sp->comment);

		ud[0] = UDATA_SET_COMMENT;
		ud[1] = (unsigned char)(n + 1);
		memcpy(ud + 2, sp->comment, n + 1);
		nl_put(&bt->b, NFTA_SET_USERDATA, ud, n + 3);
	}
	/* The kernel wants an id for a set added in the batch. */
	nl_put_be32(&bt->b, NFTA_SET_ID, bt->seq);
	if (sp->timeout_ms != 0)
		nl_put_be64(&bt->b, NFTA_SET_TIMEOUT, sp->timeout_ms);
	if (udata != NULL && udata_len > 0)
		nl_put(&bt->b, NFTA_SET_USERDATA, udata, udata_len);
	if (sp->size != 0) {
		desc = nl_nest_begin(&bt->b, NFTA_SET_DESC);
		nl_put_be32(&bt->b, NFTA_SET_DESC_SIZE, sp->size);
		nl_nest_end(&bt->b, desc);
	}
	return nl_msg_end(&bt->b);
}

int
nft_set_del(struct nft_batch *bt, int family, const char *table,
    const char *name)
{
	char d[NFT_DESC_LEN];

	if (name_ok(bt, table) != 0 || set_name_ok(bt, name) != 0)
		return bt->b.err;
	snprintf(d, sizeof(d), "delete set %s %s %s", fam_name(family), table,
	    name);
	if (msg_begin(bt, NFT_MSG_DELSET, family, 0, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_SET_TABLE, table);
	nl_put_str(&bt->b, NFTA_SET_NAME, name);
	return nl_msg_end(&bt->b);
}

int
nft_expr_lookup(struct nft_batch *bt, uint32_t sreg, const char *set,
    int inverted)
{
	struct expr x;

	if (set_name_ok(bt, set) != 0)
		return bt->b.err;
	if (expr_begin(bt, &x, "lookup", 1) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_LOOKUP_SET, set);
	nl_put_be32(&bt->b, NFTA_LOOKUP_SREG, sreg);
	if (inverted)
		nl_put_be32(&bt->b, NFTA_LOOKUP_FLAGS, NFT_LOOKUP_F_INV);
	return expr_end(bt, &x);
}

int
nft_expr_dynset(struct nft_batch *bt, uint32_t op, uint32_t sreg,
    const char *set)
{
	struct expr x;

	if (set_name_ok(bt, set) != 0)
		return bt->b.err;
	if (op != NFT_DYNSET_OP_ADD && op != NFT_DYNSET_OP_UPDATE)
		return bt_fail(bt, -EINVAL);
	if (expr_begin(bt, &x, "dynset", 1) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_DYNSET_SET_NAME, set);
	nl_put_be32(&bt->b, NFTA_DYNSET_OP, op);
	nl_put_be32(&bt->b, NFTA_DYNSET_SREG_KEY, sreg);
	return expr_end(bt, &x);
}

int
nft_expr_dynset_map(struct nft_batch *bt, uint32_t op, uint32_t sreg,
    uint32_t sreg_data, const char *set)
{
	struct expr x;

	if (set_name_ok(bt, set) != 0)
		return bt->b.err;
	if (op != NFT_DYNSET_OP_ADD && op != NFT_DYNSET_OP_UPDATE &&
	    op != NFT_DYNSET_OP_DELETE)
		return bt_fail(bt, -EINVAL);
	if (expr_begin(bt, &x, "dynset", 1) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_DYNSET_SET_NAME, set);
	nl_put_be32(&bt->b, NFTA_DYNSET_OP, op);
	nl_put_be32(&bt->b, NFTA_DYNSET_SREG_KEY, sreg);
	nl_put_be32(&bt->b, NFTA_DYNSET_SREG_DATA, sreg_data);
	return expr_end(bt, &x);
}

int
nft_expr_numgen_inc(struct nft_batch *bt, uint32_t dreg, uint32_t modulus)
{
	struct expr x;

	if (modulus == 0)
		return bt_fail(bt, -EINVAL);
	if (expr_begin(bt, &x, "numgen", 1) != 0)
		return bt->b.err;
	nl_put_be32(&bt->b, NFTA_NG_DREG, dreg);
	nl_put_be32(&bt->b, NFTA_NG_MODULUS, modulus);
	nl_put_be32(&bt->b, NFTA_NG_TYPE, NFT_NG_INCREMENTAL);
	nl_put_be32(&bt->b, NFTA_NG_OFFSET, 0);
	return expr_end(bt, &x);
}

int
nft_expr_counter_from(struct nft_batch *bt, uint64_t packets, uint64_t bytes)
{
	struct expr x;

	if (expr_begin(bt, &x, "counter", 1) != 0)
		return bt->b.err;
	nl_put_be64(&bt->b, NFTA_COUNTER_BYTES, bytes);
	nl_put_be64(&bt->b, NFTA_COUNTER_PACKETS, packets);
	return expr_end(bt, &x);
}

/* --- set elements ---------------------------------------------------------------- */

int
nft_setelems_flush(struct nft_batch *bt, int family, const char *table,
    const char *set)
{
	char d[NFT_DESC_LEN];

	if (name_ok(bt, table) != 0 || set_name_ok(bt, set) != 0)
		return bt->b.err;
	snprintf(d, sizeof(d), "flush set %s %s %s", fam_name(family), table,
	    set);
	if (msg_begin(bt, NFT_MSG_DELSETELEM, family, 0, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_SET_ELEM_LIST_TABLE, table);
	nl_put_str(&bt->b, NFTA_SET_ELEM_LIST_SET, set);
	return nl_msg_end(&bt->b);
}

/* The bytes one element takes in a NEWSETELEM list (an upper bound). */
static size_t
elem_size(const struct nft_set_elem *e)
{
	size_t n = 4 + 4 + 4 + NL_ALIGN(e->klen);

	if (e->dlen)
		n += 4 + 4 + NL_ALIGN(e->dlen);
	if (e->timeout_ms)
		n += 12;
	if (e->expires_ms)
		n += 12;
	if (e->comment[0])
		n += 4 + NL_ALIGN(2 + strnlen(e->comment,
		    NFT_ELEM_COMMENT_MAX - 1) + 1);
	return n;
}

size_t
nft_setelems_msgs(const struct nft_set_elem *v, size_t n)
{
	size_t i, used = 0, msgs = 0;

	for (i = 0; i < n; i++) {
		size_t z = elem_size(&v[i]);

		if (msgs == 0 || used + z > NFT_ELEMS_MSGMAX) {
			msgs++;
			used = 0;
		}
		used += z;
	}
	return msgs;
}

static void
put_elem(struct nft_batch *bt, const struct nft_set_elem *e)
{
	unsigned char ud[2 + NFT_ELEM_COMMENT_MAX];
	size_t el, k, l;

	el = nl_nest_begin(&bt->b, NFTA_LIST_ELEM);
	k = nl_nest_begin(&bt->b, NFTA_SET_ELEM_KEY);
	nl_put(&bt->b, NFTA_DATA_VALUE, e->key, e->klen);
	nl_nest_end(&bt->b, k);
	if (e->dlen) {
		k = nl_nest_begin(&bt->b, NFTA_SET_ELEM_DATA);
		nl_put(&bt->b, NFTA_DATA_VALUE, e->data, e->dlen);
		nl_nest_end(&bt->b, k);
	}
	if (e->timeout_ms)
		nl_put_be64(&bt->b, NFTA_SET_ELEM_TIMEOUT, e->timeout_ms);
	if (e->expires_ms)
		nl_put_be64(&bt->b, NFTA_SET_ELEM_EXPIRATION, e->expires_ms);
	if (e->comment[0]) {
		l = strnlen(e->comment, NFT_ELEM_COMMENT_MAX - 1);
		ud[0] = UDATA_COMMENT;
		ud[1] = (unsigned char)(l + 1);
		memcpy(ud + 2, e->comment, l);
		ud[2 + l] = '\0';
		nl_put(&bt->b, NFTA_SET_ELEM_USERDATA, ud, l + 3);
	}
	nl_nest_end(&bt->b, el);
}

int
nft_setelems_add(struct nft_batch *bt, int family, const char *table,
    const char *set, const struct nft_set_elem *v, size_t n)
{
	char d[NFT_DESC_LEN];
	size_t i = 0, used, list;

	if (name_ok(bt, table) != 0 || set_name_ok(bt, set) != 0)
		return bt->b.err;
	for (i = 0; i < n; i++)
		if (v[i].klen == 0 || v[i].klen > NFT_SET_KEYMAX ||
		    v[i].dlen > NFT_SET_KEYMAX ||
		    (v[i].expires_ms && !v[i].timeout_ms))
			return bt_fail(bt, -EINVAL);
	snprintf(d, sizeof(d), "add elements to %s %s %s", fam_name(family),
	    table, set);
	for (i = 0; i < n;) {
		if (msg_begin(bt, NFT_MSG_NEWSETELEM, family, NLM_F_CREATE,
		    d) != 0)
			return bt->b.err;
		nl_put_str(&bt->b, NFTA_SET_ELEM_LIST_TABLE, table);
		nl_put_str(&bt->b, NFTA_SET_ELEM_LIST_SET, set);
		list = nl_nest_begin(&bt->b, NFTA_SET_ELEM_LIST_ELEMENTS);
		for (used = 0; i < n; i++) {
			size_t z = elem_size(&v[i]);

			if (used > 0 && used + z > NFT_ELEMS_MSGMAX)
				break;
			put_elem(bt, &v[i]);
			used += z;
		}
		nl_nest_end(&bt->b, list);
		if (nl_msg_end(&bt->b) != 0)
			return bt->b.err;
	}
	return bt->b.err;
}

int
nft_expr_dynset_connlimit(struct nft_batch *bt, uint32_t sreg,
    const char *set, uint32_t count, int over)
{
	struct expr x;
	size_t inner, data;

	if (set_name_ok(bt, set) != 0)
		return bt->b.err;
	if (expr_begin(bt, &x, "dynset", 1) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_DYNSET_SET_NAME, set);
	nl_put_be32(&bt->b, NFTA_DYNSET_OP, NFT_DYNSET_OP_ADD);
	nl_put_be32(&bt->b, NFTA_DYNSET_SREG_KEY, sreg);
	inner = nl_nest_begin(&bt->b, NFTA_DYNSET_EXPR);
	nl_put_str(&bt->b, NFTA_EXPR_NAME, "connlimit");
	data = nl_nest_begin(&bt->b, NFTA_EXPR_DATA);
	nl_put_be32(&bt->b, NFTA_CONNLIMIT_COUNT, count);
	nl_put_be32(&bt->b, NFTA_CONNLIMIT_FLAGS, over ? NFT_CONNLIMIT_F_INV :
	    0);
	nl_nest_end(&bt->b, data);
	nl_nest_end(&bt->b, inner);
	return expr_end(bt, &x);
}

int
nft_setelem_add(struct nft_batch *bt, int family, const char *table,
    const char *set, const unsigned char *keys, size_t klen, size_t n)
{
	char d[NFT_DESC_LEN];
	size_t list, el, key, i;

	if (name_ok(bt, table) != 0 || set_name_ok(bt, set) != 0)
		return bt->b.err;
	if (keys == NULL || klen == 0 || klen > NFT_SET_KEYMAX || n == 0 ||
	    n > NFT_SETELEM_MAX)
		return bt_fail(bt, -EINVAL);
	snprintf(d, sizeof(d), "add element %s %s %s", fam_name(family),
	    table, set);
	if (msg_begin(bt, NFT_MSG_NEWSETELEM, family, NLM_F_CREATE, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_SET_ELEM_LIST_TABLE, table);
	nl_put_str(&bt->b, NFTA_SET_ELEM_LIST_SET, set);
	list = nl_nest_begin(&bt->b, NFTA_SET_ELEM_LIST_ELEMENTS);
	for (i = 0; i < n; i++) {
		el = nl_nest_begin(&bt->b, NFTA_LIST_ELEM);
		key = nl_nest_begin(&bt->b, NFTA_SET_ELEM_KEY);
		nl_put(&bt->b, NFTA_DATA_VALUE, keys + i * klen, klen);
		nl_nest_end(&bt->b, key);
		nl_nest_end(&bt->b, el);
	}
	nl_nest_end(&bt->b, list);
	return nl_msg_end(&bt->b);
}

int
nft_set_flush(struct nft_batch *bt, int family, const char *table,
    const char *set)
{
	char d[NFT_DESC_LEN];

	if (name_ok(bt, table) != 0 || set_name_ok(bt, set) != 0)
		return bt->b.err;
	snprintf(d, sizeof(d), "flush set %s %s %s", fam_name(family), table,
	    set);
	if (msg_begin(bt, NFT_MSG_DELSETELEM, family, 0, d) != 0)
		return bt->b.err;
	nl_put_str(&bt->b, NFTA_SET_ELEM_LIST_TABLE, table);
	nl_put_str(&bt->b, NFTA_SET_ELEM_LIST_SET, set);
	return nl_msg_end(&bt->b);
}

#define ARPHRD_ETHER_	1

int
nft_match_ether_saddr(struct nft_batch *bt, const unsigned char mac[6])
{
	uint16_t ether = ARPHRD_ETHER_;	/* host order, as meta loads it */

	if (mac == NULL)
		return bt_fail(bt, -EINVAL);
	nft_expr_meta(bt, NFT_META_IIFTYPE, NFT_REG_1);
	nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &ether, sizeof(ether));
	nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 6, 6, NFT_REG_1);
	return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, mac, 6);
}

/* One element: { KEY { VALUE }, TIMEOUT, EXPIRATION }. */
static int
parse_elem(const struct nl_attr *el, struct nft_set_elem *out)
{
	struct nl_attr tb[NFTA_SET_ELEM_MAX + 1], kv[NFTA_DATA_MAX + 1];

	memset(out, 0, sizeof(*out));
	if (nl_attr_parse_nested(el, tb, NFTA_SET_ELEM_MAX + 1) < 0 ||
	    !tb[NFTA_SET_ELEM_KEY].present ||
	    nl_attr_parse_nested(&tb[NFTA_SET_ELEM_KEY], kv,
	    NFTA_DATA_MAX + 1) < 0 || !kv[NFTA_DATA_VALUE].present ||
	    kv[NFTA_DATA_VALUE].len == 0 ||
	    kv[NFTA_DATA_VALUE].len > NFT_SET_KEYMAX)
		return -EBOX_PROTO;
	out->klen = (uint32_t)kv[NFTA_DATA_VALUE].len;
	memcpy(out->key, kv[NFTA_DATA_VALUE].data, out->klen);
	if (tb[NFTA_SET_ELEM_DATA].present) {
		if (nl_attr_parse_nested(&tb[NFTA_SET_ELEM_DATA], kv,
		    NFTA_DATA_MAX + 1) < 0 || !kv[NFTA_DATA_VALUE].present ||
		    kv[NFTA_DATA_VALUE].len > NFT_SET_KEYMAX)
			return -EBOX_PROTO;
		out->dlen = (uint32_t)kv[NFTA_DATA_VALUE].len;
		memcpy(out->data, kv[NFTA_DATA_VALUE].data, out->dlen);
	}
	if (tb[NFTA_SET_ELEM_USERDATA].present &&
	    parse_udata_type(&tb[NFTA_SET_ELEM_USERDATA], UDATA_COMMENT,
	    out->comment, sizeof(out->comment)) < 0)
		return -EBOX_PROTO;
	if (tb[NFTA_SET_ELEM_TIMEOUT].present &&
	    nl_attr_be64(&tb[NFTA_SET_ELEM_TIMEOUT], &out->timeout_ms) < 0)
		return -EBOX_PROTO;
	if (tb[NFTA_SET_ELEM_EXPIRATION].present &&
	    nl_attr_be64(&tb[NFTA_SET_ELEM_EXPIRATION], &out->expires_ms) < 0)
		return -EBOX_PROTO;
	return 0;
}

int
nft_parse_setelems(const struct nl_msg *m, const char *table,
    const char *set, struct nft_set_elem *v, size_t max, size_t *n,
    size_t *dropped)
{
	struct nl_attr tb[NFTA_SET_ELEM_LIST_MAX + 1], el;
	struct nl_attr_iter it;
	struct nft_set_elem one;
	int r;

	if (m->hdr.nlmsg_type !=
	    (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWSETELEM))
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(struct nfgenmsg), tb,
	    NFTA_SET_ELEM_LIST_MAX + 1)) < 0)
		return r;
	if ((r = is_table(&tb[NFTA_SET_ELEM_LIST_TABLE], table)) <= 0)
		return r;
	if ((r = is_table(&tb[NFTA_SET_ELEM_LIST_SET], set)) <= 0)
		return r;
	if (!tb[NFTA_SET_ELEM_LIST_ELEMENTS].present)
		return 1;
	nl_attr_iter_nested(&it, &tb[NFTA_SET_ELEM_LIST_ELEMENTS]);
	while ((r = nl_attr_next(&it, &el)) > 0) {
		if (el.type != NFTA_LIST_ELEM)
			continue;
		if (parse_elem(&el, &one) < 0)
			return -EBOX_PROTO;
		if (*n < max)
			v[(*n)++] = one;
		else if (dropped != NULL)
			(*dropped)++;
	}
	return r < 0 ? -EBOX_PROTO : 1;
}

int
nft_parse_set(const struct nl_msg *m, const char *table, char *name,
    size_t cap)
{
	struct nl_attr tb[NFTA_SET_MAX + 1];
	int r;

	if (m->hdr.nlmsg_type != (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWSET))
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(struct nfgenmsg), tb,
	    NFTA_SET_MAX + 1)) < 0)
		return r;
	if ((r = is_table(&tb[NFTA_SET_TABLE], table)) <= 0)
		return r;
	return nl_attr_str(&tb[NFTA_SET_NAME], name, cap) < 0 ? -EBOX_PROTO :
	    1;
}

int
nft_parse_set_comment(const struct nl_msg *m, const char *table,
    const char *set, char *buf, size_t cap)
{
	struct nl_attr tb[NFTA_SET_MAX + 1];
	int r;

	if (cap == 0)
		return -EINVAL;
	buf[0] = '\0';
	if (m->hdr.nlmsg_type != (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWSET))
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(struct nfgenmsg), tb,
	    NFTA_SET_MAX + 1)) < 0)
		return r;
	if ((r = is_table(&tb[NFTA_SET_TABLE], table)) <= 0 ||
	    (r = is_table(&tb[NFTA_SET_NAME], set)) <= 0)
		return r;
	if (tb[NFTA_SET_USERDATA].present &&
	    parse_udata_type(&tb[NFTA_SET_USERDATA], UDATA_SET_COMMENT, buf,
	    cap) < 0)
		return -EBOX_PROTO;
	return 1;
}

struct setc_ctx {
	const char *table, *set;
	char *buf;
	size_t cap;
	int found;
};

static int
on_set_comment(const struct nl_msg *m, void *arg)
{
	struct setc_ctx *c = arg;
	int r = nft_parse_set_comment(m, c->table, c->set, c->buf, c->cap);

	if (r < 0)
		return r;
	c->found |= r;
	return 0;
}

int
nft_set_comment(struct nl_sock *s, int family, const char *table,
    const char *set, char *buf, size_t cap, struct box_err *e)
{
	struct setc_ctx c = { table, set, buf, cap, 0 };
	unsigned char req[512];
	struct nl_buf b;
	struct nl_error ne;
	struct box_err quiet;
	int r;

	if (cap == 0 || table == NULL || set == NULL ||
	    strnlen(table, NFT_NAMELEN) >= NFT_NAMELEN ||
	    strnlen(set, NFT_NAMELEN) >= NFT_NAMELEN)
		return err_set(e, -EINVAL, "nf_tables: get set: bad name");
	buf[0] = '\0';
	nl_buf_init(&b, req, sizeof(req));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, NFT_MSG_GETSET,
	    (uint8_t)family, NLM_F_ACK, nl_seq_take(s, 1));
	nl_put_str(&b, NFTA_SET_TABLE, table);
	nl_put_str(&b, NFTA_SET_NAME, set);
	if ((r = nl_msg_end(&b)) != 0)
		return err_set(e, r, "nf_tables: get set %s: %s", set,
		    err_str(r));
	err_clear(&quiet);
	r = nl_request(s, req, b.len, on_set_comment, &c, &ne,
	    "nf_tables: get set", &quiet);
	if (r == -ENOENT)
		return -ENOENT;
	if (r < 0)
		return err_set(e, r, "%s", quiet.msg);
	if (!c.found) {
		buf[0] = '\0';
		return -ENOENT;
	}
	return 0;
}

struct elem_ctx {
	const char *table, *set;
	struct nft_set_elem *v;
	size_t max, n, dropped;
};

static int
on_setelem(const struct nl_msg *m, void *arg)
{
	struct elem_ctx *c = arg;
	int r = nft_parse_setelems(m, c->table, c->set, c->v, c->max, &c->n,
	    &c->dropped);

	return r < 0 ? r : 0;
}

struct sets_ctx {
	const char *table;
	char (*names)[NFT_NAMELEN];
	size_t max, n;
	int overflow;
};

static int
on_set(const struct nl_msg *m, void *arg)
{
	struct sets_ctx *c = arg;
	char name[NFT_NAMELEN];
	int r = nft_parse_set(m, c->table, name, sizeof(name));

	if (r <= 0)
		return r;
	if (c->n >= c->max) {
		c->overflow = 1;
		return 0;
	}
	memcpy(c->names[c->n++], name, sizeof(name));
	return 0;
}

/* A GETSET / GETSETELEM dump of table (and set), retried when
 * interrupted. */
static int
set_dump(struct nl_sock *s, int family, uint8_t msg, const char *table,
    const char *set, nl_msg_fn fn, void *arg, void (*reset)(void *),
    struct box_err *e)
{
	unsigned char req[512];
	struct nl_buf b;
	struct nl_error ne;
	int r, tries;

	for (tries = 0; tries < 5; tries++) {
		reset(arg);
		nl_buf_init(&b, req, sizeof(req));
		nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, msg, (uint8_t)family,
		    NLM_F_DUMP, nl_seq_take(s, 1));
		if (msg == NFT_MSG_GETSETELEM) {
			nl_put_str(&b, NFTA_SET_ELEM_LIST_TABLE, table);
			nl_put_str(&b, NFTA_SET_ELEM_LIST_SET, set);
		} else {
			nl_put_str(&b, NFTA_SET_TABLE, table);
		}
		if ((r = nl_msg_end(&b)) != 0)
			return err_set(e, r, "nf_tables: list sets of %s: %s",
			    table, err_str(r));
		r = nl_dump(s, req, b.len, fn, arg, &ne, "nf_tables: list set",
		    e);
		if (r != -EINTR)
			return r;
	}
	return err_set(e, -EAGAIN, "nf_tables: list %s: the set kept "
	    "changing while it was read", set != NULL ? set : table);
}

static void
elem_reset(void *arg)
{
	struct elem_ctx *c = arg;

	c->n = c->dropped = 0;
}

static void
sets_reset(void *arg)
{
	struct sets_ctx *c = arg;

	c->n = 0;
	c->overflow = 0;
}

int
nft_list_setelems(struct nl_sock *s, int family, const char *table,
    const char *set, struct nft_set_elem *v, size_t max, size_t *n,
    size_t *total, struct box_err *e)
{
	struct elem_ctx c = { table, set, v, max, 0, 0 };
	struct box_err quiet;
	int r;

	*n = 0;
	if (total != NULL)
		*total = 0;
	if (table == NULL || set == NULL ||
	    strnlen(table, NFT_NAMELEN) >= NFT_NAMELEN ||
	    strnlen(set, NFT_NAMELEN) >= NFT_NAMELEN)
		return err_set(e, -EINVAL, "nf_tables: list set: bad name");
	err_clear(&quiet);
	r = set_dump(s, family, NFT_MSG_GETSETELEM, table, set, on_setelem,
	    &c, elem_reset, &quiet);
	if (r == -ENOENT)
		return -ENOENT;
	if (r < 0) {
		err_set(e, r, "%s", quiet.msg);
		return r;
	}
	*n = c.n;
	if (total != NULL)
		*total = c.n + c.dropped;
	return 0;
}

int
nft_list_sets(struct nl_sock *s, int family, const char *table,
    char (*names)[NFT_NAMELEN], size_t max, size_t *n, struct box_err *e)
{
	struct sets_ctx c = { table, names, max, 0, 0 };
	struct box_err quiet;
	int r;

	*n = 0;
	if (table == NULL || strnlen(table, NFT_NAMELEN) >= NFT_NAMELEN)
		return err_set(e, -EINVAL, "nf_tables: list sets: bad name");
	err_clear(&quiet);
	r = set_dump(s, family, NFT_MSG_GETSET, table, NULL, on_set, &c,
	    sets_reset, &quiet);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		err_set(e, r, "%s", quiet.msg);
		return r;
	}
	if (c.overflow)
		return err_set(e, -ENOSPC, "nf_tables: table %s has more "
		    "than %zu sets", table, max);
	*n = c.n;
	return 0;
}

/* --------------------------------------------------------------- probing */

int
nft_probe(struct nl_sock *s, int family, const struct nft_chain_spec *c,
    nft_expr_fn fn, void *arg, struct nl_error *why, struct box_err *e)
{
	struct nft_batch bt;
	unsigned char buf[4096];
	struct nl_error ne;
	char table[32];
	uint32_t rule_seq;
	int r;

	if (why != NULL)
		memset(why, 0, sizeof(*why));
	snprintf(table, sizeof(table), "box-probe-%ld", (long)getpid());
	nft_batch_init(&bt, buf, sizeof(buf), s->seq);
	/* Dormant: the chain's hook is never registered. */
	nft_table_add(&bt, family, table, NFT_TABLE_F_DORMANT);
	nft_chain_add(&bt, family, table, c);
	rule_seq = bt.seq;
	nft_rule_begin(&bt, family, table, c != NULL ? c->name : "", "probe");
	if (fn != NULL)
		fn(&bt, arg);
	nft_rule_end(&bt);
	nft_table_del(&bt, family, table);
	if ((r = nft_batch_err(&bt)) != 0)
		return err_set(e, r, "nf_tables probe: building: %s",
		    err_str(r));
	{
		struct box_err quiet;

		err_clear(&quiet);
		r = nft_batch_send(s, &bt, &ne, &quiet);
		if (r == 0)
			return 1;
		if (ne.code != 0 && ne.seq == rule_seq) {
			if (why != NULL)
				*why = ne;
			return 0;
		}
		err_set(e, r, "%s", quiet.msg);
		return r;
	}
}

static int
brname_exprs(struct nft_batch *bt, void *arg)
{
	const char *br = arg;

	nft_match_ifname(bt, NFT_META_BRI_IIFNAME, br);
	nft_match_ifname(bt, NFT_META_BRI_OIFNAME, br);
	return nft_verdict(bt, NFT_V_DROP, NULL);
}

int
nft_probe_brname(struct nl_sock *s, struct nl_error *why, struct box_err *e)
{
	static const struct nft_chain_spec fwd = {
		"forward", "filter", NFT_HOOK_FORWARD, -200, NFT_V_ACCEPT
	};

	return nft_probe(s, NFT_FAM_BRIDGE, &fwd, brname_exprs,
	    (void *)"box-probe0", why, e);
}
