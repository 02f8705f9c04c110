/*
 * contract.c - the host contract, as data (see contract.h).
 *
 * What a box may do, and the layer that enforces each clause:
 *
 *   the internet           Incus NAT (ipv4.nat) on boxnet; DNS only
 *                          through the gateway's dnsmasq, which asks only
 *                          the pinned resolvers (raw.dnsmasq)
 *   not the host           inet box input: from boxnet only the gateway
 *                          address, only DNS and DHCP; 127/8 never
 *   not the LAN            inet box forward: private, CGNAT, link-local,
 *                          loopback, multicast, reserved destinations
 *                          dropped; the box-isolate ACL as a second layer
 *   not another box        port isolation on the NIC; bridge box forward;
 *                          inet box forward (routed box -> box)
 *   not another box's name dns.mode=none, dhcp-ignore-names, no-hosts
 *   no IPv6                ipv6.address=none; IPv6 dropped in inet box
 *                          input and forward; the NIC's ipv6 filter
 *   no forged identity     the NIC's mac/ipv4/ipv6 filtering (Incus writes
 *                          per-port rules: only the box's own MAC and
 *                          leased address may leave it); inet box forward
 *                          drops any source outside the subnet as well
 *   no inbound path        the ACL's ingress default drop; inet box
 *                          forward drops what is not a reply; doors are
 *                          proxies listening on the host's 127.0.0.1
 */
#include "host/stack/contract.h"
#include "host/stack/contract_test.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Incus keys ---------------------------------------------------------------- */

const struct contract_key contract_bridge_keys[] = {
	{ "ipv4.address", NULL, CV_GATEWAY_CIDR,
	  "the bridge's own /24, never re-addressed" },
	{ "ipv4.nat", "true", CV_FIXED, "boxes reach the internet through NAT" },
	{ "ipv4.dhcp", "true", CV_FIXED,
	  "leases are what the NIC filter binds a box to" },
	{ "ipv6.address", "none", CV_FIXED, "no IPv6 on the bridge" },
	{ "ipv6.nat", "false", CV_FIXED, "no IPv6 NAT either" },
	{ "dns.mode", "none", CV_FIXED,
	  "Incus registers no box names in dnsmasq" },
	{ "raw.dnsmasq", NULL, CV_DNSMASQ,
	  "only the pinned resolvers; no host names, no lease names" },
	{ "security.acls", CONTRACT_ACL, CV_FIXED, "the egress ACL" },
	{ "security.acls.default.egress.action", "allow", CV_FIXED,
	  "what the ACL does not drop is the internet" },
	{ "security.acls.default.ingress.action", "drop", CV_FIXED,
	  "nothing opens a connection into a box" },
};
const size_t contract_nbridge_keys =
    sizeof(contract_bridge_keys) / sizeof(contract_bridge_keys[0]);

const struct contract_acl_rule contract_acl_egress[] = {
	{ "allow", NULL, "the gateway: DNS and DHCP" },
	{ "drop", "10.0.0.0/8", NULL },
	{ "drop", "172.16.0.0/12", NULL },
	{ "drop", "192.168.0.0/16", NULL },
	{ "drop", "169.254.0.0/16", NULL },
	{ "drop", "100.64.0.0/10", NULL },
};
const size_t contract_nacl_egress =
    sizeof(contract_acl_egress) / sizeof(contract_acl_egress[0]);

/*
 * dnsmasq: never read the host's resolv.conf or /etc/hosts (the host's LAN
 * and VPN names would resolve in every box); never forward a plain name;
 * never register the names boxes send with DHCP (dns.mode=none stops
 * Incus's records, not the names in the leases).
 */
const char *const contract_dnsmasq_lines[] = {
	"no-resolv", "no-hosts", "domain-needed", "dhcp-ignore-names",
	/* An egress allowlist holds an address for an hour after the last
	 * answer or connection (host/stack/egress_fw.c); dnsmasq adds addresses
	 * only from upstream answers, never from its cache, so no answer may
	 * be served from the cache for long. */
	("max-cache-ttl=" CONTRACT_DNS_CACHE_TTL),
	/* DHCP serves only what Incus pinned: every instance's MAC is in
	 * its dnsmasq host file ("known"); a DISCOVER from an invented MAC
	 * gets no answer, so no box can drain the pool. */
	"dhcp-ignore=tag:!known",
	/* Each lease change (renewals too: a restarted box renews on a new
	 * port) re-feeds the port bindings (host/stack/pins.c). */
	"script-on-renewal",
	("dhcp-script=" CONTRACT_DHCP_HOOK),
};
const size_t contract_ndnsmasq_lines =
    sizeof(contract_dnsmasq_lines) / sizeof(contract_dnsmasq_lines[0]);

/*
 * With box's own resolver (the default, host/resolver/): dnsmasq
 * serves DHCP only, and names the gateway as the resolver (0.0.0.0: its
 * own address), which it no longer does by itself without DNS.
 */
const char *const contract_resolver_dnsmasq_lines[] = {
	"port=0",
	"dhcp-option=option:dns-server,0.0.0.0",
};
const size_t contract_nresolver_dnsmasq_lines =
    sizeof(contract_resolver_dnsmasq_lines) /
    sizeof(contract_resolver_dnsmasq_lines[0]);

const struct contract_sysctl contract_arp_sysctls[] = {
	{ "arp_ignore", "1", "ARP answered only for an address the bridge "
	  "holds (not the uplink's, not another bridge's)" },
	{ "arp_announce", "2", "ARP asked from the bridge's own address, never "
	  "another interface's" },
};
const size_t contract_narp_sysctls =
    sizeof(contract_arp_sysctls) / sizeof(contract_arp_sysctls[0]);

