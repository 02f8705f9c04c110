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

#endif
