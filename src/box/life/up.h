/*
 * up.h - bringing a fresh copy of a box up: the stages of a clone's,
 * fork's or import's start, composed of the waits (waits.h) and the
 * machine identity (identity.h).
 */
#ifndef BOX_UP_H
#define BOX_UP_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/instance.h"
#include "util/err.h"
#include "util/progress.h"

/*
 * Bring up a fresh copy (clone, import) of a box: a machine identity of its
 * own, started, answering, holding an address on its bridge that no other
 * instance holds.  *stage names the step that failed.  id_done: a
 * container's identity is already arranged (box/import/import_id.h); a VM's is
 * regenerated inside either way.
 */
int life_copy_up(struct incus *c, const char *name, int vm, int id_done,
    long long deadline, struct progress *p, const char **stage, char *addr,
    size_t cap, struct box_err *e);

/*
 * Bring up a copy whose identity is already its own (clone, fork: a
 * container's written before it boots): started (a VM: answering, its id
 * regenerated inside), and the address it will hold, read from the pin
 * Incus writes as its NIC starts (dnsmasq leases that address to its MAC
 * alone) and checked against every other pin on the network: no wait for
 * the DHCP exchange itself.  A NIC with no pin (not on a managed network)
 * is waited for until it holds a lease (*leased = 1) that no other
 * instance holds.  pre: the copy as read before its start (its MAC and
 * NICs; NULL: read after).  *stage names the step that failed.
 */
int life_clone_up(struct incus *c, const char *name, int vm,
    const struct incus_instance *pre, long long deadline, struct progress *p,
    const char **stage, char *addr, size_t cap, int *leased,
    struct box_err *e);

#endif
