/*
 * discard.h - removing a box: a finished one (rm, an import that replaces
 * it) and one that was being made and was not finished (a mint, a clone,
 * an import), each written once for all of its callers.
 */
#ifndef BOX_DISCARD_H
#define BOX_DISCARD_H

#include "box/box.h"
#include "box/each.h"
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
 * Remove the box name (read by box_get()): first the ACL rules its NAT
 * doors opened (best effort: they would only match an address that is
 * gone), then the instance and its snapshots.  The caller has asked.
 * With stopped, a box that runs (started since the caller listed it) is
 * kept: 1.  0 when removed, < 0 when it could not be.
 */
int box_remove(struct incus *c, const char *name, int stopped,
    struct box_err *e);

/*
 * rm and prune: box_pick_run() of p (verb, force as there), each box
 * box_remove()d and said ("removed <name>"): whatever it is doing (rm),
 * or with stopped only while it is stopped (prune), one that runs again
 * kept and said.  Then, when all went, the egress policies are synced
 * (box/egress/egress_sync.h, egress_sync_if): the boxes' sets and resolver lines
 * go with them, when they had any.
 */
int box_remove_picked(struct incus *c, const struct box_pick *p,
    const char *verb, int force, int stopped, struct box_err *e);

#endif