/* --- nftables: chains ---------------------------------------------------------------- */

/*
 * Priorities: -5 runs before Incus's own filter chains (priority 0), whose
 * accepts cannot undo our drops: a drop in any base chain is final.
 */
const struct contract_chain contract_chains[] = {
	{ NFT_FAM_INET, { "input", "filter", NFT_HOOK_INPUT, -5, NFT_V_ACCEPT },
	  "what a box may send to the host itself" },
	{ NFT_FAM_INET, { "forward", "filter", NFT_HOOK_FORWARD, -5,
	  NFT_V_ACCEPT },
	  "what a box may send through the host, and what may reach it" },
	{ NFT_FAM_INET, { "expose-snat", "nat", NFT_HOOK_POSTROUTING, 110, -1 },
	  "a VM door's loopback-sourced traffic leaves as the gateway" },
	{ NFT_FAM_BRIDGE, { "forward", "filter", NFT_HOOK_FORWARD, -200,
	  NFT_V_ACCEPT },
	  "frames between two ports of the bridge" },
	{ NFT_FAM_BRIDGE, { "prerouting", "filter", NFT_HOOK_PREROUTING, -200,
	  NFT_V_ACCEPT },
	  "every frame a port sends, before the bridge learns its MAC" },
};
const size_t contract_nchains =
    sizeof(contract_chains) / sizeof(contract_chains[0]);

/* --- nftables: sets ------------------------------------------------------------------ */

/*
 * nft's `typeof` userdata for the two sets keyed on the DHCP chaddr (a raw
 * payload, which has no type of its own): copied from what nft 1.0.6
 * sends for `typeof ether saddr . @th,288,48` and `typeof @th,288,48`, so
 * `nft list` prints a declaration that nft -f loads again.
 */
static const unsigned char udata_self[] = {
	0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x03, 0x46, 0x00, 0x04, 0x0d, 0x00,
	0x00, 0x00, 0x01, 0x3e, 0x00, 0x14, 0x00, 0x04, 0x07, 0x00, 0x00, 0x00,
	0x01, 0x0c, 0x00, 0x04, 0x11, 0x00, 0x00, 0x00, 0x01, 0x04, 0x02, 0x00,
	0x00, 0x00, 0x01, 0x26, 0x00, 0x04, 0x07, 0x00, 0x00, 0x00, 0x01, 0x1e,
	0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x04, 0x03, 0x00, 0x00, 0x00, 0x03, 0x04, 0x20, 0x01, 0x00, 0x00,
	0x04, 0x04, 0x30, 0x00, 0x00, 0x00,
};
static const unsigned char udata_chaddr[] = {
	0x00, 0x04, 0x02, 0x00, 0x00, 0x00, 0x03, 0x26, 0x00, 0x04, 0x07, 0x00,
	0x00, 0x00, 0x01, 0x1e, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x03, 0x00, 0x00, 0x00, 0x03, 0x04,
	0x20, 0x01, 0x00, 0x00, 0x04, 0x04, 0x30, 0x00, 0x00, 0x00,
};

#define PINS_MAX	4096	/* instances on the bridge we bind */

const struct contract_set contract_sets[] = {
	{ NFT_FAM_INET, { CONTRACT_SET_CONNS, NFT_TYPE_IPV4_ADDR, 4,
	  NFT_SET_EVAL, 0, 65535, 0, 0, NULL }, NULL, 0,
	  "each box's connections, counted by conntrack (ct count)" },
	{ NFT_FAM_BRIDGE, { CONTRACT_SET_MACS, NFT_TYPE_ETHER_ADDR, 6, 0, 0,
	  PINS_MAX, 0, 0, NULL }, NULL, 0,
	  "every MAC Incus pinned on the bridge, running or not" },
	{ NFT_FAM_BRIDGE, { CONTRACT_SET_CHADDRS, NFT_TYPE_INTEGER, 6, 0, 0,
	  PINS_MAX, 0, 0, NULL }, udata_chaddr, sizeof(udata_chaddr),
	  "the same MACs, as a DHCP message's chaddr" },
	{ NFT_FAM_BRIDGE, { CONTRACT_SET_SELF,
	  NFT_TYPE_CONCAT2(NFT_TYPE_ETHER_ADDR, NFT_TYPE_INTEGER), 16, 0, 0,
	  PINS_MAX, 0, 0, NULL }, udata_self, sizeof(udata_self),
	  "mac . mac: a DHCP message whose chaddr is its sender's" },
	{ NFT_FAM_BRIDGE, { CONTRACT_SET_PORTS,
	  NFT_TYPE_CONCAT2(NFT_TYPE_IFNAME, NFT_TYPE_ETHER_ADDR),
	  CONTRACT_KEY_PORTMAC, 0, 0, PINS_MAX, 0, 0, NULL }, NULL, 0,
	  "each running instance's port and its pinned MAC" },
	{ NFT_FAM_BRIDGE, { CONTRACT_SET_PORTNAMES, NFT_TYPE_IFNAME,
	  CONTRACT_KEY_PORT, 0, 0, PINS_MAX, 0, 0, NULL }, NULL, 0,
	  "the ports bound so far" },
	{ NFT_FAM_BRIDGE, { CONTRACT_SET_PINS,
	  NFT_TYPE_CONCAT3(NFT_TYPE_IFNAME, NFT_TYPE_ETHER_ADDR,
	  NFT_TYPE_IPV4_ADDR), CONTRACT_KEY_PIN, 0, 0, PINS_MAX, 0, 0, NULL }, NULL, 0,
	  "each running instance's port, MAC and address" },
};
const size_t contract_nsets = sizeof(contract_sets) / sizeof(contract_sets[0]);

