/* firewall.c - the host firewall (see firewall.h). */
#include "host/firewall.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/nft.h"
#include "net/rtnl.h"

#define FW_BUF (32u << 10)
#define ETH_P_ARP_BE 0x0608	/* 0x0806 in network order, as stored */

static const struct nft_chain_spec input_chain = {
	"input", "filter", NFT_HOOK_INPUT, -5, NFT_V_ACCEPT
};
static const struct nft_chain_spec snat_chain = {
	"expose-snat", "nat", NFT_HOOK_POSTROUTING, 110, -1
};
static const struct nft_chain_spec forward_chain = {
	"forward", "filter", NFT_HOOK_FORWARD, -200, NFT_V_ACCEPT
};

static void
rule_port(struct nft_batch *bt, const char *br, uint8_t proto, uint16_t port,
    const char *comment)
{
	nft_rule_begin(bt, NFT_FAM_INET, FW_TABLE, "input", comment);
	nft_match_ifname(bt, NFT_META_IIFNAME, br);
	nft_match_port(bt, proto, 1, port);
	nft_verdict(bt, NFT_V_ACCEPT, NULL);
	nft_rule_end(bt);
}

static void
build_inet(struct nft_batch *bt, const char *br)
{
	unsigned char lo[4] = { 127, 0, 0, 0 };

	nft_table_add(bt, NFT_FAM_INET, FW_TABLE, 0);
	nft_chain_reset(bt, NFT_FAM_INET, FW_TABLE, &input_chain);
	nft_rule_begin(bt, NFT_FAM_INET, FW_TABLE, "input",
	    "box: replies to connections the host opened");
	nft_match_ifname(bt, NFT_META_IIFNAME, br);
	nft_match_ct_state(bt, NFT_CTSTATE_ESTABLISHED | NFT_CTSTATE_RELATED);
	nft_verdict(bt, NFT_V_ACCEPT, NULL);
	nft_rule_end(bt);
	rule_port(bt, br, IPPROTO_UDP, 53, "box: DNS from boxes");
	rule_port(bt, br, IPPROTO_TCP, 53, "box: DNS over TCP from boxes");
	rule_port(bt, br, IPPROTO_UDP, 67, "box: DHCP from boxes");
	nft_rule_begin(bt, NFT_FAM_INET, FW_TABLE, "input",
	    "box: a box never reaches the host");
	nft_match_ifname(bt, NFT_META_IIFNAME, br);
	nft_verdict(bt, NFT_V_DROP, NULL);
	nft_rule_end(bt);

	nft_chain_reset(bt, NFT_FAM_INET, FW_TABLE, &snat_chain);
	nft_rule_begin(bt, NFT_FAM_INET, FW_TABLE, "expose-snat",
	    "box: loopback-sourced expose traffic leaves as the gateway");
	nft_match_ifname(bt, NFT_META_OIFNAME, br);
	nft_match_addr(bt, 0, lo, 4, 8);
	nft_expr_masq(bt);
	nft_rule_end(bt);
}

/* arp sender/target protocol address in net/24 (offsets 14 and 24). */
static void
arp_in_net(struct nft_batch *bt, uint32_t off, const unsigned char net[4])
{
	nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, off, 3, NFT_REG_1);
	nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, net, 3);
}

static void
build_bridge(struct nft_batch *bt, const char *br, int brname, uint32_t net)
{
	unsigned char n[4];
	uint16_t arp = ETH_P_ARP_BE;

	nft_table_add(bt, NFT_FAM_BRIDGE, FW_TABLE, 0);
	nft_chain_reset(bt, NFT_FAM_BRIDGE, FW_TABLE, &forward_chain);
	if (brname) {
		nft_rule_begin(bt, NFT_FAM_BRIDGE, FW_TABLE, "forward",
		    "box: no frame from one box to another");
		nft_match_ifname(bt, NFT_META_BRI_IIFNAME, br);
		nft_match_ifname(bt, NFT_META_BRI_OIFNAME, br);
		nft_verdict(bt, NFT_V_DROP, NULL);
		nft_rule_end(bt);
		return;
	}
	n[0] = (unsigned char)(net >> 24);
	n[1] = (unsigned char)(net >> 16);
	n[2] = (unsigned char)(net >> 8);
	n[3] = 0;
	nft_rule_begin(bt, NFT_FAM_BRIDGE, FW_TABLE, "forward",
	    "box: no IPv4 from one box to another");
	nft_match_addr(bt, 0, n, 4, 24);
	nft_match_addr(bt, 1, n, 4, 24);
	nft_verdict(bt, NFT_V_DROP, NULL);
	nft_rule_end(bt);
	nft_rule_begin(bt, NFT_FAM_BRIDGE, FW_TABLE, "forward",
	    "box: no ARP from one box to another");
	nft_expr_meta(bt, NFT_META_PROTOCOL, NFT_REG_1);
	nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &arp, 2);
	arp_in_net(bt, 14, n);
	arp_in_net(bt, 24, n);
	nft_verdict(bt, NFT_V_DROP, NULL);
	nft_rule_end(bt);
}

