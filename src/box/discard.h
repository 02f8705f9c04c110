/*
 * discard.h - removing a box that was being made and was not finished (a
 * mint, a clone, an import), written once for all of them.
 */
#ifndef BOX_DISCARD_H
#define BOX_DISCARD_H

#include "incus/api.h"

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

#endif