/* --- nftables: rules ----------------------------------------------------------------- */

/* One match or statement of a rule. */
enum cm_kind {
	CM_END = 0,
	CM_IIF,			/* iifname <bridge> */
	CM_OIF,			/* oifname <bridge> */
	CM_BRI_IIF,		/* meta ibrname <bridge> */
	CM_BRI_OIF,		/* meta obrname <bridge> */
	CM_CTSTATE,		/* ct state & bits != 0 */
	CM_DPORT,		/* <proto> dport <port> */
	CM_DADDR,		/* ip daddr <addr> */
	CM_SADDR,		/* ip saddr <addr> */
	CM_SADDR_NOT,		/* ip saddr != <addr> */
	CM_NFPROTO,		/* meta nfproto <proto> */
	CM_ARP_NET,		/* ether type arp, target in NET */
	CM_MASQ,		/* masquerade (the statement) */
	CM_CONNCAP,		/* add @box_conns { ip saddr ct count over N } */
	CM_GIADDR,		/* @th,256,32 != 0 (a DHCP relay address) */
	CM_CHADDR_NOT_SENDER,	/* @th,288,48 @box_chaddrs
				   ether saddr . @th,288,48 != @box_self */
	CM_NEW_PORT,		/* iifname != @box_portnames */
	CM_PINNED_MAC,		/* ether saddr @box_macs */
	CM_DISCOVER_REQUEST,	/* option 53 first, DISCOVER or REQUEST */
	CM_PORT_NOT_MAC,	/* iifname . ether saddr != @box_ports */
	CM_IP_NOT_PINNED,	/* ip saddr NET iifname . ether saddr .
				   ip saddr != @box_pins */
	CM_ARP_NOT_PINNED,	/* arp saddr ip NET iifname . arp saddr ether
				   . arp saddr ip != @box_pins */
	CM_ARP_NOT_GW,		/* arp saddr ip NET arp daddr ip != GW */
	CM_DHCP_CLIENT,		/* udp sport 68 udp dport 67 (one load) */
	CM_BOUND_PORT,		/* iifname @box_portnames */
	CM_BOUND_OUT,		/* oifname @box_portnames */
	CM_IP_PORT_NOT_PINNED,	/* meta protocol ip iifname . ether saddr .
				   ip saddr != @box_pins, any source */
	CM_ARP_PORT_NOT_PINNED,	/* ether type arp iifname . arp saddr ether
				   . arp saddr ip != @box_pins, any sender */
};

/* Addresses: a literal prefix, or one derived from the bridge's /24. */
enum ca_kind { CA_LIT = 0, CA_GW, CA_NET, CA_BCAST, CA_NAMED };

struct cm {
	uint8_t kind, proto, addr, plen;
	uint16_t port;
	unsigned char lit[4];
	uint32_t bits;
};

#define CONTRACT_MAXM 7

struct crule {
	int family;
	const char *chain;
	int when;		/* enum contract_when; CW_NAMED: one rule
				   per env->named, its address and comment */
	const char *comment;
	struct cm m[CONTRACT_MAXM];
	int verdict;		/* NFT_V_ACCEPT / NFT_V_DROP; -9: none */
};

#define NOVERDICT (-9)
#define IIF		{ .kind = CM_IIF }
#define OIF		{ .kind = CM_OIF }
#define BRI_IIF		{ .kind = CM_BRI_IIF }
#define BRI_OIF		{ .kind = CM_BRI_OIF }
#define CT(b)		{ .kind = CM_CTSTATE, .bits = (b) }
#define UDP(p)		{ .kind = CM_DPORT, .proto = IPPROTO_UDP, .port = (p) }
#define DHCP_CLIENT	{ .kind = CM_DHCP_CLIENT }
#define TCP(p)		{ .kind = CM_DPORT, .proto = IPPROTO_TCP, .port = (p) }
#define TO_GW		{ .kind = CM_DADDR, .addr = CA_GW }
#define TO_BCAST	{ .kind = CM_DADDR, .addr = CA_BCAST }
#define TO_NET		{ .kind = CM_DADDR, .addr = CA_NET }
#define TO(a, b, c, d, l) \
	{ .kind = CM_DADDR, .addr = CA_LIT, .lit = { a, b, c, d }, .plen = l }
#define FROM_LOOPBACK \
	{ .kind = CM_SADDR, .addr = CA_LIT, .lit = { 127, 0, 0, 0 }, .plen = 8 }
#define FROM_NET	{ .kind = CM_SADDR, .addr = CA_NET }
#define NOT_FROM_NET	{ .kind = CM_SADDR_NOT, .addr = CA_NET }
#define IPV6		{ .kind = CM_NFPROTO, .proto = NFT_FAM_IPV6 }
#define ARP_IN_NET	{ .kind = CM_ARP_NET }
#define MASQ		{ .kind = CM_MASQ }
#define TO_NAMED	{ .kind = CM_DADDR, .addr = CA_NAMED }
#define FROM_ANY	{ .kind = CM_SADDR, .addr = CA_LIT, .plen = 32 }
#define CT_NEW		CT(NFT_CTSTATE_NEW)
#define CONNCAP		{ .kind = CM_CONNCAP }
#define GIADDR		{ .kind = CM_GIADDR }
#define CHADDR_NOT_SENDER { .kind = CM_CHADDR_NOT_SENDER }
#define NEW_PORT	{ .kind = CM_NEW_PORT }
#define PINNED_MAC	{ .kind = CM_PINNED_MAC }
#define DISCOVER_REQUEST { .kind = CM_DISCOVER_REQUEST }
#define PORT_NOT_MAC	{ .kind = CM_PORT_NOT_MAC }
#define IP_NOT_PINNED	{ .kind = CM_IP_NOT_PINNED }
#define ARP_NOT_PINNED	{ .kind = CM_ARP_NOT_PINNED }
#define ARP_NOT_GW	{ .kind = CM_ARP_NOT_GW }
#define BOUND_PORT	{ .kind = CM_BOUND_PORT }
#define BOUND_OUT	{ .kind = CM_BOUND_OUT }
#define IP_PORT_NOT_PINNED  { .kind = CM_IP_PORT_NOT_PINNED }
#define ARP_PORT_NOT_PINNED { .kind = CM_ARP_PORT_NOT_PINNED }
#define CW_NAMED	100
#define EST_REL		(NFT_CTSTATE_ESTABLISHED | NFT_CTSTATE_RELATED)

