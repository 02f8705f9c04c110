/*
 * egress_fw.h - the per-box part of the host firewall: each box's egress
 * policy (box/egress/egress.h) in the kernel, and what it refused.
 *
 * In table inet box, the forward chain jumps (after the contract's fixed
 * drops: LAN, private, reserved ranges) to the regular chain "egress".
 * For every box whose policy is allow, matched by the MAC Incus gave its
 * NIC (mac_filtering binds the box to it), egress holds:
 *
 *   ct state established,related return   replies and ICMP errors
 *   udp dport 53 drop, tcp dport 53 drop   DNS only to the gateway (input)
 *   ip daddr @ea-<box> update @ea-<box> return
 *                                          an address one of its allowed
 *                                          names resolved to; each new
 *                                          connection refreshes the
 *                                          element's hour
 *   delete/add @el-<box> { numgen inc mod 256 : ip daddr . meta l4proto
 *       . th dport }                       the refusal log, a ring
 *   meta l4proto tcp counter reject with tcp reset
 *                                          refused TCP: a reset at once
 *   counter reject with icmpx admin-prohibited
 *                                          everything else: ICMP
 *                                          administratively prohibited
 *
 * Every protocol and port to an allowed address is let through: the
 * policy names whom a box may talk to, and a name's services use many
 * ports (https, ssh for git, http).
 *
 * ea-<box> (ipv4_addr, timeout 1h, dynamic, at most 4096).  Each element
 * carries, as its comment, the name whose answer put it there.  Two
 * feeders: box's own sync (egfw_apply: it asks the gateway's resolver for
 * every name of the policy) and egfw_feed() (the hook a resolver calls
 * with each answer), both named; and, until box's own resolver replaces
 * it, dnsmasq's nftset lines, which add every A answer for an allowed
 * domain without a name (dnsmasq 2.90 passes no TTL nor comment, and the
 * kernel does not refresh an existing element on such an add, so the
 * set's hour applies).
 *
 * A change of policy (and a start, clone, import, restore, rename: every
 * sync) REPLACES each set in one batch: flush, then exactly the elements
 * egfw_plan() keeps (named for a name the policy covers; unnamed only
 * when the policy did not shrink, or when the reverse zone names it with
 * a name that resolves back to it and the policy covers).  Then the flows
 * that no longer have a right to run are ended: every conntrack entry
 * whose original source is the box's address and whose destination is
 * not in its new set (net/ct.h).  So a denied name's address stops
 * connecting at once, open TCP flows included, and the allow rule's
 * update can no longer keep an element alive that the policy removed.
 *
 * el-<box> (mark : ipv4_addr . inet_proto . inet_service, timeout 1h,
 * dynamic) is the refusal log as a ring of EGFW_LOG_SLOTS slots: each
 * refused packet deletes the element in the next slot and adds itself
 * there, so the newest refusals are kept and the oldest give way.  A
 * deleted element keeps its place in the map's bound until the kernel's
 * garbage collection (about a second), hence a bound of 4 x the slots: a
 * flood of more than three rings' worth within a second loses refusals
 * until the collection, never the ones after it.  The map's comment
 * "since <unix seconds>" says since when the drop counter counts: the
 * counter is carried over every rebuild of the chain, and starts again
 * (with a new "since") only when the map is new.
 *
 * Set names are ea-/el- and the box name; a name too long for nft's 63
 * characters is cut and given a hash of the whole.  (er-<box>, the log
 * of before, is deleted when seen.)
 */
#ifndef BOX_EGRESS_FW_H
#define BOX_EGRESS_FW_H

#include <stddef.h>
#include <stdint.h>

#include "box/egress/egress.h"
#include "net/nft.h"
#include "util/err.h"

#define EGFW_ALLOW_TIMEOUT_MS	(3600u * 1000u)
#define EGFW_ALLOW_SIZE		4096
#define EGFW_LOG_TIMEOUT_MS	(3600u * 1000u)
#define EGFW_LOG_SLOTS		256	/* refusals kept */
#define EGFW_LOG_SIZE		(4 * EGFW_LOG_SLOTS)	/* the map's bound */
/* The comments (after "box <name>: ") of the two refusing rules. */
#define EGFW_REFUSED_TCP	"refused: not an allowed name's address " \
	"(tcp: a reset)"
#define EGFW_REFUSED		"refused: not an allowed name's address"
#define EGFW_FEED_MIN_S		60	/* an answer's shortest hold */
#define EGFW_RULES_PER_BOX	7
#define EGFW_MAXBOXES		24	/* allow boxes: 9 messages each, one batch
				   with the contract (NFT_BATCH_MAXMSG) */

struct egfw_box {
	char name[64];
	unsigned char mac[6];
	int has_mac;
	struct egress pol;
	uint32_t addr;		/* its IPv4 (host order), when has_addr */
	int has_addr;
	int shrank;		/* the policy lost a name since the last sync
				   (or was open): unnamed elements go */
	uint64_t packets0, bytes0;	/* the refusal counters to start */
	uint64_t packets_tcp0, bytes_tcp0;	/* from (the rest, TCP) */
};

