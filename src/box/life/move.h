/*
 * move.h - a stopped box onto another storage pool of the same daemon
 * (box move): its disk and snapshots copied there by the daemon, its
 * identity (name, MAC and so its lease, machine id) and its policy
 * (egress, stamps) kept, because the instance itself is the same one.
 */
#ifndef BOX_MOVE_H
#define BOX_MOVE_H

#include <stddef.h>

#include "util/err.h"

/* from: the pool it was on, for the verb's line. */
int box_move(const char *name, const char *pool, char *from, size_t cap,
    struct box_err *e);
/*
 * A stopped box to another member of an Incus cluster, one in group box
 * (box/place.h); the same instance, so its identity and policy stay.
 * from: the member it was on.
 */
int box_move_member(const char *name, const char *member, char *from,
    size_t cap, struct box_err *e);

#endif
