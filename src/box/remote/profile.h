/*
 * profile.h - the box-net profile of a project, read from the daemon and
 * judged by content against the contract's devices (model/profile.h):
 * exactly the NIC and the root disk, no config.
 *
 * setup-host and grant converge it (host/stack/stack.c) and check it;
 * the mint gate of a restricted caller (box/remote/tier.c) refuses to mint from
 * one that is not the contract's; doctor reports it.
 */
#ifndef BOX_BOX_PROFILE_H
#define BOX_BOX_PROFILE_H

#include "incus/api.h"
#include "incus/profile.h"
#include "util/err.h"

/* The profile in c's project: 1 with p filled, 0 when there is none (e
 * cleared), -errno. */
int profile_get(struct incus *c, struct incus_profile *p, struct box_err *e);

/*
 * Does p hold exactly the contract's NIC and root disk and no config?
 * pool is the pool the root disk must name (NULL: any pool's name will
 * do, for the readers that judge a profile).
 */
int profile_matches(const struct incus_profile *p, const char *pool);

/*
 * Read the box-net profile (in c's project) and compare it with the
 * contract by content: *exists, and *ok when it holds exactly the
 * contract's NIC and root disk and no config.
 */
int profile_check(struct incus *c, int *exists, int *ok, struct box_err *e);

#endif