#define INET		NFT_FAM_INET
#define BRIDGE		NFT_FAM_BRIDGE
#define DROP		NFT_V_DROP
#define ACCEPT		NFT_V_ACCEPT

/*
 * The ruleset.  Within a chain the order is the order here.  Destinations
 * the forward chain drops: every range that is not the public internet,
 * except the documentation ranges (192.0.2/24, 198.51.100/24,
 * 203.0.113/24), which stay reachable because the drill models the
 * internet with them and no real host routes them.
 */
static const struct crule rules[] = {
	/* inet box input: a box reaches the host only as its resolver and
	 * DHCP server, at the gateway address.  Nothing else, IPv6 and 127/8
	 * included: the last rule drops every other packet from the bridge. */
	{ INET, "input", CW_ALWAYS, "box: replies to connections the host opened",
	  { IIF, CT(EST_REL) }, ACCEPT },
	{ INET, "input", CW_ALWAYS, "box: a box's share of conntrack is capped",
	  { IIF, CT_NEW, CONNCAP }, DROP },
	{ INET, "input", CW_ALWAYS, "box: DNS to the gateway",
	  { IIF, TO_GW, UDP(53) }, ACCEPT },
	{ INET, "input", CW_ALWAYS, "box: DNS over TCP to the gateway",
	  { IIF, TO_GW, TCP(53) }, ACCEPT },
	{ INET, "input", CW_ALWAYS, "box: DHCP to the gateway",
	  { IIF, TO_GW, UDP(67) }, ACCEPT },
	{ INET, "input", CW_ALWAYS, "box: DHCP broadcast",
	  { IIF, TO_BCAST, UDP(67) }, ACCEPT },
	{ INET, "input", CW_ALWAYS, "box: a box never reaches the host",
	  { IIF }, DROP },

	/* inet box forward: out of a box, then into one. */
	{ INET, "forward", CW_ALWAYS, "box: no IPv6 from a box",
	  { IIF, IPV6 }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: no IPv6 to a box",
	  { OIF, IPV6 }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: a box sends only from its subnet",
	  { IIF, NOT_FROM_NET }, DROP },
	/* What conntrack cannot place (an ICMP error or SCTP for no known
	 * connection) would leave un-NATed, with the box's own address. */
	{ INET, "forward", CW_ALWAYS, "box: nothing conntrack finds invalid "
	  "leaves a box",
	  { IIF, CT(NFT_CTSTATE_INVALID) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: a box's share of conntrack is capped",
	  { IIF, CT_NEW, CONNCAP }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: no routed traffic between boxes",
	  { IIF, OIF }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 0.0.0.0/8 (this network)",
	  { IIF, TO(0, 0, 0, 0, 8) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 10.0.0.0/8 (private)",
	  { IIF, TO(10, 0, 0, 0, 8) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 100.64.0.0/10 (CGNAT)",
	  { IIF, TO(100, 64, 0, 0, 10) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 127.0.0.0/8 (loopback)",
	  { IIF, TO(127, 0, 0, 0, 8) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 169.254.0.0/16 (link-local)",
	  { IIF, TO(169, 254, 0, 0, 16) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 172.16.0.0/12 (private)",
	  { IIF, TO(172, 16, 0, 0, 12) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 192.0.0.0/24 (IETF protocol)",
	  { IIF, TO(192, 0, 0, 0, 24) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 192.168.0.0/16 (private)",
	  { IIF, TO(192, 168, 0, 0, 16) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 198.18.0.0/15 (benchmarking)",
	  { IIF, TO(198, 18, 0, 0, 15) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 224.0.0.0/4 (multicast)",
	  { IIF, TO(224, 0, 0, 0, 4) }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: not 240.0.0.0/4 (reserved)",
	  { IIF, TO(240, 0, 0, 0, 4) }, DROP },
	/* Cloud platforms' host-only services in public space.  The others
	 * are in ranges dropped above: 169.254.169.254 (AWS, GCP, Azure IMDS,
	 * OpenStack, Oracle, DigitalOcean, Hetzner), 169.254.0.23 (Tencent),
	 * 100.100.100.200 (Alibaba, CGNAT space), fd00:ec2::254 (IPv6). */
	{ INET, "forward", CW_ALWAYS, "box: not 168.63.129.16 (Azure's host "
	  "platform service)",
	  { IIF, TO(168, 63, 129, 16, 32) }, DROP },
	/* The host's uplink prefixes and the operator's blocklist. */
	{ INET, "forward", CW_NAMED, NULL, { IIF, TO_NAMED }, DROP },
	{ INET, "forward", CW_ALWAYS, "box: each box's egress policy (chain "
	  CONTRACT_EGRESS_CHAIN ")",
	  { IIF }, NFT_V_JUMP },
	{ INET, "forward", CW_ALWAYS, "box: replies into a box",
	  { OIF, CT(EST_REL) }, ACCEPT },
	{ INET, "forward", CW_ALWAYS, "box: nothing else enters a box",
	  { OIF }, DROP },

	/* inet box expose-snat: a VM door (an Incus NAT proxy listening on
	 * the host's 127.0.0.1) sends from 127.0.0.1; it leaves as the
	 * gateway.  Containers' doors need no NAT at all. */
	{ INET, "expose-snat", CW_ALWAYS,
	  "box: loopback-sourced expose traffic leaves as the gateway",
	  { OIF, FROM_LOOPBACK, MASQ }, NOVERDICT },

	/* bridge box forward: no frame from one box to another.  Without
	 * meta ibrname (this kernel) the chain sees every bridge's frames,
	 * so it names boxnet's ports by the sets: no frame from or to a
	 * bound port (a port's only peer is the gateway, the bridge
	 * itself, which this hook never sees), whatever its ethertype or
	 * source.  A port not bound yet (started since the last sync, and
	 * never a DHCP client since) is held by the subnet: no IPv4 to a
	 * box's address, no ARP for one, whatever the source claims. */
	{ BRIDGE, "forward", CW_BRNAME, "box: no frame from one box to another",
	  { BRI_IIF, BRI_OIF }, DROP },
	{ BRIDGE, "forward", CW_NO_BRNAME, "box: no frame from a bound port "
	  "to another port", { BOUND_PORT }, DROP },
	{ BRIDGE, "forward", CW_NO_BRNAME, "box: no frame to a bound port "
	  "from another port", { BOUND_OUT }, DROP },
	{ BRIDGE, "forward", CW_NO_BRNAME, "box: no IPv4 from one box to another",
	  { TO_NET }, DROP },
	{ BRIDGE, "forward", CW_NO_BRNAME, "box: no ARP from one box to another",
	  { ARP_IN_NET }, DROP },

	/* bridge box prerouting: every port of the bridge is bound to the
	 * MAC and address Incus pinned for its instance, whatever the NIC's
	 * own filter keys say (a granted user can launch with them off).
	 * The sets are fed from Incus at each lease change and by box's
	 * verbs (host/stack/pins.c).  The bridge learns a MAC only after
	 * this chain, so a dropped frame moves no forwarding entry. */
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: no DHCP relay address",
	  { UDP(67), GIADDR }, DROP },
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a pinned MAC as DHCP chaddr "
	  "only from that MAC",
	  { UDP(67), CHADDR_NOT_SENDER }, DROP },
	/* A box started again has a new port: its first DISCOVER or
	 * REQUEST (from 0.0.0.0, with its own MAC) must pass for the lease
	 * event that binds the port.  RELEASE and DECLINE never do. */
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a pinned MAC's first DHCP from "
	  "a port not yet bound",
	  { NEW_PORT, FROM_ANY, UDP(67), PINNED_MAC, DISCOVER_REQUEST },
	  ACCEPT },
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a pinned MAC only from its "
	  "own port",
	  { PINNED_MAC, PORT_NOT_MAC }, DROP },
	/* A bound port (a running instance's, in box_portnames) sends IPv4
	 * and ARP only as its pinned MAC and address, whatever the source:
	 * an address outside the subnet too (with the NIC's ipv4_filtering
	 * off it would reach the host, and a sibling at layer 2).  The one
	 * unbound IPv4 is a DHCP client's, from 0.0.0.0:68 to :67 (a lease
	 * for a new address; its chaddr is held to the sender above). */
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a bound port's DHCP from "
	  "0.0.0.0:68",
	  { BOUND_PORT, FROM_ANY, DHCP_CLIENT }, ACCEPT },
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a bound port's IPv4 only with "
	  "its pinned MAC and address, from any source",
	  { BOUND_PORT, IP_PORT_NOT_PINNED }, DROP },
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a bound port's ARP only with "
	  "its pinned MAC and address, for any sender",
	  { BOUND_PORT, ARP_PORT_NOT_PINNED }, DROP },
	/* A port not bound yet (started since the last sync): nothing
	 * from the subnet's addresses but its first DHCP above.  Without
	 * meta ibrname (this kernel) a port of boxnet is told from another
	 * bridge's only by the sets, so this pair is scoped by the subnet. */
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a box's IPv4 only with its "
	  "pinned port, MAC and address",
	  { IP_NOT_PINNED }, DROP },
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a box's ARP only with its "
	  "pinned port, MAC and address",
	  { ARP_NOT_PINNED }, DROP },
	/* The host answers ARP on the bridge for the gateway only (not for
	 * its uplink or another bridge's address). */
	{ BRIDGE, "prerouting", CW_ALWAYS, "box: a box ARPs for the gateway "
	  "only",
	  { ARP_NOT_GW }, DROP },
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

/* --- building --------------------------------------------------------------------- */

static void
be32(uint32_t v, unsigned char out[4])
{
	out[0] = (unsigned char)(v >> 24);
	out[1] = (unsigned char)(v >> 16);
	out[2] = (unsigned char)(v >> 8);
	out[3] = (unsigned char)v;
}

/* How many rules row r stands for, for env: 0, 1, or env->nnamed. */
static size_t
applies(const struct crule *r, const struct contract_env *env)
{
	if (r->when == CW_NAMED)
		return env->nnamed;
	return r->when == CW_ALWAYS ||
	    (r->when == CW_BRNAME && env->brname) ||
	    (r->when == CW_NO_BRNAME && !env->brname);
}

/* Row r's k-th rule for env, in out (a named row takes its prefix and
 * comment from env->named[k]). */
static void
instance(const struct crule *r, const struct contract_env *env, size_t k,
    struct crule *out)
{
	size_t i;

	*out = *r;
	if (r->when != CW_NAMED)
		return;
	out->comment = env->named[k].comment;
	for (i = 0; i < CONTRACT_MAXM; i++)
		if (out->m[i].addr == CA_NAMED) {
			out->m[i].addr = CA_LIT;
			be32(env->named[k].addr, out->m[i].lit);
			out->m[i].plen = env->named[k].plen;
		}
}


/* The address and prefix a match names, for env. */
static void
resolve(const struct cm *m, const struct contract_env *env,
    unsigned char a[4], unsigned *plen)
{
	switch (m->addr) {
	case CA_GW:
		be32(env->net | 1, a);
		*plen = 32;
		break;
	case CA_NET:
		be32(env->net, a);
		*plen = 24;
		break;
	case CA_BCAST:
		memset(a, 255, 4);
		*plen = 32;
		break;
	default:
		memcpy(a, m->lit, 4);
		*plen = m->plen;
	}
}

#define ETH_P_ARP_BE 0x0608	/* 0x0806 in network order, as stored */

/*
 * arp daddr ip NET (a box's address asked for, whatever the sender
 * claims), as nft writes it: the dependency is `ether type arp` (the link
 * header's type field), not meta protocol.
 */
static int
arp_in_net(struct nft_batch *bt, const struct contract_env *env)
{
	unsigned char n[4];
	uint16_t arp = ETH_P_ARP_BE;

	be32(env->net, n);
	nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 12, 2, NFT_REG_1);
	nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &arp, 2);
	nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 24, 3, NFT_REG_1);
	return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, n, 3);
}

