/*
 * sniff.h - a listener on a bridge device (AF_PACKET), for `box verify`:
 * it watches boxnet while a box sends forged frames, and tells whether a
 * frame got past the box's port (what reaches the bridge device has passed
 * Incus's per-port filter; what the filter drops never shows up here).
 *
 * Every frame on the bridge is hostile input: sniff_parse() is pure and
 * bounded, and the fuzzer drives it.
 */
#ifndef BOX_SNIFF_H
#define BOX_SNIFF_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define SNIFF_FRAME_MAX	2048	/* longer frames are read truncated */

enum { SNIFF_OTHER = 0, SNIFF_UDP4, SNIFF_ARP, SNIFF_TCP4, SNIFF_ICMP4,
    SNIFF_ICMP6 };

#define SNIFF_TCP_SYN	0x02
#define SNIFF_TCP_RST	0x04
#define SNIFF_TCP_ACK	0x10

/* What one Ethernet frame says; addresses in host order. */
struct sniff_frame {
	int kind;
	uint8_t src[6];			/* the Ethernet source */
	uint32_t saddr, daddr;		/* UDP4, TCP4, ICMP4: the IPv4 header's */
	uint16_t sport, dport;		/* UDP4, TCP4 */
	uint8_t tcpflags;		/* TCP4: SNIFF_TCP_* */
	uint8_t icmptype;		/* ICMP4, ICMP6 */
	uint16_t icmpid;		/* ICMP4, ICMP6 echo: its identifier */
	const uint8_t *payload;		/* UDP4: into the frame */
	size_t plen;
	uint16_t op;			/* ARP: 1 request, 2 reply */
	uint8_t sha[6];			/* ARP: sender MAC, IPv4 */
	uint32_t spa, tpa;
};

struct sniff {
	int fd;
};

/*
 * Listen on interface ifname (every protocol, frames queued in a large
 * buffer until read).  Root.
 */
int sniff_open(struct sniff *s, const char *ifname, struct box_err *e);

/*
 * The next queued frame that came in (not one the host sent) into
 * buf[0..cap): 1 with *len, 0 when none is queued.
 */
int sniff_next(struct sniff *s, uint8_t *buf, size_t cap, size_t *len);

/*
 * Either way: the next queued frame, *out 1 when this host sent it out of
 * the interface (on a box's host-side veth: toward the box), 0 when it
 * came in (from the box).
 */
int sniff_next_any(struct sniff *s, uint8_t *buf, size_t cap, size_t *len,
    int *out);

void sniff_close(struct sniff *s);

/*
 * Decode an Ethernet frame: 1 a UDP, TCP or ICMP IPv4 packet (a first
 * fragment), an ICMPv6 message right after the IPv6 header, or an IPv4 ARP
 * (kind set), 0 anything else, -EBOX_PROTO when it claims to be one and is
 * malformed.
 */
int sniff_parse(const uint8_t *f, size_t n, struct sniff_frame *out);

/* 1 when payload p[0..n) holds the token tok. */
int sniff_has_token(const uint8_t *p, size_t n, const char *tok);

#endif
