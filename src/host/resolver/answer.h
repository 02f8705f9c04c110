/*
 * answer.h - what box's resolver changes in, or refuses of, an upstream's
 * answer before a box sees it.  Pure: the unit tests and the fuzzer drive
 * it.
 *
 * TTLs.  Every record's TTL (every section but the OPT pseudo-record) is
 * set to RSV_TTL.  With a caching upstream the TTL it hands out counts
 * down from the first lookup of a name, so passing it on would tell a box
 * when a sibling (or the host) asked that name; one fixed value tells
 * nothing.  RSV_TTL is EGFW_FEED_MIN_S (box/egress_fw.h): an allow box's
 * set holds a fed address at least that long, so nothing a box caches
 * outlives the address's place in its set.  A negative answer's TTL is
 * min(the SOA record's TTL, its MINIMUM): the SOA's TTL is set like any
 * other, its MINIMUM is the zone's own constant.
 *
 * Rebinding.  An answer giving an A record (in any section) for an
 * address a box may not reach is refused whole: a name of the internet
 * pointed at the gateway, a sibling, the host or the LAN is how a page a
 * box loaded reaches them (DNS rebinding).  The ranges, as the contract's
 * forward chain drops them (host/stack/contract.c), plus the boxes' /24
 * and the host's own addresses:
 *   0.0.0.0/8 this network        10.0.0.0/8, 172.16.0.0/12,
 *   100.64.0.0/10 CGNAT           192.168.0.0/16 private
 *   127.0.0.0/8 loopback          169.254.0.0/16 link-local
 *   192.0.0.0/24 IETF protocol    198.18.0.0/15 benchmarking
 *   224.0.0.0/4 multicast         240.0.0.0/4 reserved (and broadcast)
 */
#ifndef BOX_RSV_ANSWER_H
#define BOX_RSV_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#define RSV_TTL		60		/* seconds: every TTL a box sees */
#define RSV_MAXHOST	32		/* host addresses the check knows */

/* The addresses no answer may give a box: the boxes' /24, the host's. */
struct rsv_fence {
	uint32_t net;			/* host order, the boxes' /24 */
	uint32_t host[RSV_MAXHOST];	/* host order */
	size_t nhost;
};

/* Is a (host order) an address a box may not be pointed at?  The range's
 * word in *what (may be NULL). */
int rsv_fenced(const struct rsv_fence *f, uint32_t a, const char **what);

/*
 * Judge m[0..n), an answer: 1 when an A record names a fenced address
 * (*bad = it, *what = its range; m unchanged), else 0 with every TTL set
 * to ttl; -EBADMSG when malformed (m may be partly changed).  f NULL:
 * nothing is fenced (the view off, a test's control), TTLs only.
 */
int rsv_answer_fix(unsigned char *m, size_t n, const struct rsv_fence *f,
    uint32_t ttl, uint32_t *bad, const char **what);

#endif
