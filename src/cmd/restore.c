/*
 * box restore <box> <snapshot> [--force] - roll a box back to a snapshot.
 * Destructive: asks on a terminal, or needs --force (BOX_YES is not read).
 * A running box is stopped, rolled back, its shape re-asserted (no NIC
 * but box-net's with its filters, no door it did not have: box/life/restore.h)
 * and started again (snapshots are stateless: a crash-consistent
 * rollback).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/life/life.h"
#include "box/life/restore.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "incus/instance.h"
#include "util/opt.h"
#include "util/prompt.h"

int
cmd_restore(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_snapshot snap;
	struct incus c;
	char q[300];
	int rc, force;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<snapshot>", 1, 1, OC_NONE, NULL),
		OPT_FLAG("--force", "-f", &force, "roll back without asking "
		    "(needed without a terminal)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_resolve(&c, res.pos[0], NULL, e)) < 0)
		goto out;
	rc = incus_snapshot_get(&c, res.pos[0], res.pos[1], &snap, e);
	if (rc == -ENOENT) {
		err_clear(e);
		rc = err_set(e, -ENOENT, "%s has no snapshot '%s'", res.pos[0],
		    res.pos[1]);
		err_fix(e, "box info %s lists its snapshots", res.pos[0]);
	}
	if (rc < 0)
		goto out;
	snprintf(q, sizeof(q), "roll %s back to snapshot '%s' and discard "
	    "everything in the box since it was taken", res.pos[0],
	    res.pos[1]);
	if ((rc = consent_or_force(q, force, "--force", e)) < 0)
		goto out;
	rc = box_restore(&c, res.pos[0], res.pos[1], e);
out:
	incus_close(&c);
	return rc;
}
