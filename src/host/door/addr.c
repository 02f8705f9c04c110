/*
 * addr.c - the door's refused destinations (addr.h).
 */
#include "host/door/addr.h"

#define R(a, b, c, d, l, w) \
	{ (uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d), l, w }

const struct door_range door_addr_ranges[] = {
	R(0, 0, 0, 0, 8, "this network"),
	R(10, 0, 0, 0, 8, "private"),
	R(100, 64, 0, 0, 10, "CGNAT"),
	R(127, 0, 0, 0, 8, "loopback"),
	R(169, 254, 0, 0, 16, "link-local"),
	R(172, 16, 0, 0, 12, "private"),
	R(192, 0, 0, 0, 24, "IETF protocol"),
	R(192, 168, 0, 0, 16, "private"),
	R(198, 18, 0, 0, 15, "benchmarking"),
	R(224, 0, 0, 0, 4, "multicast"),
	R(240, 0, 0, 0, 4, "reserved"),
	R(168, 63, 129, 16, 32, "Azure's host platform service"),
};
const size_t door_naddr_ranges =
    sizeof(door_addr_ranges) / sizeof(door_addr_ranges[0]);

static int
in(uint32_t a, uint32_t net, int plen)
{
	uint32_t m = plen == 0 ? 0 : 0xffffffffu << (32 - plen);

	return (a & m) == (net & m);
}

const char *
door_addr_refused(uint32_t a, uint32_t boxnet)
{
	size_t i;

	for (i = 0; i < door_naddr_ranges; i++)
		if (in(a, door_addr_ranges[i].net, door_addr_ranges[i].plen))
			return door_addr_ranges[i].what;
	if (boxnet != 0 && in(a, boxnet, 24))
		return "a box's";
	return NULL;
}
