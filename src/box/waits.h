/*
 * waits.h - the waits that tell a box is up: an operation, a command
 * answering in it, an address of its own; and bringing a copy up.
 */
#ifndef BOX_WAITS_H
#define BOX_WAITS_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/instance.h"
#include "util/err.h"
#include "util/progress.h"

/*
 * Wait for an operation until deadline (clock_ms() clock), showing
 * its progress text on p (may be NULL).  The final operation object is at
 * r->metadata on success; -ETIMEDOUT when the deadline passed first,
 * -EINTR when interrupted.
 */
int life_wait_op(struct incus *c, const char *op, long long deadline,
    struct progress *p, struct incus_reply *r, struct box_err *e);

/*
 * Run `sh -c script` as root in the box, stdout (at most cap - 1 bytes,
 * NUL-terminated) into out, within timeout_ms.  *code is its exit status.
 */
int life_sh(struct incus *c, const char *name, const char *script,
    char *out, size_t cap, int timeout_ms, int *code, struct box_err *e);

/* Until a command runs in the box (the guest agent answers), or deadline. */
int life_wait_agent(struct incus *c, const char *name, long long deadline,
    struct progress *p, struct box_err *e);

/*
 * Until the box holds an IPv4 address on its box bridge, or deadline; the
 * address into addr.
 */
int life_wait_address(struct incus *c, const char *name, long long deadline,
    struct progress *p, char *addr, size_t cap, struct box_err *e);

/* The name of another running instance holding addr into who, or "". */
int life_address_holder(struct incus *c, const char *self, const char *addr,
    char *who, size_t cap, struct box_err *e);

/*
 * Bring up a fresh copy (clone, import) of a box: a machine identity of its
 * own, started, answering, holding an address on its bridge that no other
 * instance holds.  *stage names the step that failed.  id_done: a
 * container's identity is already arranged (box/import_id.h); a VM's is
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