static int
count_table(struct nl_sock *s, int family, struct nft_chain_info *ch,
    size_t max, struct nft_rule_info *ru, size_t maxr, struct nft_table_info *ti,
    struct box_err *e)
{
	memset(ti, 0, sizeof(*ti));
	ti->chains = ch;
	ti->maxchains = max;
	ti->rules = ru;
	ti->maxrules = maxr;
	return nft_list_table(s, family, FW_TABLE, ti, e);
}

static const struct nft_chain_info *
chain_named(const struct nft_table_info *ti, const char *name)
{
	size_t i;

	for (i = 0; i < ti->nchains; i++)
		if (strcmp(ti->chains[i].name, name) == 0)
			return &ti->chains[i];
	return NULL;
}

static void
read_route_localnet(const char *br, struct fw_status *st)
{
	char key[96], v[8];
	struct box_err ignore;

	err_clear(&ignore);
	snprintf(key, sizeof(key), "net/ipv4/conf/%s/route_localnet", br);
	if (rtnl_sysctl_get(key, v, sizeof(v), &ignore) < 0)
		st->route_localnet = -1;
	else
		st->route_localnet = strcmp(v, "1") == 0;
}

static int
read_with(struct nl_sock *s, const char *br, struct fw_status *st,
    struct box_err *e)
{
	struct nft_chain_info ch[16];
	struct nft_rule_info ru[32];
	struct nft_table_info ti;
	const struct nft_chain_info *c;
	size_t i;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = count_table(s, NFT_FAM_INET, ch, 16, NULL, 0, &ti, e);
	if (rc < 0)
		return rc;
	st->inet_table = ti.exists;
	if ((c = chain_named(&ti, "input")) != NULL) {
		st->input_rules = c->nrules;
		st->input_ok = c->base && c->hook == NFT_HOOK_INPUT &&
		    c->prio == -5 && c->nrules == 5;
	}
	if ((c = chain_named(&ti, "expose-snat")) != NULL) {
		st->snat_rules = c->nrules;
		st->snat_ok = c->base && c->hook == NFT_HOOK_POSTROUTING &&
		    c->nrules == 1;
	}
	rc = count_table(s, NFT_FAM_BRIDGE, ch, 16, ru, 32, &ti, e);
	if (rc < 0)
		return rc;
	st->bridge_table = ti.exists;
	if ((c = chain_named(&ti, "forward")) != NULL)
		st->forward_rules = c->nrules;
	st->sibling = FW_SIBLING_ABSENT;
	for (i = 0; i < ti.nrules; i++) {
		if (strcmp(ti.rules[i].chain, "forward") != 0)
			continue;
		if (strstr(ti.rules[i].comment, "no frame") != NULL)
			st->sibling = FW_SIBLING_BRNAME;
		else if (strstr(ti.rules[i].comment, "no IPv4") != NULL &&
		    st->sibling == FW_SIBLING_ABSENT)
			st->sibling = FW_SIBLING_SUBNET;
	}
	read_route_localnet(br, st);
	return 0;
}

static int apply_with(struct nl_sock *s, const char *br, uint32_t net,
    struct fw_status *st, struct box_err *e);

/* What a netfilter socket is used for: reading, or applying and reading. */
struct fw_job {
	const char *br;
	uint32_t net;
	int apply;
	struct fw_status *st;
};

