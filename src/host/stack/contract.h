/*
 * contract.h - the host contract as data: every object name, every key of
 * the bridge, the ACL and the profile, and every nftables rule box owns.
 *
 * The table itself is contract.c, written to be reviewed as one file.
 * Everything that touches the host stack goes through it:
 *   setup-host      creates and converges the Incus objects from it
 *   firewall apply  sends its rules (contract_emit) as one batch
 *   teardown-host   removes what it names
 *   doctor, firewall show
 *                   read the kernel's rules back and compare each rule's
 *                   expressions, by content, with what contract_emit
 *                   would send (contract_expect) - never by count or by
 *                   comment alone.
 * A change to the contract is an edit of contract.c and of the drill
 * probe that proves it.
 */
#ifndef BOX_CONTRACT_H
#define BOX_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "model/names.h"
#include "model/profile.h"
#include "net/nft.h"

/* --- object names: model/names.h (box/ reads them too) ------------------- */

/* --- Incus keys -------------------------------------------------------------- */

/* struct contract_key and the profile's NIC and root disk: model/profile.h
 * (box/ reads them too). */

extern const struct contract_key contract_bridge_keys[];
extern const size_t contract_nbridge_keys;

/* The ACL's egress rules, in order: the gateway allow, then drops. */
struct contract_acl_rule {
	const char *action;		/* "allow" / "drop" */
	const char *destination;	/* CIDR; NULL: the gateway /32 */
	const char *description;	/* NULL: none */
};
extern const struct contract_acl_rule contract_acl_egress[];
extern const size_t contract_nacl_egress;

/*
 * The lease hook dnsmasq runs at each lease change (dhcp-script): a
 * root-owned script beside the boot copy of box that runs
 * `box firewall sync`, which re-feeds the port bindings from Incus.
 */
#define CONTRACT_DHCP_HOOK	"/usr/local/libexec/box/box-dhcp-hook"

/* The lines of raw.dnsmasq before the pinned "server=" lines. */
extern const char *const contract_dnsmasq_lines[];
extern const size_t contract_ndnsmasq_lines;
/* The lines that hand DNS to box's own resolver (after the server=
 * lines), when the host runs it. */
extern const char *const contract_resolver_dnsmasq_lines[];
extern const size_t contract_nresolver_dnsmasq_lines;

/*
 * The bridge's ARP sysctls (net/ipv4/conf/<bridge>/<name>), beside the
 * bridge rule that answers ARP for the gateway only: the kernel itself
 * answers on the bridge only for addresses the bridge holds, and asks
 * from the bridge's own address.  The value in force is the larger of
 * conf/all's and the bridge's (for both).
 */
struct contract_sysctl {
	const char *name, *value, *why;
};
extern const struct contract_sysctl contract_arp_sysctls[];
extern const size_t contract_narp_sysctls;

/* --- nftables ------------------------------------------------------------------- */

/* Which kernel a rule is for. */
enum contract_when {
	CW_ALWAYS = 0,
	CW_BRNAME,	/* the kernel takes meta ibrname/obrname */
	CW_NO_BRNAME,	/* it does not: the subnet fallback */
};

struct contract_chain {
	int family;			/* NFT_FAM_INET / NFT_FAM_BRIDGE */
	struct nft_chain_spec spec;
	const char *why;
};
extern const struct contract_chain contract_chains[];
extern const size_t contract_nchains;

/*
 * The sets box's rules look up (created by contract_emit, kept across
 * applies; their elements are fed by host/stack/pins.c and by the
 * kernel's own dynset).  The bridge sets bind every port of boxnet to the
 * MAC and address Incus pinned for the instance behind it.
 */
