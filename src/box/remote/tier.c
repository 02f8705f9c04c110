/*
 * tier.c - the caller's tier from getuid() and getgroups().
 */
#include "box/remote/incus_env.h"
#include "box/remote/tier.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <unistd.h>

#include "box/remote/profile.h"
#include "incus/api.h"
#include "model/names.h"

#define TIER_MAX_GROUPS 256

/* The process's own tier, a memo: the credentials it is computed from do
 * not change during a run, and every verb asks it (-1: not asked yet). */
static int cached = -1;

int
tier_of(unsigned uid, const unsigned *gids, int ngids, long admin_gid,
    long user_gid)
{
	int i, user = 0;

	if (uid == 0)
		return TIER_ADMIN;
	for (i = 0; i < ngids; i++) {
		if (admin_gid >= 0 && gids[i] == (unsigned)admin_gid)
			return TIER_ADMIN;
		if (user_gid >= 0 && gids[i] == (unsigned)user_gid)
			user = 1;
	}
	return user ? TIER_RESTRICTED : TIER_NONE;
}

static long
group_gid(const char *name)
{
	struct group *g = getgrnam(name);

	return g != NULL ? (long)g->gr_gid : -1;
}

int
tier_get(void)
{
	gid_t raw[TIER_MAX_GROUPS];
	unsigned gids[TIER_MAX_GROUPS + 1];
	int n, i;

	if (cached >= 0)
		return cached;
	n = getgroups(TIER_MAX_GROUPS, raw);
	if (n < 0)
		n = 0;
	for (i = 0; i < n; i++)
		gids[i] = raw[i];
	gids[n++] = getegid();
	cached = tier_of(geteuid(), gids, n, group_gid(TIER_GROUP_ADMIN),
	    group_gid(TIER_GROUP_USER));
	return cached;
}

void
tier_force(int tier)
{
	cached = tier;
}

const char *
tier_name(int tier)
{
	return tier == TIER_ADMIN ? "admin" :
	    tier == TIER_RESTRICTED ? "restricted" : "none";
}

void
tier_project(unsigned uid, char *buf, unsigned cap)
{
	snprintf(buf, cap, TIER_PROJECT_PREFIX "%u", uid);
}

void
tier_apply(void)
{
	char proj[32];

	if (tier_get() != TIER_RESTRICTED) {
		incus_env_apply(NULL, NULL);
		return;
	}
	tier_project(geteuid(), proj, sizeof(proj));
	incus_env_apply(TIER_USER_SOCKET, proj);
}

int
tier_require_admin(const char *verb, struct box_err *e)
{
	int t = tier_get();

	if (t == TIER_ADMIN)
		return 0;
	err_set(e, -EPERM, "%s is for an admin of this host (root or a member "
	    "of '" TIER_GROUP_ADMIN "'); you have the %s tier", verb,
	    tier_name(t));
	if (t == TIER_RESTRICTED)
		err_fix(e, "ask an admin to run it (sudo box %s)", verb);
	else
		err_fix(e, "ask an admin: sudo box %s, or sudo box grant <you> "
		    "for boxes of your own", verb);
	return -EPERM;
}

int
tier_require_root(const char *verb, struct box_err *e)
{
	int rc = tier_require_admin(verb, e);

	if (rc < 0 || geteuid() == 0)
		return rc;
	err_set(e, -EPERM, "%s changes users and groups: it needs root", verb);
	err_fix(e, "sudo box %s ...", verb);
	return -EPERM;
}

int
tier_mint_gate(struct incus *c, struct box_err *e)
{
	int rc, exists, ok;

	if (tier_get() != TIER_RESTRICTED)
		return 0;
	rc = profile_check(c, &exists, &ok, e);
	if (rc < 0)
		return rc;
	if (!exists) {
		err_set(e, -ENOENT, "your project %s has no " CONTRACT_PROFILE
		    " profile: it was never granted, or it was taken apart",
		    c->project);
		err_fix(e, "ask an admin: box grant <you>");
		return -ENOENT;
	}
	if (!ok) {
		err_set(e, -EPERM, "the " CONTRACT_PROFILE " profile in %s is "
		    "not the contract's (NIC on " CONTRACT_BRIDGE " with port "
		    "isolation and the MAC/IPv4/IPv6 filters, a root disk, "
		    "nothing else): a box minted from it would not be "
		    "isolated, so none is minted", c->project);
		err_fix(e, "ask an admin to converge it again: box grant <you>");
		return -EPERM;
	}
	return 0;
}
