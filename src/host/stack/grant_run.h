/*
 * grant_run.h - `box grant <user>` and `box revoke <user>`: the
 * restricted tier given and taken back, each as one call (grant_run.c
 * says the steps).  Progress goes to stderr; the caller prints the
 * verdict.
 */
#ifndef BOX_GRANT_RUN_H
#define BOX_GRANT_RUN_H

#include "host/stack/grant.h"
#include "util/err.h"

/* What the caller renders after a grant. */
struct grant_done {
	struct grant_user u;
	int admin_member;	/* also in TIER_GROUP_ADMIN (wins at the socket) */
};

/*
 * Grant user name the tier (root, not nested-refused): gpu lets their
 * boxes hold the host's GPUs; accept grants on a daemon that follows an
 * image's symlinks (said loudly).  0, or the failure with what was backed
 * out in its fix line.
 */
int grant_run(const char *name, int gpu, int accept, struct grant_done *d,
    struct box_err *e);

/*
 * Take the tier back from u (looked up, consent had): the group, then
 * incus-user's side.  purge_all: end u's processes and delete everything
 * the tier made, then look for it again.  *admin_member: u is still in
 * TIER_GROUP_ADMIN, which keeps full access.
 */
int grant_revoke(const struct grant_user *u, int purge_all,
    int *admin_member, struct box_err *e);

#endif
