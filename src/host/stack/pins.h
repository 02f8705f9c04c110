/*
 * pins.h - the port bindings of the box bridge: every instance with a NIC
 * on it, in every project, whoever made it, bound in the kernel (the sets
 * of table bridge box, see contract.h) to the MAC Incus gave the NIC and
 * the address Incus pinned or leased for it.  The contract's prerouting
 * rules drop what a port sends with any other MAC or address, and a DHCP
 * message whose chaddr is a pinned MAC not its sender's.
 *
 * Fed by `box firewall sync`: dnsmasq runs it at every lease change
 * (dhcp-script, renewals included: a restarted box renews on a new port),
 * and setup-host, firewall apply and doctor --fix run it.  No daemon of
 * box's own.  Nothing a box says is read: the MACs and ports come from
 * the instances' config as Incus holds it (volatile.<nic>.hwaddr,
 * volatile.<nic>.host_name), the addresses from the network's leases as
 * Incus reports them (a static lease first, then dnsmasq's).
 *
 * A MAC two instances claim binds neither (the second is someone's forgery,
 * and which one cannot be told); the same for an address.  Said as a
 * conflict; doctor FAILs on it.
 */
#ifndef BOX_PINS_H
#define BOX_PINS_H

#include <stddef.h>
#include <stdint.h>

#include "host/stack/contract.h"
#include "incus/api.h"
#include "net/nft.h"
#include "util/err.h"

#define PINS_MAXNIC	1024	/* NICs on the bridge we bind */

struct pin {
	char project[64];
	char inst[64];
	char nic[32];
	unsigned char mac[6];
	char port[16];		/* "" when not running */
	uint32_t addr;		/* host order; 0 when none is known */
	int conflict;		/* its MAC or address is another's too */
};

struct pins {
	struct pin v[PINS_MAXNIC];
	size_t n;
	size_t nconflict;
};

/* Every NIC on bridge, from Incus (heap-sized p: the caller's). */
int pins_collect(struct incus *c, const char *bridge, uint32_t net,
    struct pins *p, struct box_err *e);

/* The keys each set must hold for p, as nft lays them out. */
struct pins_keys {
	unsigned char macs[PINS_MAXNIC][6];
	unsigned char self[PINS_MAXNIC][16];
	unsigned char ports[PINS_MAXNIC][CONTRACT_KEY_PORTMAC];
	unsigned char portnames[PINS_MAXNIC][CONTRACT_KEY_PORT];
	unsigned char pins[PINS_MAXNIC][CONTRACT_KEY_PIN];
	size_t nmac, nport, npin;
};
void pins_keys(const struct pins *p, struct pins_keys *k);

/* Flush the bridge sets and add k's keys: into bt, pure. */
int pins_emit(struct nft_batch *bt, const struct pins_keys *k);

/* What the sync did. */
struct pins_result {
	size_t nic, bound, pinned, conflict;
};

/* Collect, then send the sets as one batch (root). */
int pins_sync(struct incus *c, const char *bridge, uint32_t net,
    struct pins_result *r, struct box_err *e);

/* What the kernel's sets hold against what Incus says, by content. */
struct pins_check {
	size_t want, held;	/* keys over all five sets */
	size_t missing, extra;
	char first[200];	/* the first difference, in words */
};
int pins_check(const struct pins *p, struct pins_check *c, struct box_err *e);

/* Write CONTRACT_DHCP_HOOK for bin (root-owned 0755, atomic). */
int pins_install_hook(const char *bin, struct box_err *e);

/*
 * The hook's sync (`box firewall sync --from-hook`), behind a gate, so a
 * box forging DHCP churn (every renewal runs the hook) cannot make the
 * host sync without end: whoever takes PINS_HOOK_LOCK (flock, without
 * waiting) returns at once and leaves a detached child that syncs (the
 * ports, the ARP sysctls), at most one sync per PINS_HOOK_GAP_MS, again
 * while other runs marked PINS_HOOK_PENDING meanwhile; a run that finds
 * the gate held only marks it (one octet appended) and returns.  The lock
 * file says "syncs N events M" (the counts so far).  0 or -errno.
 */
#define PINS_HOOK_LOCK		"/run/box-dhcp-hook.lock"
#define PINS_HOOK_PENDING	"/run/box-dhcp-hook.pending"
#define PINS_HOOK_GAP_MS	1000
#define PINS_HOOK_ROUNDS	3600
int pins_hook_sync(const char *br, uint32_t net, struct box_err *e);

#endif
