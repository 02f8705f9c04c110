/*
 * subnet.h - which /24 the box bridge lives on.
 *
 * The decision is made from what the host looks like (its addresses and
 * default route, read from the kernel, and whether the bridge already
 * exists) before anything is changed, so a refusal changes nothing.  It is
 * a pure function of that picture: tests feed it pictures of a fresh host,
 * of the inside of a box, and of a poisoned host.
 *
 * Why this exists: run inside a box, the default 10.88.0.0/24 is the box's
 * own uplink; building a bridge on it there gave the guest a second route
 * to its own subnet and cut it off (the #80 outage).  So a subnet is
 * "claimed" when the default gateway sits in it, or when any interface
 * other than the box bridge holds an address whose network overlaps it.
 */
#ifndef BOX_SUBNET_H
#define BOX_SUBNET_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define SUBNET_BRIDGE	"boxnet"
#define SUBNET_DEFAULT	0x0a580000u	/* 10.88.0.0 */
#define SUBNET_SCAN_LO	0x0a590000u	/* 10.89.0.0 */
#define SUBNET_SCAN_HI	0x0a7f0000u	/* 10.127.0.0 */
#define SUBNET_MAX_ADDRS 128

struct subnet_host {
	struct {
		char ifname[16];
		uint32_t addr;		/* host order */
		uint8_t plen;
	} addr[SUBNET_MAX_ADDRS];
	int naddr;
	int has_gw;
	uint32_t gw;
	char gw_dev[16];
	int bridge_exists;		/* the Incus network boxnet */
	uint32_t bridge_net;		/* its /24 (0 when unaddressed) */
};

enum subnet_why {
	SUBNET_WHY_DEFAULT = 1,	/* 10.88.0.0/24, unclaimed */
	SUBNET_WHY_PINNED,	/* BOX_SUBNET */
	SUBNET_WHY_EXISTING,	/* the bridge exists: converge on it */
	SUBNET_WHY_AUTOPICK,	/* the default is claimed: first free one */
};

struct subnet_plan {
	uint32_t net;		/* a.b.c.0, host order */
	int why;		/* enum subnet_why */
	char claimant[160];	/* what claims 10.88.0.0/24 (autopick) */
	char note[384];		/* one sentence for the user */
};

/* Parse a strict "a.b.c.0/24"; 0 or -EINVAL (syntax only: see subnet_pin). */
int subnet_parse(const char *s, uint32_t *net);

/*
 * 1 when net/24 lies inside RFC 1918 (10.0.0.0/8, 172.16.0.0/12,
 * 192.168.0.0/16), else 0.  Only those may carry the box bridge: the
 * firewall keeps boxes apart at L3 by dropping private destinations, so
 * box-to-box traffic on a public /24, routed through the gateway, would
 * not meet those drops; and a bridge on a public /24 would shadow the
 * real internet hosts of that range for the host and every box.  CGNAT
 * (100.64/10), loopback, link-local, multicast and reserved space are no
 * better.  The auto-pick range (10.88, 10.89 ... 10.127) is inside 10/8.
 */
int subnet_private(uint32_t net);

/*
 * BOX_SUBNET, parsed and judged: 0 and *net; else a usage error (exit 2)
 * in e (which may be NULL): -EINVAL when it is not "a.b.c.0/24", -EDOM
 * when it is outside RFC 1918 (the message says why).
 */
int subnet_pin(const char *pin, uint32_t *net, struct box_err *e);

/*
 * 1 and a description in buf when something other than the box bridge
 * claims net/24, else 0.
 */
int subnet_claimant(const struct subnet_host *h, uint32_t net, char *buf,
    size_t cap);

/*
 * Decide.  pin is BOX_SUBNET or NULL.  Refusals (a pin that is not an
 * RFC 1918 /24 (subnet_pin, exit 2), a pin onto a claimed subnet, a pin
 * that disagrees with the existing bridge, an existing bridge whose own
 * subnet is claimed or is not RFC 1918, every candidate claimed) fail with
 * the reason and the fix in e.
 */
int subnet_decide(const struct subnet_host *h, const char *pin,
    struct subnet_plan *p, struct box_err *e);

#endif