#define CONTRACT_SET_CONNS	"box_conns"	/* inet: ip saddr -> ct count */
#define CONTRACT_SET_MACS	"box_macs"	/* every pinned MAC */
#define CONTRACT_SET_CHADDRS	"box_chaddrs"	/* the same, as DHCP chaddr */
#define CONTRACT_SET_SELF	"box_self"	/* mac . mac (chaddr = sender) */
#define CONTRACT_SET_PORTS	"box_ports"	/* port . mac */
#define CONTRACT_SET_PORTNAMES	"box_portnames"	/* port */
#define CONTRACT_SET_PINS	"box_pins"	/* port . mac . ipv4 */

struct contract_set {
	int family;
	struct nft_set_spec spec;
	const unsigned char *udata;	/* nft's typeof text, or NULL */
	size_t udata_len;
	const char *why;
};
extern const struct contract_set contract_sets[];
extern const size_t contract_nsets;

/* Key sizes of the bridge sets, as nft lays concatenations out (each
 * part rounded up to 4 bytes). */
#define CONTRACT_KEY_PORT	16	/* ifname */
#define CONTRACT_KEY_MAC	8	/* 6, padded */
#define CONTRACT_KEY_PORTMAC	(CONTRACT_KEY_PORT + CONTRACT_KEY_MAC)
#define CONTRACT_KEY_PIN	(CONTRACT_KEY_PORTMAC + 4)

/*
 * The per-box connection cap (ct count over it drops a box's new
 * connection), when neither BOX_CONN_MAX at setup-host nor
 * `box firewall apply --conn-max` says otherwise: 128 boxes at the cap
 * fill this kernel's default table (262,144).
 */
#define CONTRACT_CONN_MAX	2048u
#define CONTRACT_CONN_MAX_LIMIT	1000000u

/* A destination the forward chain drops that the host decides: its
 * uplink's prefixes (from the kernel) and the operator's blocklist. */
#define CONTRACT_MAXNAMED	64
struct contract_prefix {
	uint32_t addr;		/* host order, host bits clear */
	uint8_t plen;
	char comment[NFT_COMMENT_MAX];	/* "box: not <prefix> (<why>)" */
};

/* What a rule is for a given host: the bridge and its /24. */
struct contract_env {
	const char *bridge;	/* CONTRACT_BRIDGE */
	uint32_t net;		/* a.b.c.0, host order; never 0 */
	int brname;		/* the kernel takes ibrname/obrname */
	uint32_t conn_max;	/* 0: CONTRACT_CONN_MAX */
	const struct contract_prefix *named;	/* dropped, in this order */
	size_t nnamed;
};

/*
 * One named destination: prefix a.b.c.d/plen (host order, host bits
 * cleared here) with its reason ("this host's uplink", "the operator's
 * blocklist") into p.  -EINVAL for a plen over 32.
 */
int contract_prefix_set(struct contract_prefix *p, uint32_t addr,
    unsigned plen, const char *why);

/* The i-th rule for env: its family, chain and comment. */
struct contract_rule_ref {
	int family;
	const char *chain;
	const char *comment;
};
int contract_rule_ref(const struct contract_env *env, size_t i,
    struct contract_rule_ref *ref);

/*
 * Write the whole firewall for env into bt: our tables created if
 * missing, each of our chains reset to its spec and refilled in order.
 * Nothing outside table inet box and table bridge box is named.
 */
int contract_emit(struct nft_batch *bt, const struct contract_env *env);

/*
 * What the kernel must hold for env, rule by rule: expected[i] gets the
 * family-independent parse (chain, comment, canonical expressions) of the
 * i-th rule exactly as contract_emit() sends it.  n is the size of
 * expected; returns the number of rules or a negative error.
 */
int contract_expect(const struct contract_env *env,
    struct nft_rule_info *expected, size_t n);

/*
 * raw.dnsmasq for the resolvers (each already validated as an address):
 * the fixed lines, then one server= line each.  -ENOSPC when it does not
 * fit.
 */
int contract_dnsmasq(const char *const *servers, int n, char *buf,
    size_t cap);

#endif