/*
 * ct count: meta nfproto ipv4, ip saddr into reg 1, dynset add into
 * box_conns with connlimit over N, as nft writes
 *   add @box_conns { ip saddr ct count over N }
 */
static int
conncap(struct nft_batch *bt, const struct contract_env *env)
{
	uint32_t n = env->conn_max != 0 ? env->conn_max : CONTRACT_CONN_MAX;

	nft_match_nfproto(bt, NFT_FAM_IPV4);
	nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 12, 4, NFT_REG_1);
	return nft_expr_dynset_connlimit(bt, NFT_REG_1, CONTRACT_SET_CONNS, n,
	    1);
}

/* The DHCP fields, after the UDP header: giaddr at 24, chaddr at 28, the
 * first option after the 236-byte header and the magic cookie. */
#define TH_GIADDR	(8 + 24)
#define TH_CHADDR	(8 + 28)
#define TH_OPTION1	(8 + 240)

static int
dhcp_match(struct nft_batch *bt, int kind)
{
	static const unsigned char zero[4];
	/* 53, length 1, DISCOVER (1) or REQUEST (3): & ff ff fd == 35 01 01 */
	static const unsigned char mask[3] = { 0xff, 0xff, 0xfd },
	    nul[3], dr[3] = { 0x35, 0x01, 0x01 };

	switch (kind) {
	case CM_GIADDR:
		nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, TH_GIADDR, 4,
		    NFT_REG_1);
		return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_NEQ, zero, 4);
	case CM_CHADDR_NOT_SENDER:
		nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, TH_CHADDR, 6,
		    NFT_REG_1);
		nft_expr_lookup(bt, NFT_REG_1, CONTRACT_SET_CHADDRS, 0);
		nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 6, 6, NFT_REG_1);
		nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, TH_CHADDR, 6,
		    NFT_REG32_02);
		return nft_expr_lookup(bt, NFT_REG_1, CONTRACT_SET_SELF, 1);
	case CM_DHCP_CLIENT: {
		/* udp sport 68 udp dport 67: nft loads the two ports at once */
		static const unsigned char ports[4] = { 0, 68, 0, 67 };

		nft_match_l4proto(bt, IPPROTO_UDP);
		nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 4,
		    NFT_REG_1);
		return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, ports, 4);
	}
	default:	/* CM_DISCOVER_REQUEST */
		nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, TH_OPTION1, 3,
		    NFT_REG_1);
		nft_expr_bitwise(bt, NFT_REG_1, NFT_REG_1, mask, nul, 3);
		return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, dr, 3);
	}
}

