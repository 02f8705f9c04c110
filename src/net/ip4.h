/*
 * ip4.h - the kernel's IPv4 network picture, read once: links, IPv4
 * addresses and main-table unicast routes, from three rtnetlink dumps.
 *
 * Every reader of "what does this machine's network look like" (the host
 * survey, doctor, the nesting probe, box's subnet list) takes this one
 * struct; what to make of it (which bridge is ours, which route is the
 * uplink) stays with the caller in host/ or box/.
 *
 * The picture is bounded: a table with more entries than its cap fails
 * with -ENOSPC rather than drop entries silently.  ip4_add() is the pure
 * decoder of one dump message (the unit tests and the fuzzer drive it).
 */
#ifndef BOX_IP4_H
#define BOX_IP4_H

#include <stddef.h>

#include "net/nl.h"
#include "net/rtnl.h"
#include "util/err.h"

#define IP4_MAX_LINKS	1024
#define IP4_MAX_ADDRS	256
#define IP4_MAX_ROUTES	1024

struct ip4_picture {
	struct rtnl_link link[IP4_MAX_LINKS];
	size_t nlink;
	struct rtnl_addr4 addr[IP4_MAX_ADDRS];
	size_t naddr;
	struct rtnl_route4 route[IP4_MAX_ROUTES];
	size_t nroute;
};

/*
 * Read the picture (heap; ip4_free() it).  On failure *out is NULL and e
 * says which dump failed.
 */
int ip4_read(struct ip4_picture **out, struct box_err *e);
void ip4_free(struct ip4_picture *p);

/*
 * Fold one dump message into p: 1 stored, 0 not a link/IPv4 address/
 * main-table IPv4 unicast route, -EBOX_PROTO malformed, -ENOSPC full.
 */
int ip4_add(struct ip4_picture *p, const struct nl_msg *m);

/* The link with this index or name, or NULL. */
const struct rtnl_link *ip4_link(const struct ip4_picture *p, int ifindex);
const struct rtnl_link *ip4_link_named(const struct ip4_picture *p,
    const char *name);

/* The name of ifindex, or dflt when no such link was read. */
const char *ip4_ifname(const struct ip4_picture *p, int ifindex,
    const char *dflt);

/* The default route with the lowest metric, or NULL. */
const struct rtnl_route4 *ip4_default_route(const struct ip4_picture *p);

#endif
