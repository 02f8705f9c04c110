/*
 * grant.c - `box grant <user>`: give a user the restricted tier.  The
 * steps are host/stack/grant_run.c; this file is the options, one call
 * and the verdict.
 */
#include <stdio.h>

#include "box/remote/tier.h"
#include "cmd/cmd.h"
#include "host/stack/grant_run.h"
#include "model/names.h"
#include "util/opt.h"

int
cmd_grant(int argc, char **argv, struct box_err *e)
{
	int rc, gpu = 0, accept = 0;
	const struct opt rows[] = {
		OPT_ARG("<user>", 1, 1, OC_NONE, "an existing login"),
		OPT_FLAG("--gpu", NULL, &gpu, "let the user's boxes hold the "
		    "host's GPUs (restricted.devices.gpu=allow); without it "
		    "they are blocked"),
		OPT_FLAG("--accept-daemon-risk", NULL, &accept, "grant even "
		    "though the daemon fails a gate: the user then gets "
		    "every project's boxes (the admin's and every other "
		    "user's, copied and read) and root on this host; said "
		    "loudly, and doctor FAILs"),
		OPT_END
	};
	struct opt_result res;
	struct grant_done d;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = grant_run(res.pos[0], gpu, accept, &d, e)) < 0)
		return rc;
	printf("granted: %s has the restricted tier — their 'box new' lands "
	    "on the hardened " CONTRACT_BRIDGE ".\n", d.u.name);
	if (d.admin_member)
		fprintf(stderr, "  CAVEAT: %s is also in '" TIER_GROUP_ADMIN
		    "', which wins at the socket: to make the project theirs, "
		    "gpasswd -d %s " TIER_GROUP_ADMIN "\n", d.u.name, d.u.name);
	return 0;
}
