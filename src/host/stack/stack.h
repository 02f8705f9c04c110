/*
 * stack.h - the Incus half of the host stack: the storage pool, the
 * boxnet bridge, the box-isolate ACL and the box-net profile.
 *
 * Each object is observed first (so a dry run can say exactly what would
 * change), then converged: created when missing, its keys brought to what
 * box wants when they drift.  Two rules come from hard experience:
 *   - a bridge is always created with explicit ipv4/ipv6 addresses
 *     (otherwise Incus probes random 10.x hosts for a free subnet), and an
 *     existing bridge is never re-addressed;
 *   - the ACL lives on the network, never on the NIC (NIC-level ACLs need
 *     bridge conntrack, which some kernels lack: the box would not start).
 * Converging the ACL replaces its egress rules but keeps its ingress rules:
 * those are the doors `box expose` opened.
 */
#ifndef BOX_STACK_H
#define BOX_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "incus/api.h"
#include "util/err.h"

#include "host/stack/contract.h"

/* The names are the contract's (host/stack/contract.h). */
#define STACK_BRIDGE	CONTRACT_BRIDGE
#define STACK_ACL	CONTRACT_ACL
#define STACK_PROFILE	CONTRACT_PROFILE
#define STACK_POOL	CONTRACT_POOL
#define STACK_MAX_DNS	4

struct stack_conf {
	uint32_t net;			/* the bridge's /24, host order */
	char dns[STACK_MAX_DNS][48];	/* pinned upstream resolvers */
	int ndns;
	int own_resolver;		/* DNS is box's resolver's, not dnsmasq's */
};

struct stack_state {
	char pool[64];			/* the profile's root disk pool, or "" */
	int net_exists;
	char net_addr[48];		/* its ipv4.address, "" when none */
	int net_keys_ok;		/* every key box sets has its value */
	char net_drift[512];		/* every key that differs, with the
					   value it had ("k (was 'v')") */
	int acl_exists, acl_ok;
	int acl_ingress;		/* ingress rules kept (expose doors) */
	int profile_exists, profile_ok;
	int boxes;			/* tagged instances on the host */
};

/*
 * BOX_DNS: space-separated IP addresses (default "1.1.1.1 8.8.8.8").
 * Each must parse as an address: the value ends up in dnsmasq's config.
 */
int stack_dns_parse(const char *words, struct stack_conf *sc,
    struct box_err *e);
/* BOX_RESOLVER: "box" or unset (box's own resolver serves the boxes'
 * DNS, host/resolver/: the default), "dnsmasq" (Incus's dnsmasq does: a
 * fallback that loses the view, the budget and the cache per box, which
 * setup-host and doctor say): 0 or a usage error. */
int stack_resolver_parse(const char *word, struct stack_conf *sc,
    struct box_err *e);

/* What exists and how it differs from sc. */
int stack_observe(struct incus *c, const struct stack_conf *sc,
    struct stack_state *st, struct box_err *e);

int stack_ensure_acl(struct incus *c, const struct stack_conf *sc,
    int *changed, struct box_err *e);
/*
 * Converge every contract key of the bridge (IPv6 off, NAT, DHCP, DNS
 * mode, pinned resolvers, no-hosts, the ACL keys).  An existing bridge is
 * never re-addressed: one on another /24 than sc->net is a refusal.
 * corrected (may be NULL) gets what was changed, as in net_drift.
 */
int stack_ensure_network(struct incus *c, const struct stack_conf *sc,
    int *changed, char *corrected, size_t cap, struct box_err *e);
/*
 * The profile with the contract's NIC and a root disk on pool (the one
 * host/stack/pool.h chose); stack_ensure_profile keeps the pool the
 * profile names, else box's own pool when it exists, else "default".
 */
int stack_ensure_profile_on(struct incus *c, const char *pool, int *changed,
    struct box_err *e);
int stack_ensure_profile(struct incus *c, int *changed, struct box_err *e);
/* The pool the box-net profile's root disk names: 1, 0 (no profile or no
 * pool named: pool ""), -errno. */
int stack_profile_pool(struct incus *c, char *pool, size_t cap,
    struct box_err *e);
/*
 * How many VM boxes have an expose door (a NAT proxy): only those need
 * route_localnet on the bridge.  -errno when the daemon could not say.
 */
int stack_vm_doors(struct incus *c, struct box_err *e);

/*
 * A stack object by kind and name, for the verbs that remove the stack
 * (teardown-host, the legacy retirement).  shown is how messages name it
 * ("profiles/box-net").
 */
enum stack_kind { SK_PROFILE, SK_NETWORK, SK_ACL };
struct stack_obj {
	enum stack_kind kind;
	const char *name;
	const char *shown;
};

/* DELETE it and wait: 0, -ENOENT when it is not there, or -errno. */
int stack_obj_delete(struct incus *c, const struct stack_obj *o,
    struct box_err *e);
/* 1 it exists, 0 it does not, -errno when the daemon did not say. */
int stack_obj_exists(struct incus *c, const struct stack_obj *o,
    struct box_err *e);

#endif