static int
port_match(struct nft_batch *bt, int kind)
{
	switch (kind) {
	case CM_NEW_PORT:
	case CM_BOUND_PORT:
	case CM_BOUND_OUT:
		nft_expr_meta(bt, kind == CM_BOUND_OUT ? NFT_META_OIFNAME :
		    NFT_META_IIFNAME, NFT_REG_1);
		return nft_expr_lookup(bt, NFT_REG_1, CONTRACT_SET_PORTNAMES,
		    kind == CM_NEW_PORT);
	case CM_PINNED_MAC:
		nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 6, 6, NFT_REG_1);
		return nft_expr_lookup(bt, NFT_REG_1, CONTRACT_SET_MACS, 0);
	default:	/* CM_PORT_NOT_MAC */
		nft_expr_meta(bt, NFT_META_IIFNAME, NFT_REG_1);
		nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 6, 6, NFT_REG_2);
		return nft_expr_lookup(bt, NFT_REG_1, CONTRACT_SET_PORTS, 1);
	}
}

/*
 * Port . MAC . IPv4 against box_pins: IPv4 from the subnet (meta protocol
 * ip, saddr's first three bytes), or ARP whose sender is in it (the
 * sender's hardware and protocol addresses: what a neighbour entry
 * takes).  Registers as nft lays the concatenation out: ifname in reg 1,
 * the MAC in reg 2, the address at 32-bit register 6.
 */
