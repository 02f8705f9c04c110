/*
 * revoke.c - `box revoke <user> [--purge] [--force]`: the restricted tier
 * taken back (the steps, and why in that order: host/stack/grant_run.c).
 * --purge asks first (terminal, --force or BOX_YES).  This file is the
 * options, the consent, one call and the verdict.
 */
#include <stdio.h>

#include "box/remote/tier.h"
#include "cmd/cmd.h"
#include "host/stack/grant.h"
#include "host/stack/grant_run.h"
#include "util/opt.h"
#include "util/prompt.h"

int
cmd_revoke(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct grant_user u;
	char q[256];
	int rc, yes, purge_all, force, admin;
	const struct opt rows[] = {
		OPT_ARG("<user>", 1, 1, OC_NONE, NULL),
		OPT_FLAG("--purge", NULL, &purge_all, "also end the user's "
		    "processes (refused if one survives), then delete the "
		    "project's boxes, images, profiles and custom volumes, the "
		    "project, the private bridge, the trust entry "
		    "incus-user-<uid> and incus-user's state directory, and "
		    "check that none of it is left, naming any survivor"),
		OPT_FLAG("--force", "-f", &force, "--purge without asking (as "
		    "BOX_YES=1); with neither and no terminal it refuses "
		    "(exit 2)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((yes = consent_env(e)) < 0)
		return yes;
	if ((rc = tier_require_root("revoke", e)) < 0 ||
	    (rc = grant_user_lookup(res.pos[0], &u, e)) < 0)
		return rc;
	if (purge_all && !force && !yes) {
		snprintf(q, sizeof(q), "delete ALL of %s's boxes, images and "
		    "their project %s?", u.name, u.project);
		if ((rc = prompt_consent(q, "--force (or BOX_YES=1)", e)) < 0)
			return rc;
	}
	if ((rc = grant_revoke(&u, purge_all, &admin, e)) < 0)
		return rc;
	if (purge_all)
		printf("revoked: %s is out, and everything the tier created is "
		    "gone.\n", u.name);
	else
		printf("revoked: %s no longer has the restricted tier.\n",
		    u.name);
	if (admin)
		fprintf(stderr, "  NOTE: %s is still in '" TIER_GROUP_ADMIN
		    "', which keeps full access: gpasswd -d %s "
		    TIER_GROUP_ADMIN "\n", u.name, u.name);
	return 0;
}
