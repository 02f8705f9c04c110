/*
 * nicfilter.c - is a box's NIC filter in the kernel, by content?
 *
 * The contract's anti-spoofing layer is Incus's NIC filtering (the profile
 * sets security.{mac,ipv4,ipv6}_filtering): for each box port Incus writes
 * chains in.<box>.eth0 (hook input) and fwd.<box>.eth0 (hook forward) into
 * table bridge incus.  The keys on the profile prove nothing by
 * themselves, so each running box's two chains are read back and must
 * hold these drops, exactly as nft writes them for Incus:
 *
 *   iifname H ether saddr != MAC drop            a forged source MAC
 *   iifname H arp saddr ether != MAC drop        ARP claiming another MAC
 *   iifname H arp saddr ip != IP drop            ARP claiming another address
 *   iifname H ip saddr != IP drop                a forged source address
 *   iifname H ether type ip6 drop                any IPv6 at all
 *
 * where H is the box's host-side veth, MAC its volatile hwaddr and IP the
 * lease Incus pinned for it.  A drop is final in any chain, so what could
 * undo one is an accept before it in the same chain: the only accept
 * allowed there is Incus's own DHCP exception (ip saddr 0.0.0.0 ip daddr
 * 255.255.255.255 udp dport 67).
 */
#include "host/doctor/nicfilter.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NF_MAXCHAINS	512
#define NF_MAXRULES	4096
#define NF_SCRATCH	4096

struct nicf {
	struct nft_table_info ti;
	struct nft_chain_info chains[NF_MAXCHAINS];
	struct nft_rule_info rules[NF_MAXRULES];
};

int
nicf_read(struct nicf **out, struct box_err *e)
{
	struct nicf *f = calloc(1, sizeof(*f));
	struct nl_sock *s = malloc(sizeof(*s));
	int rc;

	*out = NULL;
	if (f == NULL || s == NULL) {
		free(f);
		free(s);
		return err_set(e, -ENOMEM, "out of memory");
	}
	f->ti.chains = f->chains;
	f->ti.maxchains = NF_MAXCHAINS;
	f->ti.rules = f->rules;
	f->ti.maxrules = NF_MAXRULES;
	rc = nl_open(s, NETLINK_NETFILTER, e);
	if (rc == 0) {
		rc = nft_list_table(s, NFT_FAM_BRIDGE, "incus", &f->ti, e);
		nl_close(s);
	}
	free(s);
	if (rc < 0) {
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

void
nicf_free(struct nicf *f)
{
	free(f);
}

enum rule_kind { R_MAC, R_ARP_MAC, R_ARP_IP, R_IP, R_IP6, R_DHCP, R_N };

static const char *const rule_what[R_N] = {
	"ether saddr != its MAC drop", "arp saddr ether != its MAC drop",
	"arp saddr ip != its address drop", "ip saddr != its address drop",
	"ether type ip6 drop", "the DHCP exception",
};

/* ether type T, as nft writes it in the bridge family. */
static void
ether_type(struct nft_batch *bt, uint16_t type_be)
{
	nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 12, 2, NFT_REG_1);
	nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &type_be, 2);
}

static void
emit_filter_rule(struct nft_batch *bt, int kind, const char *chain,
    const char *host, const unsigned char mac[6], const unsigned char ip[4])
{
	static const unsigned char any[4] = { 0, 0, 0, 0 };
	static const unsigned char bcast[4] = { 255, 255, 255, 255 };
	uint16_t arp = htons(0x0806), ip4 = htons(0x0800), ip6 = htons(0x86dd);

	nft_rule_begin(bt, NFT_FAM_BRIDGE, "incus", chain, NULL);
	nft_match_ifname(bt, NFT_META_IIFNAME, host);
	switch (kind) {
	case R_MAC:
		nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 6, 6, NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_NEQ, mac, 6);
		break;
	case R_ARP_MAC:
		ether_type(bt, arp);
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 8, 6,
		    NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_NEQ, mac, 6);
		break;
	case R_ARP_IP:
		ether_type(bt, arp);
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 14, 4,
		    NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_NEQ, ip, 4);
		break;
	case R_IP:
		ether_type(bt, ip4);
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 12, 4,
		    NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_NEQ, ip, 4);
		break;
	case R_IP6:
		ether_type(bt, ip6);
		break;
	case R_DHCP: {
		uint8_t udp = IPPROTO_UDP;
		uint16_t bootps = htons(67);

		ether_type(bt, ip4);
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 12, 4,
		    NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, any, 4);
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 16, 4,
		    NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, bcast, 4);
		nft_expr_meta(bt, NFT_META_L4PROTO, NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &udp, 1);
		nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2,
		    NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &bootps, 2);
		nft_verdict(bt, NFT_V_ACCEPT, NULL);
		nft_rule_end(bt);
		return;
	}
	}
	nft_verdict(bt, NFT_V_DROP, NULL);
	nft_rule_end(bt);
}

