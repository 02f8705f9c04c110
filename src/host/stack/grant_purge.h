/*
 * grant_purge.h - revoke --purge: a user's sessions ended, then every
 * object the restricted tier made deleted and looked for again.
 */
#ifndef BOX_GRANT_PURGE_H
#define BOX_GRANT_PURGE_H

#include <stddef.h>

#include "host/stack/grant.h"
#include "incus/api.h"
#include "util/err.h"

/*
 * SIGTERM, then SIGKILL, every process of the user; returns how many are
 * still alive (named in left): purge refuses under them.
 */
int grant_end_sessions(const struct grant_user *u, char *left, size_t cap);

/*
 * Delete the project's boxes (security.protection.delete turned off on
 * each, stopped first), images, profiles but default, every disk with a
 * source off the default profile, custom volumes, the project and the
 * private bridge (the trust entries and the state directory went with
 * grant_cut()).  An object that fails is said and skipped, the rest still
 * go; then -EBUSY names every one that failed.  Names from the daemon are
 * shown escaped.
 */
int grant_purge(struct incus *c, const struct grant_user *u,
    struct box_err *e);

/* 1 when something survives (named in left), 0 when all is gone. */
int grant_absent(struct incus *c, const struct grant_user *u, char *left,
    size_t cap, struct box_err *e);

#endif
