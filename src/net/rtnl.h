/*
 * rtnl.h - rtnetlink readers (links, bridge ports, IPv4 addresses and
 * routes) and a /proc/sys writer.
 *
 * Readers dump one object kind over a NETLINK_ROUTE socket (nl_open(s,
 * NETLINK_ROUTE, e)) into a caller-provided array of plain structs of a
 * stated size and return how many they stored.  They never allocate: when
 * the array is full they fail with -ENOSPC rather than drop entries
 * silently.  A dump the kernel flags as interrupted (an interface came or
 * went meanwhile) is retried a few times.
 *
 * The per-message decoders (rtnl_parse_*) are pure and bounded; the fuzzer
 * drives them.
 */
#ifndef BOX_RTNL_H
#define BOX_RTNL_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "net/nl.h"
#include "util/err.h"

#define RTNL_IFNAMSIZ	16
#define RTNL_KINDLEN	16

struct rtnl_link {
	int ifindex;
	char name[RTNL_IFNAMSIZ];
	char kind[RTNL_KINDLEN];	/* IFLA_INFO_KIND: "bridge", "veth";
					   "" for a physical device */
	int master;		/* ifindex of the master (bridge), 0 if none */
	uint8_t operstate;	/* IF_OPER_*: 6 up, 2 down, 0 unknown */
	unsigned flags;		/* IFF_* */
};

/* A port of a bridge, from an AF_BRIDGE RTM_GETLINK dump. */
struct rtnl_brport {
	int ifindex;
	char name[RTNL_IFNAMSIZ];
	int master;		/* the bridge's ifindex */
	int isolated;		/* IFLA_BRPORT_ISOLATED: 1 on, 0 off, -1 the
				   kernel did not say */
	int state;		/* IFLA_BRPORT_STATE (BR_STATE_*), -1 unknown */
};

struct rtnl_addr4 {
	int ifindex;
	struct in_addr addr;	/* IFA_LOCAL (or IFA_ADDRESS) */
	uint8_t prefixlen;
	char label[RTNL_IFNAMSIZ];	/* IFA_LABEL, "" if none */
};

struct rtnl_route4 {
	struct in_addr dst;	/* 0.0.0.0 for the default route */
	uint8_t dst_len;	/* 0 for the default route */
	int has_gw;
	struct in_addr gw;	/* RTA_GATEWAY when has_gw */
	int oif;		/* RTA_OIF, 0 when absent (e.g. multipath) */
	uint32_t metric;	/* RTA_PRIORITY */
	uint8_t scope;		/* RT_SCOPE_*: 253 link for connected routes */
	uint8_t protocol;	/* RTPROT_*: 2 kernel for connected routes */
	uint8_t type;		/* RTN_UNICAST, ... */
	int has_prefsrc;
	struct in_addr prefsrc;
};

/*
 * What in a network namespace can steer a packet off its plain path:
 * one IPv4 policy rule, a route of any table, or a permanent neighbour
 * (ip rule; ip route show table all; ip neigh nud permanent).
 */
enum { RTNL_ST_RULE = 1, RTNL_ST_ROUTE, RTNL_ST_NEIGH };
struct rtnl_steer {
	int kind;		/* RTNL_ST_* */
	uint32_t table;		/* RULE, ROUTE */
	uint32_t pref;		/* RULE: its priority */
	uint8_t action;		/* RULE: FR_ACT_*; ROUTE: RTN_* type */
	uint8_t protocol;	/* ROUTE: RTPROT_* */
	uint8_t dst_len;	/* ROUTE */
	struct in_addr dst;	/* ROUTE, NEIGH */
	int has_gw;
	struct in_addr gw;	/* ROUTE */
	uint16_t state;		/* NEIGH: NUD_* */
};

/* Every IPv4 rule, route (all tables) and permanent neighbour, in
 * out[0..max): their count, or -errno (-ENOSPC: more than max). */
int rtnl_steering(struct nl_sock *s, struct rtnl_steer *out, size_t max,
    struct box_err *e);
/* One of them from a dump's message: 1, 0 not one (another family, a
 * neighbour not permanent), or -EBOX_PROTO.  Pure. */
int rtnl_parse_steer(const struct nl_msg *m, struct rtnl_steer *st);

/* Every link (ip link). */
int rtnl_links(struct nl_sock *s, struct rtnl_link *out, size_t max,
    struct box_err *e);
/* Every bridge port, with the kernel's isolated flag (bridge link). */
int rtnl_bridge_ports(struct nl_sock *s, struct rtnl_brport *out, size_t max,
    struct box_err *e);
/* Every IPv4 address (ip -4 addr). */
int rtnl_addrs4(struct nl_sock *s, struct rtnl_addr4 *out, size_t max,
    struct box_err *e);
/* IPv4 unicast routes of the main table (ip -4 route). */
int rtnl_routes4(struct nl_sock *s, struct rtnl_route4 *out, size_t max,
    struct box_err *e);

/* The first default route in r[0..n) (lowest metric wins), or NULL. */
const struct rtnl_route4 *rtnl_default_route4(const struct rtnl_route4 *r,
    size_t n);

/* Find a link by name or index in l[0..n), or NULL. */
const struct rtnl_link *rtnl_link_by_name(const struct rtnl_link *l, size_t n,
    const char *name);
const struct rtnl_link *rtnl_link_by_index(const struct rtnl_link *l,
    size_t n, int ifindex);

/*
 * Decoders of single dump messages: 1 decoded, 0 not of this kind (or, for
 * routes, not an IPv4 unicast route of the main table), -EBOX_PROTO when
 * malformed.
 */
int rtnl_parse_link(const struct nl_msg *m, struct rtnl_link *l);
int rtnl_parse_brport(const struct nl_msg *m, struct rtnl_brport *p);
int rtnl_parse_addr4(const struct nl_msg *m, struct rtnl_addr4 *a);
int rtnl_parse_route4(const struct nl_msg *m, struct rtnl_route4 *r);

/*
 * Write value to /proc/sys/<key>, where key is slash-separated
 * ("net/ipv4/conf/boxnet/route_localnet": slashes, not dots, because an
 * interface name may hold a dot).  The key is checked: no leading '/', no
 * empty, "." or ".." component, only [A-Za-z0-9_.@-] and '/'.  -ENOENT when
 * the entry does not exist (e.g. the interface is absent).
 */
int rtnl_sysctl_set(const char *key, const char *value, struct box_err *e);
/* Read it into dst[0..cap), trailing newline removed. */
int rtnl_sysctl_get(const char *key, char *dst, size_t cap,
    struct box_err *e);

#endif
