/*
 * bridge.h - the box network's bridge (boxnet) as Incus holds it, read
 * for what the boxes on it need: its /24, whom the host asks the names
 * the boxes would resolve, and its raw.dnsmasq written alone.  The
 * contract (host/stack/stack.h) builds and checks the bridge; this only
 * reads it and patches the one key the egress policies own lines of.
 */
#ifndef BOX_BRIDGE_H
#define BOX_BRIDGE_H

#include <stdint.h>

#include "incus/api.h"
#include "incus/network.h"
#include "util/err.h"

/*
 * The bridge as Incus holds it: 1 with n filled, 0 when there is none (e
 * cleared: absence is an answer here), or -errno.
 */
int bridge_get(struct incus *c, struct incus_network *n, struct box_err *e);

/*
 * The /24 of the existing bridge, from the daemon: 1 and *net when it
 * exists with an IPv4 address, 0 when it does not exist.
 */
int bridge_net(struct incus *c, uint32_t *net, struct box_err *e);
/*
 * Whom the host asks a name the boxes would resolve (egress's refill):
 * the gateway (dnsmasq's DNS, the fallback), or, when box's resolver has
 * the gateway (raw.dnsmasq port=0: it answers the host no names), the
 * first pinned IPv4 upstream it forwards to.  0 when unknown.
 */
uint32_t bridge_name_server(struct incus *c, uint32_t net);

/*
 * Set boxnet's raw.dnsmasq alone (a PATCH: the bridge's other keys stay);
 * Incus restarts its dnsmasq when the value changed.
 */
int bridge_patch_dnsmasq(struct incus *c, const char *raw,
    struct box_err *e);

#endif
