/*
 * ct.h - the kernel's connection tracking table over ctnetlink
 * (NETLINK_NETFILTER, subsystem NFNL_SUBSYS_CTNETLINK), on top of net/nl.h.
 *
 * Three things, IPv4 only: read an entry's original-direction tuple out
 * of a dump message (a pure, bounded parser the fuzzer drives), dump the
 * table through a callback, and delete entries by their original tuple.
 * Deleting an entry ends the flow as the firewall sees it: its next packet
 * is "new" again and meets the rules of now, not the verdict of when it
 * began.
 */
#ifndef BOX_CT_H
#define BOX_CT_H

#include <stddef.h>
#include <stdint.h>

#include "net/nl.h"
#include "util/err.h"

/* An entry's original direction (addresses and ports in host order). */
struct ct_tuple {
	uint32_t src, dst;
	uint8_t proto;		/* IPPROTO_* */
	uint16_t sport, dport;	/* tcp, udp, sctp, dccp, udplite */
	uint16_t icmp_id;	/* icmp */
	uint8_t icmp_type, icmp_code;
	uint8_t has_ports, has_icmp;
	uint16_t zone;		/* CTA_ZONE, 0 when none */
};

/*
 * Decode one IPCTNL_MSG_CT_NEW message (a dump's entry): 1 and *t for an
 * IPv4 entry, 0 for another message or family, -EBOX_PROTO when
 * malformed (a tuple without both addresses or its protocol, a wrong
 * attribute size).  Reads only inside m.
 */
int ct_parse(const struct nl_msg *m, struct ct_tuple *t);

/* Write the IPCTNL_MSG_CT_DELETE request for t (with NLM_F_ACK) into b. */
int ct_build_delete(struct nl_buf *b, const struct ct_tuple *t, uint32_t seq);

/* Write the IPv4 dump request into b. */
int ct_build_dump(struct nl_buf *b, uint32_t seq);

/* Each IPv4 entry; return < 0 to stop. */
typedef int (*ct_fn)(const struct ct_tuple *t, void *arg);

/*
 * Dump the IPv4 table through fn.  reset (may be NULL) is called before
 * every attempt: a dump the kernel flags as interrupted is read again (at
 * most 4 times).  0 or -errno (e set).
 */
int ct_dump(struct nl_sock *s, ct_fn fn, void (*reset)(void *), void *arg,
    struct box_err *e);

/*
 * Delete v[0..n): *gone counts those deleted, an entry already gone is
 * not an error.  0 or the first other -errno (e set; the rest are still
 * tried).
 */
int ct_delete(struct nl_sock *s, const struct ct_tuple *v, size_t n,
    size_t *gone, struct box_err *e);

#endif
