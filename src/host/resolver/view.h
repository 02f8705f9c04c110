/*
 * view.h - what box's resolver answers one box: its view of the names.
 *
 * A box is known by the address Incus pinned for its MAC (the NIC's
 * mac_filtering and ipv4_filtering let no box send with another's MAC or
 * address, so the source address of a query reaching the gateway names
 * one box).  Its view, in the order rsv_view() decides:
 *   a source that is no box            REFUSED (Prohibited)
 *   an opcode other than QUERY         NOTIMP
 *   a class other than IN (CH's version.bind, servers.bind; HS)
 *                                      REFUSED (Prohibited)
 *   a zone transfer (AXFR, IXFR)       REFUSED (Not Supported)
 *   a name of one label (a box's or the host's name), localhost, and
 *   the reverse zones of the ranges a box may not reach
 *                                      NXDOMAIN (Blocked)
 *   an allow box, a name none of its patterns covers
 *                                      NXDOMAIN (Blocked), the text
 *                                      naming the box, the name and
 *                                      `box egress <box> allow <name>`
 *   everything else                    asked of the pinned upstreams
 * Pure: the unit tests and the fuzzer drive it.
 */
#ifndef BOX_RSV_VIEW_H
#define BOX_RSV_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "box/egress/egress.h"
#include "net/dns.h"

struct rsv_box {
	char name[64];
	unsigned char mac[6];
	uint32_t addr;			/* host order, its pinned address */
	struct egress pol;
};

enum rsv_act { RSV_FORWARD = 0, RSV_REFUSE = 1 };

struct rsv_verdict {
	int act;			/* enum rsv_act */
	int rcode;			/* RSV_REFUSE: the reply's */
	int ede;			/* its EDE info-code, -1: none */
	char text[DNS_EDE_TEXTMAX + 1];	/* the EDE's text */
	const char *why;		/* a word for the log */
};

/* The verdict for q from b (NULL: the source is no box). */
void rsv_view(const struct rsv_box *b, const struct dns_query *q,
    struct rsv_verdict *v);

/*
 * The host's view question (a query only the gateway's own address may
 * ask: what would the box at host octet N get for NAME?), asked as
 * "NAME.N.RSVD_VIEW_SUFFIX" (host/stack/resolver_unit.h): 0 with *octet
 * and NAME in inner[0..cap), or -EINVAL (not such a name, N not 1..254,
 * NAME empty or too long).
 */
int rsv_view_ask(const char *name, unsigned *octet, char *inner, size_t cap);

/* Does b's policy let it resolve name (text form)?  Open: always. */
int rsv_allowed(const struct rsv_box *b, const char *name);

#endif
