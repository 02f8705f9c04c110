/*
 * addr.h - where the door may connect: a public IPv4 address only.  The
 * secret's host is resolved by the host's name server, and an answer in
 * any range of door_addr_ranges[] is refused (no SSRF through a name
 * that points home): this network, private, CGNAT, loopback,
 * link-local, the IETF protocol block, benchmarking, multicast,
 * reserved and broadcast, Azure's host service, and the boxes' own /24
 * (passed in).  The documentation ranges stay allowed, as in the
 * contract's forward chain (host/stack/contract.c): the tests model the
 * internet with them.  Pure; tests/unit/test_door.c holds its table of
 * known answers.
 */
#ifndef BOX_DOOR_ADDR_H
#define BOX_DOOR_ADDR_H

#include <stddef.h>
#include <stdint.h>

struct door_range {
	uint32_t net;		/* host order */
	int plen;
	const char *what;
};

extern const struct door_range door_addr_ranges[];
extern const size_t door_naddr_ranges;

/* NULL when a (host order) is public and not in boxes (/24 at boxnet),
 * else what it is ("loopback", ...). */
const char *door_addr_refused(uint32_t a, uint32_t boxnet);

#endif
