/*
 * firewall.h - the host firewall for the box bridge, built and verified
 * through our own netlink code (never the nft program).
 *
 *   table inet box
 *     chain input        filter, hook input, priority -5, policy accept
 *       iifname BR ct state established,related accept   (replies to the host)
 *       iifname BR udp dport 53 accept                    (DNS)
 *       iifname BR tcp dport 53 accept
 *       iifname BR udp dport 67 accept                    (DHCP)
 *       iifname BR drop                                   (a box never reaches the host)
 *     chain expose-snat  nat, hook postrouting, priority 110
 *       oifname BR ip saddr 127.0.0.0/8 masquerade        (expose's loopback door)
 *   table bridge box
 *     chain forward      filter, hook forward, priority -200, policy accept
 *       meta ibrname BR meta obrname BR drop              (box -> box, every frame)
 *     or, on a kernel that refuses ibrname/obrname (this CI kernel does):
 *       ip saddr NET ip daddr NET drop                    (box -> box IPv4)
 *       arp sender NET arp target NET drop                (box -> box ARP)
 *     and the status says which, and what is left to port isolation.
 *
 * Everything goes to the kernel as ONE batch: it applies whole or not at
 * all.  Our chains are reset and refilled, so applying twice changes
 * nothing, and no table but ours is touched.
 */
#ifndef BOX_FIREWALL_H
#define BOX_FIREWALL_H

#include <stdint.h>

#include "util/err.h"

#define FW_TABLE "box"

enum fw_sibling {
	FW_SIBLING_ABSENT = 0,
	FW_SIBLING_BRNAME,	/* meta ibrname/obrname: every frame */
	FW_SIBLING_SUBNET,	/* IPv4 and ARP by subnet */
};

struct fw_status {
	int inet_table;		/* table inet box exists */
	unsigned input_rules, snat_rules;
	int input_ok, snat_ok;	/* chain present with all our rules */
	int bridge_table;
	unsigned forward_rules;
	int sibling;		/* enum fw_sibling, as read back */
	char sibling_note[256];	/* why the mode is what it is */
	int route_localnet;	/* 1 on, 0 off, -1 no such interface */
};

/*
 * Apply the firewall for bridge br on subnet net/24 (host order; 0 when
 * unknown, which disables the subnet fallback), then read it back into st.
 * Fails if the kernel refused the batch (nothing changed) or the read-back
 * does not match what was sent.
 */
int fw_apply(const char *br, uint32_t net, struct fw_status *st,
    struct box_err *e);

/* Read what the kernel holds for our tables. */
int fw_read(const char *br, struct fw_status *st, struct box_err *e);

/* Delete our tables (and the legacy claudebox ones) if present. */
int fw_remove(struct box_err *e);

#endif
