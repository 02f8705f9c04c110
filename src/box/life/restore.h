/*
 * restore.h - `box restore`: a box rolled back to one of its snapshots,
 * and its shape re-asserted before it runs again.
 *
 * A snapshot's devices come back with it: an eth0 of its own replaces the
 * profile's whole (one of type, network and an address took the NIC's
 * filters off: a forged ARP from the box moved the host's entry for a
 * sibling), and a door it held comes back open though nobody opened it.
 * So a running box is stopped first, rolled back, and before it starts
 * again every local NIC that is not the contract's NIC whole plus a pinned
 * address (box/life/vet.h) is removed (the profile's takes over) and every door
 * the box did not have just before the restore is closed; each said.
 */
#ifndef BOX_RESTORE_H
#define BOX_RESTORE_H

#include "incus/api.h"
#include "util/err.h"

int box_restore(struct incus *c, const char *box, const char *snap,
    struct box_err *e);

#endif
