/*
 * discard.h - removing a box: a finished one (rm, an import that replaces
 * it) and one that was being made and was not finished (a mint, a clone,
 * an import), each written once for all of its callers.
 */
#ifndef BOX_DISCARD_H
#define BOX_DISCARD_H

#include "incus/api.h"
#include "incus/instance.h"

/*
 * Wait out an operation of ours still running on the daemon (pending:
 * its handle, or NULL/""; the instance it makes can only be removed once
 * it is done), then delete name if it exists, saying "removing the
 * <what> <name>" when what is not NULL ("half-made box",
 * "half-imported").  Never fails: the caller's error is the story; a
 * removal that fails is a warning naming the fix.
 */
void box_discard(struct incus *c, const char *name, const char *what,
    const char *pending);

/*
 * Remove the box in (as read by box_get()): first the ACL rules its NAT
 * doors opened (best effort: they would only match an address that is
 * gone), then the instance and its snapshots.  The caller has asked.
 */
int box_remove(struct incus *c, const struct incus_instance *in,
    struct box_err *e);

#endif