/* The socket is heap-held (32 KiB receive buffer) and closed last. */
static int
with_socket(struct fw_job *job, struct box_err *e)
{
	struct nl_sock *s = malloc(sizeof(*s));
	int rc;

	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = nl_open(s, NETLINK_NETFILTER, e);
	if (rc == 0) {
		rc = job->apply ? apply_with(s, job->br, job->net, job->st, e) :
		    read_with(s, job->br, job->st, e);
		nl_close(s);
	}
	free(s);
	return rc;
}

int
fw_read(const char *br, struct fw_status *st, struct box_err *e)
{
	struct fw_job job = { br, 0, 0, st };

	return with_socket(&job, e);
}

static int
send_batch(struct nl_sock *s, const char *br, uint32_t net, int brname,
    struct box_err *e)
{
	unsigned char *buf = malloc(FW_BUF);
	struct nft_batch *bt = malloc(sizeof(*bt));
	int rc;

	if (buf == NULL || bt == NULL) {
		free(buf);
		free(bt);
		return err_set(e, -ENOMEM, "out of memory");
	}
	nft_batch_init(bt, buf, FW_BUF, s->seq);
	build_inet(bt, br);
	if (brname || net != 0)
		build_bridge(bt, br, brname, net);
	else
		nft_table_destroy(bt, NFT_FAM_BRIDGE, FW_TABLE);
	rc = nft_batch_send(s, bt, NULL, e);
	free(buf);
	free(bt);
	return rc;
}

static int
apply_with(struct nl_sock *s, const char *br, uint32_t net,
    struct fw_status *st, struct box_err *e)
{
	struct nl_error why;
	char kernel[200], key[96];
	int brname, rc;

	brname = nft_probe_brname(s, &why, e);
	if (brname < 0)
		return brname;
	rc = send_batch(s, br, net, brname, e);
	if (rc < 0) {
		err_context(e, "the kernel refused the firewall (nothing "
		    "changed)");
		return rc;
	}
	snprintf(key, sizeof(key), "net/ipv4/conf/%s/route_localnet", br);
	/* An absent interface is not fatal here: the status reports it. */
	(void)rtnl_sysctl_set(key, "1", NULL);
	rc = read_with(s, br, st, e);
	if (rc < 0)
		return rc;
	if (brname)
		snprintf(st->sibling_note, sizeof(st->sibling_note),
		    "every frame between two boxes is dropped (meta "
		    "ibrname/obrname)");
	else
		snprintf(st->sibling_note, sizeof(st->sibling_note),
		    "this kernel refuses meta ibrname/obrname (%s), so the "
		    "drop matches box-to-box IPv4 and ARP by subnet; other "
		    "frames rely on port isolation alone",
		    nl_error_str(&why, kernel, sizeof(kernel)));
	if (!st->input_ok || !st->snat_ok ||
	    st->sibling != (brname ? FW_SIBLING_BRNAME :
	    net ? FW_SIBLING_SUBNET : FW_SIBLING_ABSENT))
		return err_set(e, -EBOX_PROTO, "the firewall read back from "
		    "the kernel differs from what was applied (input %u "
		    "rules, expose-snat %u, bridge forward %u)",
		    st->input_rules, st->snat_rules, st->forward_rules);
	return 0;
}

int
fw_apply(const char *br, uint32_t net, struct fw_status *st,
    struct box_err *e)
{
	struct fw_job job = { br, net, 1, st };

	return with_socket(&job, e);
}

int
fw_remove(struct box_err *e)
{
	static const struct { int fam; const char *name; } tables[] = {
		{ NFT_FAM_INET, "box" }, { NFT_FAM_BRIDGE, "box" },
		{ NFT_FAM_INET, "claudebox" }, { NFT_FAM_BRIDGE, "claudebox" },
	};
	struct nl_sock *s = malloc(sizeof(*s));
	unsigned char *buf = malloc(4096);
	struct nft_batch *bt = malloc(sizeof(*bt));
	size_t i;
	int rc;

	if (s == NULL || buf == NULL || bt == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	rc = nl_open(s, NETLINK_NETFILTER, e);
	if (rc < 0)
		goto out;
	nft_batch_init(bt, buf, 4096, s->seq);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		nft_table_destroy(bt, tables[i].fam, tables[i].name);
	rc = nft_batch_send(s, bt, NULL, e);
	nl_close(s);
out:
	free(s);
	free(buf);
	free(bt);
	return rc;
}