/* Does b's policy cover name (a pattern's domain, or a name under it)? */
int egfw_covers(const struct egfw_box *b, const char *name);

/*
 * The set diff, pure: what box b's allow set holds after a sync, from
 * what it holds now (old[0..nold), comments as read) and the fresh
 * answers for its names (fresh[0..nfresh), each named).  Kept: an old
 * element named for a name b covers (its expiry as it was); an unnamed
 * one only when !b->shrank; every fresh answer b covers (an address
 * already kept unnamed takes the name).  One element per address.  The
 * result in out[0..max): its count; *dropped (may be NULL) counts old
 * elements left out.
 */
size_t egfw_plan(const struct egfw_box *b, const struct nft_set_elem *old,
    size_t nold, const struct nft_set_elem *fresh, size_t nfresh,
    struct nft_set_elem *out, size_t max, size_t *dropped);

/*
 * The resolver's hook (for box's own resolver: call it with every A
 * answer for a box's allowed name): box b may connect to addr, which
 * name resolved to, for ttl_s seconds (at least EGFW_FEED_MIN_S, at most
 * the set's hour; the allow rule's update renews it while in use).  One
 * element, named name; an address already held keeps its element.
 * -EPERM when b's policy does not cover name, -ENOENT when b has no set
 * (not enforced), else 0 or -errno (e set).  Needs CAP_NET_ADMIN.
 */
int egfw_feed(const struct egfw_box *b, const char *name, uint32_t addr,
    uint32_t ttl_s, struct box_err *e);

/*
 * egfw_feed() for every address of one answer, addr[0..n) with their
 * ttl_s[0..n) (n at most EGFW_FEED_MAX), in one batch on *s: opened on
 * the first call and kept for the next (a resolver's feeder calls it for
 * every answer); after a failure it is closed and *s is NULL, so the next
 * call starts on a fresh one.  The caller closes it with
 * egfw_feed_close().  The set refuses the whole batch or takes it all.
 */
#define EGFW_FEED_MAX	64
int egfw_feed_batch(struct nl_sock **s, const struct egfw_box *b,
    const char *name, const uint32_t *addr, const uint32_t *ttl_s, size_t n,
    struct box_err *e);
void egfw_feed_close(struct nl_sock *s);

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
	int contents_ok;	/* no element named for a name it does not
				   allow */
	size_t naddr;		/* addresses in its allow set */
	size_t nnamed;		/* of those, named by the name that put them */
	size_t nstray;		/* named for a name the policy does not cover */
	uint64_t refused;	/* packets its refusing rules counted */
	long long since;	/* ... since then (unix s; 0 unknown) */
	char why[200];		/* when not ok */
};

/*
 * Read chain egress and the sets back and compare, by content, with what
 * egfw_emit() would send for b[i] (held[i]); *extra counts rules in the
 * chain that are no box's.  Needs CAP_NET_ADMIN.
 */
int egfw_read(const struct egfw_box *b, size_t n, struct egfw_held *held,
    size_t *extra, struct box_err *e);

/* What egfw_apply() did. */
struct egfw_report {
	size_t kept, added, removed;	/* set elements, all boxes */
	size_t flows_ended;		/* conntrack entries deleted */
	int resolver;			/* box's resolver read the policies
					   again: 1, it is not the boxes'
					   resolver: 0, it did not: -1 */
	char resolver_why[128];		/* -1: what it said */
};

/*
 * Put b in the kernel: the batch of egfw_emit() (reading the stale sets
 * and the drop counters to carry first), then every allow box's set
 * replaced in one batch each (egfw_plan(), with gw's answers for its
 * names and its unnamed elements' reverse names, gw 0: none asked), then
 * the flows to addresses no longer allowed ended.  rep may be NULL.
 */
int egfw_apply(struct egfw_box *b, size_t n, uint32_t gw,
    struct egfw_report *rep, struct box_err *e);

/* Only the sets and flows of egfw_apply() (after the resolver changed). */
int egfw_refill(const struct egfw_box *b, size_t n, uint32_t gw,
    struct egfw_report *rep, struct box_err *e);

/* One refused destination, newest first. */
struct egfw_refused {
	uint32_t addr;		/* host order */
	uint8_t proto;
	uint16_t port;
	uint64_t age_ms;	/* since last refused */
	unsigned hits;		/* refusals of it the ring holds */
};

/*
 * The ring's elements el[0..nel) folded into destinations, newest first
 * (ages from the elements' expiry and timeout, timeout_ms when an
 * element carries none): their count (at most max).  Pure.
 */
size_t egfw_log_fold(const struct nft_set_elem *el, size_t nel,
    uint64_t timeout_ms, struct egfw_refused *v, size_t max);

/* A box's log: up to max destinations (newest first), *total of them,
 * its drop counter and since when it counts (unix s, 0 unknown).
 * -ENOENT when the box has no log. */
int egfw_log(const char *box, struct egfw_refused *v, size_t max,
    size_t *n, size_t *total, uint64_t *refused, long long *since,
    struct box_err *e);

#endif