/* The canonical text of one rule as nft would write it for Incus. */
static int
expect(int kind, const char *chain, const char *host,
    const unsigned char mac[6], const unsigned char ip[4],
    struct nft_rule_info *ri)
{
	struct nft_batch *bt = malloc(sizeof(*bt));
	unsigned char *buf = malloc(NF_SCRATCH);
	struct nl_msg m;
	size_t off = 0;
	int rc = -ENOMEM;

	if (bt != NULL && buf != NULL) {
		nft_batch_init(bt, buf, NF_SCRATCH, 1);
		emit_filter_rule(bt, kind, chain, host, mac, ip);
		rc = nft_batch_end(bt);
		if (rc == 0 && (nl_msg_at(bt->b.p, bt->b.len, &off, &m) != 1 ||
		    nl_msg_at(bt->b.p, bt->b.len, &off, &m) != 1 ||
		    nft_parse_rule(&m, "incus", ri) != 1))
			rc = -EBOX_PROTO;
	}
	free(bt);
	free(buf);
	return rc;
}

static const struct nft_chain_info *
chain_named(const struct nicf *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->ti.nchains; i++)
		if (strcmp(f->chains[i].name, name) == 0)
			return &f->chains[i];
	return NULL;
}

/* A rule's verdict is accept: its last expression is "immediate ... 1". */
static int
accepts(const struct nft_rule_info *r)
{
	const char *last = strrchr(r->canon, ' ');

	last = last == NULL ? r->canon : last + 1;
	return strcmp(last, "immediate(1=00000000,2{2{1=00000001}})") == 0;
}

/* want: R_N rules' room, the caller's (each holds a canonical text). */
static int
check_chain(const struct nicf *f, const char *chain, uint32_t hook,
    const char *host, const unsigned char mac[6], const unsigned char ip[4],
    struct nft_rule_info *want, char *why, size_t cap)
{
	const struct nft_chain_info *c = chain_named(f, chain);
	size_t i;
	int k, found[R_N] = { 0 }, rc;

	if (c == NULL || !c->base || c->hook != hook) {
		snprintf(why, cap, "chain bridge incus %s is %s", chain,
		    c == NULL ? "missing" : "not on its hook");
		return 0;
	}
	for (k = 0; k < R_N; k++)
		if ((rc = expect(k, chain, host, mac, ip, &want[k])) < 0) {
			snprintf(why, cap, "building the expected rules failed");
			return rc;
		}
	for (i = 0; i < f->ti.nrules; i++) {
		const struct nft_rule_info *r = &f->rules[i];
		int known = 0;

		if (strcmp(r->chain, chain) != 0)
			continue;
		for (k = 0; k < R_N; k++)
			if (!r->canon_trunc &&
			    strcmp(r->canon, want[k].canon) == 0) {
				found[k] = 1;
				known = 1;
			}
		/* An accept that is not Incus's DHCP exception, before the
		 * drops are all seen, could let a forged frame through. */
		if (!known && accepts(r)) {
			snprintf(why, cap, "chain %s holds an accept that is "
			    "not Incus's DHCP exception (%.80s)", chain,
			    r->canon);
			return 0;
		}
	}
	for (k = 0; k < R_IP6 + 1; k++)
		if (!found[k]) {
			snprintf(why, cap, "chain %s lacks \"iifname %s %s\"",
			    chain, host, rule_what[k]);
			return 0;
		}
	return 1;
}

int
nicf_check(const struct nicf *f, const char *inst, const char *host,
    const unsigned char mac[6], uint32_t addr, char *why, size_t cap)
{
	unsigned char ip[4] = { (unsigned char)(addr >> 24),
	    (unsigned char)(addr >> 16), (unsigned char)(addr >> 8),
	    (unsigned char)addr };
	struct nft_rule_info *want = calloc(R_N, sizeof(*want));
	char chain[NFT_NAMELEN];
	int rc;

	why[0] = '\0';
	if (want == NULL) {
		snprintf(why, cap, "out of memory");
		return -ENOMEM;
	}
	snprintf(chain, sizeof(chain), "in.%s.eth0", inst);
	rc = check_chain(f, chain, NFT_HOOK_INPUT, host, mac, ip, want, why,
	    cap);
	if (rc == 1) {
		snprintf(chain, sizeof(chain), "fwd.%s.eth0", inst);
		rc = check_chain(f, chain, NFT_HOOK_FORWARD, host, mac, ip,
		    want, why, cap);
	}
	free(want);
	return rc;
}