static int
pin_match(struct nft_batch *bt, int kind, const struct contract_env *env)
{
	unsigned char n[4], gw[4];
	uint16_t ip = 0x0008, arp = ETH_P_ARP_BE;	/* network order */

	int any = kind == CM_IP_PORT_NOT_PINNED ||
	    kind == CM_ARP_PORT_NOT_PINNED;

	be32(env->net, n);
	be32(env->net | 1, gw);
	if (kind == CM_IP_PORT_NOT_PINNED)
		kind = CM_IP_NOT_PINNED;
	if (kind == CM_IP_NOT_PINNED) {
		nft_expr_meta(bt, NFT_META_PROTOCOL, NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &ip, 2);
		if (!any)
			nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 12, 3,
			    NFT_REG_1);
	} else {
		nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 12, 2, NFT_REG_1);
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, &arp, 2);
		if (!any)
			nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 14, 3,
			    NFT_REG_1);
	}
	if (!any)
		nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_EQ, n, 3);
	if (kind == CM_ARP_NOT_GW) {
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 24, 4,
		    NFT_REG_1);
		return nft_expr_cmp(bt, NFT_REG_1, NFT_CMP_NEQ, gw, 4);
	}
	nft_expr_meta(bt, NFT_META_IIFNAME, NFT_REG_1);
	if (kind == CM_IP_NOT_PINNED) {
		nft_expr_payload(bt, NFT_PAYLOAD_LL_HEADER, 6, 6, NFT_REG_2);
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 12, 4,
		    NFT_REG32_06);
	} else {
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 8, 6,
		    NFT_REG_2);
		nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 14, 4,
		    NFT_REG32_06);
	}
	return nft_expr_lookup(bt, NFT_REG_1, CONTRACT_SET_PINS, 1);
}

static int
emit_match(struct nft_batch *bt, const struct cm *m,
    const struct contract_env *env)
{
	unsigned char a[4];
	unsigned plen;

	switch (m->kind) {
	case CM_IIF:
		return nft_match_ifname(bt, NFT_META_IIFNAME, env->bridge);
	case CM_OIF:
		return nft_match_ifname(bt, NFT_META_OIFNAME, env->bridge);
	case CM_BRI_IIF:
		return nft_match_ifname(bt, NFT_META_BRI_IIFNAME, env->bridge);
	case CM_BRI_OIF:
		return nft_match_ifname(bt, NFT_META_BRI_OIFNAME, env->bridge);
	case CM_CTSTATE:
		return nft_match_ct_state(bt, m->bits);
	case CM_DPORT:
		return nft_match_port(bt, m->proto, 1, m->port);
	case CM_DADDR:
	case CM_SADDR:
	case CM_SADDR_NOT:
		resolve(m, env, a, &plen);
		return nft_match_addr_op(bt, m->kind == CM_DADDR, a, 4, plen,
		    m->kind == CM_SADDR_NOT ? NFT_CMP_NEQ : NFT_CMP_EQ);
	case CM_NFPROTO:
		return nft_match_nfproto(bt, m->proto);
	case CM_ARP_NET:
		return arp_in_net(bt, env);
	case CM_MASQ:
		return nft_expr_masq(bt);
	case CM_CONNCAP:
		return conncap(bt, env);
	case CM_GIADDR:
	case CM_CHADDR_NOT_SENDER:
	case CM_DISCOVER_REQUEST:
	case CM_DHCP_CLIENT:
		return dhcp_match(bt, m->kind);
	case CM_NEW_PORT:
	case CM_BOUND_PORT:
	case CM_BOUND_OUT:
	case CM_PINNED_MAC:
	case CM_PORT_NOT_MAC:
		return port_match(bt, m->kind);
	case CM_IP_NOT_PINNED:
	case CM_ARP_NOT_PINNED:
	case CM_IP_PORT_NOT_PINNED:
	case CM_ARP_PORT_NOT_PINNED:
	case CM_ARP_NOT_GW:
		return pin_match(bt, m->kind, env);
	}
	return -EINVAL;
}

static int
emit_rule(struct nft_batch *bt, const struct crule *r,
    const struct contract_env *env)
{
	size_t i;

	nft_rule_begin(bt, r->family, CONTRACT_NFT_TABLE, r->chain,
	    r->comment);
	for (i = 0; i < CONTRACT_MAXM && r->m[i].kind != CM_END; i++)
		emit_match(bt, &r->m[i], env);
	if (r->verdict == NFT_V_JUMP)
		nft_verdict(bt, r->verdict, CONTRACT_EGRESS_CHAIN);
	else if (r->verdict != NOVERDICT)
		nft_verdict(bt, r->verdict, NULL);
	return nft_rule_end(bt);
}

static int
env_ok(const struct contract_env *env)
{
	return env != NULL && env->bridge != NULL && env->net != 0 &&
	    (env->net & 0xffu) == 0 && env->nnamed <= CONTRACT_MAXNAMED &&
	    (env->nnamed == 0 || env->named != NULL) &&
	    env->conn_max <= CONTRACT_CONN_MAX_LIMIT;
}

