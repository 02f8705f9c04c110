/*
 * box rm <box> [--force] - delete a box and its snapshots.  Destructive:
 * asks on a terminal, or needs --force (BOX_YES is deliberately not read).
 * The ingress rules its doors opened on the box network's ACL go with it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/discard.h"
#include "box/life.h"
#include "cmd/cmd.h"
#include "host/stack/egress_host.h"
#include "incus/api.h"
#include "util/opt.h"
#include "util/prompt.h"

int
cmd_rm(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_instance in;
	struct incus c;
	char q[200];
	int rc, force;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_FLAG("--force", "-f", &force, "delete without asking "
		    "(needed without a terminal)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_get(&c, res.pos[0], 0, &in, NULL, e)) < 0)
		goto out;
	snprintf(q, sizeof(q), "delete %s and all its snapshots", res.pos[0]);
	rc = consent_or_force(q, force, "--force", e);
	if (rc == 0)
		rc = box_remove(&c, &in, e);
	incus_instance_free(&in);
	if (rc == 0)
		life_say("removed %s", res.pos[0]);
	/* its sets and resolver lines go with it (when it had any) */
	if (rc == 0)
		rc = egress_sync_if(&c, 0, e);
out:
	incus_close(&c);
	return rc;
}
