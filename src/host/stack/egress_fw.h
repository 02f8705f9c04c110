/*
 * egress_fw.h - the per-box part of the host firewall: each box's egress
 * policy (box/egress.h) in the kernel, and what it refused.
 *
 * In table inet box, the forward chain jumps (after the contract's fixed
 * drops: LAN, private, reserved ranges) to the regular chain "egress".
 * For every box whose policy is allow, matched by the MAC Incus gave its
 * NIC (mac_filtering binds the box to it), egress holds:
 *
 *   ct state established,related return   replies and ICMP errors
 *   udp dport 53 drop, tcp dport 53 drop   DNS only to the gateway (input)
 *   ip daddr @ea-<box> update @ea-<box> return
 *                                          an address the gateway's dnsmasq
 *                                          answered for an allowed name;
 *                                          each new connection refreshes
 *                                          the element's hour
 *   update @er-<box> { ip daddr . meta l4proto . th dport }
 *                                          the refused-destination log
 *   counter drop                           everything else
 *
 * Every protocol and port to an allowed address is let through: the
 * policy names whom a box may talk to, and a name's services use many
 * ports (https, ssh for git, http).  Only established flows outlive a
 * change of policy: a flow opened while the box was open continues until
 * it ends.
 *
 * ea-<box> (ipv4_addr, timeout 1h, dynamic, at most 4096) is filled by
 * dnsmasq's nftset lines, which add every A answer for an allowed domain.
 * dnsmasq 2.90 passes no TTL (its command is "add element <set> { <addr>
 * }"), and the kernel does not refresh an existing element on such an
 * add, so the set's own timeout applies: an hour after the first answer,
 * renewed by every new connection to the address.  dnsmasq adds only
 * from upstream answers, never from its cache, which is why raw.dnsmasq
 * caps the cache at CONTRACT_DNS_CACHE_TTL seconds.
 * er-<box> (ipv4_addr . inet_proto . inet_service, timeout 1h, dynamic,
 * at most 256) holds the refused destinations, newest refreshed.
 *
 * Set names are ea-/er- and the box name; a name too long for nft's 63
 * characters is cut and given a hash of the whole.
 */
#ifndef BOX_EGRESS_FW_H
#define BOX_EGRESS_FW_H

#include <stddef.h>
#include <stdint.h>

#include "box/egress.h"
#include "net/nft.h"
#include "util/err.h"

#define EGFW_ALLOW_TIMEOUT_MS	(3600u * 1000u)
#define EGFW_ALLOW_SIZE		4096
#define EGFW_LOG_TIMEOUT_MS	(3600u * 1000u)
#define EGFW_LOG_SIZE		256
#define EGFW_RULES_PER_BOX	6
#define EGFW_MAXBOXES		24	/* allow boxes: 8 messages each, one batch
				   with the contract (NFT_BATCH_MAXMSG) */

struct egfw_box {
	char name[64];
	unsigned char mac[6];
	int has_mac;
	struct egress pol;
};

/* The allowed-address set and the refused log of a box. */
void egfw_set_names(const char *box, char allow[NFT_NAMELEN],
    char log[NFT_NAMELEN]);

/* "aa:bb:cc:dd:ee:ff" -> mac: 0 or -EINVAL. */
int egfw_parse_mac(const char *s, unsigned char mac[6]);

/*
 * Add to bt: flush chain egress, then for every allow box (with a MAC)
 * its sets (created if missing: an existing set keeps its addresses) and
 * rules; then delete the sets named in stale[0..nstale) that no box uses
 * any more (the sets of ours the kernel holds; NULL: delete none).
 */
int egfw_emit(struct nft_batch *bt, const struct egfw_box *b, size_t n,
    char (*stale)[NFT_NAMELEN], size_t nstale);

/*
 * The raw.dnsmasq lines for the boxes: one "nftset=/<domain>/4#inet#box#
 * ea-<box>[,...]" per domain any allow box names, listing every box whose
 * pattern covers the domain (dnsmasq applies only the longest matching
 * line, so a box allowing "example.com" is listed on "api.example.com"'s
 * line too).  Joined with "\n", no trailing newline; "" when none.
 */
int egfw_dnsmasq(const struct egfw_box *b, size_t n, char *buf, size_t cap);

/* raw.dnsmasq text without its nftset= lines (the egress part). */
void egfw_dnsmasq_strip(const char *in, char *out, size_t cap);

/* What the kernel holds for one box. */
struct egfw_held {
	int rules_ok;		/* its rules, exactly and in order */
	int sets_ok;		/* both sets exist */
	size_t naddr;		/* addresses in its allow set */
	uint64_t refused;	/* packets its drop rule counted */
	char why[200];		/* when not ok */
};

/*
 * Read chain egress and the sets back and compare, by content, with what
 * egfw_emit() would send for b[i] (held[i]); *extra counts rules in the
 * chain that are no box's.  Needs CAP_NET_ADMIN.
 */
int egfw_read(const struct egfw_box *b, size_t n, struct egfw_held *held,
    size_t *extra, struct box_err *e);

/* Send the batch of egfw_emit() for b (reading the stale sets first). */
int egfw_apply(const struct egfw_box *b, size_t n, struct box_err *e);

/* One refused destination, newest first. */
struct egfw_refused {
	uint32_t addr;		/* host order */
	uint8_t proto;
	uint16_t port;
	uint64_t age_ms;	/* since last refused */
};

/* A box's log: up to max entries (newest first), *total of them, and
 * its drop counter.  -ENOENT when the box has no log set. */
int egfw_log(const char *box, struct egfw_refused *v, size_t max,
    size_t *n, size_t *total, uint64_t *refused, struct box_err *e);

#endif