int
contract_prefix_set(struct contract_prefix *p, uint32_t addr, unsigned plen,
    const char *why)
{
	uint32_t mask;

	if (plen > 32 || why == NULL)
		return -EINVAL;
	mask = plen == 0 ? 0 : 0xffffffffu << (32 - plen);
	p->addr = addr & mask;
	p->plen = (uint8_t)plen;
	snprintf(p->comment, sizeof(p->comment), "box: not %u.%u.%u.%u/%u (%s)",
	    p->addr >> 24, (p->addr >> 16) & 255, (p->addr >> 8) & 255,
	    p->addr & 255, plen, why);
	return 0;
}

static int nth_rule(const struct contract_env *env, size_t n,
    struct crule *out);

static const struct nft_chain_spec egress_chain = {
	CONTRACT_EGRESS_CHAIN, NULL, 0, 0, -1
};

int
contract_emit(struct nft_batch *bt, const struct contract_env *env)
{
	size_t c, i;

	if (!env_ok(env))
		return -EINVAL;
	nft_table_add(bt, NFT_FAM_INET, CONTRACT_NFT_TABLE, 0);
	nft_table_add(bt, NFT_FAM_BRIDGE, CONTRACT_NFT_TABLE, 0);
	/* The per-box part (host/stack/egress_fw.c) lives in a regular chain the
	 * forward chain jumps to: created here if missing, never flushed
	 * here, so a firewall apply keeps what the boxes' policies put. */
	nft_chain_add(bt, NFT_FAM_INET, CONTRACT_NFT_TABLE, &egress_chain);
	/* Created if missing; an existing set keeps its elements. */
	for (c = 0; c < contract_nsets; c++)
		nft_set_add_udata(bt, contract_sets[c].family,
		    CONTRACT_NFT_TABLE, &contract_sets[c].spec,
		    contract_sets[c].udata, contract_sets[c].udata_len);
	for (c = 0; c < contract_nchains; c++) {
		const struct contract_chain *ch = &contract_chains[c];
		struct crule r;

		nft_chain_reset(bt, ch->family, CONTRACT_NFT_TABLE, &ch->spec);
		for (i = 0; nth_rule(env, i, &r) == 0; i++)
			if (r.family == ch->family &&
			    strcmp(r.chain, ch->spec.name) == 0)
				emit_rule(bt, &r, env);
	}
	return nft_batch_err(bt);
}

/* The n-th applicable rule in emit order into out: 0, or -ENOENT. */
static int
nth_rule(const struct contract_env *env, size_t n, struct crule *out)
{
	size_t c, i, k = 0, m;

	for (c = 0; c < contract_nchains; c++)
		for (i = 0; i < NRULES; i++) {
			if (rules[i].family != contract_chains[c].family ||
			    strcmp(rules[i].chain,
			    contract_chains[c].spec.name) != 0)
				continue;
			m = applies(&rules[i], env);
			if (n < k + m) {
				instance(&rules[i], env, n - k, out);
				return 0;
			}
			k += m;
		}
	return -ENOENT;
}

size_t
contract_nrules(const struct contract_env *env)
{
	struct crule r;
	size_t n = 0;

	while (nth_rule(env, n, &r) == 0)
		n++;
	return n;
}

int
contract_rule_ref(const struct contract_env *env, size_t i,
    struct contract_rule_ref *ref)
{
	struct crule rr, *r = &rr;

	if (nth_rule(env, i, &rr) < 0)
		return -ENOENT;
	ref->family = r->family;
	ref->chain = r->chain;
	ref->comment = r->comment;
	return 0;
}

/*
 * Build one rule alone into a scratch batch and parse the message back
 * with the same decoder the kernel's dump goes through: the expected
 * canonical text is, by construction, what we send.
 */
static int
expect_one(const struct crule *r, const struct contract_env *env,
    struct nft_rule_info *out)
{
	enum { SCRATCH = 4096 };
	struct nft_batch *bt = malloc(sizeof(*bt));
	unsigned char *buf = malloc(SCRATCH);
	struct nl_msg m;
	size_t off;
	int rc = -ENOMEM;

	if (bt == NULL || buf == NULL)
		goto out;
	nft_batch_init(bt, buf, SCRATCH, 1);
	emit_rule(bt, r, env);
	if ((rc = nft_batch_end(bt)) < 0)
		goto out;
	/* begin marker, the rule, end marker: the rule is the second. */
	rc = -EBOX_PROTO;
	off = 0;
	if (nl_msg_at(bt->b.p, bt->b.len, &off, &m) <= 0 ||
	    nl_msg_at(bt->b.p, bt->b.len, &off, &m) <= 0)
		goto out;
	rc = nft_parse_rule(&m, CONTRACT_NFT_TABLE, out) == 1 ? 0 :
	    -EBOX_PROTO;
out:
	free(bt);
	free(buf);
	return rc;
}

int
contract_expect(const struct contract_env *env, struct nft_rule_info *expected,
    size_t n)
{
	struct crule r;
	size_t i;
	int rc;

	if (!env_ok(env))
		return -EINVAL;
	for (i = 0; nth_rule(env, i, &r) == 0; i++) {
		if (i >= n)
			return -ENOSPC;
		if ((rc = expect_one(&r, env, &expected[i])) < 0)
			return rc;
	}
	return (int)i;
}

int
contract_dnsmasq(const char *const *servers, int n, char *buf, size_t cap)
{
	size_t o = 0, i;
	int k, w;

	if (cap == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < contract_ndnsmasq_lines; i++) {
		w = snprintf(buf + o, cap - o, "%s%s", o ? "\n" : "",
		    contract_dnsmasq_lines[i]);
		if (w < 0 || (size_t)w >= cap - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	for (k = 0; k < n; k++) {
		w = snprintf(buf + o, cap - o, "\nserver=%s", servers[k]);
		if (w < 0 || (size_t)w >= cap - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	return 0;
}
