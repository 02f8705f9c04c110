/*
 * box rm <box>... [--force] - delete boxes and their snapshots.  Destructive:
 * asks on a terminal, or needs --force (BOX_YES is deliberately not read).
 * The ingress rules its doors opened on the box network's ACL go with it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/life/discard.h"
#include "box/each.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"
#include "util/prompt.h"

int
cmd_rm(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct box_pick p;
	struct incus c;
	char q[200];
	int rc, force;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, OPT_ANY, OC_BOX, "boxes, or glob patterns "
		    "('w-*'; all is every box)"),
		OPT_FLAG("--force", "-f", &force, "delete without asking "
		    "(needed without a terminal)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_pick(&c, res.pos, res.npos, &p, e)) < 0)
		goto out;
	if (p.n == 1 && !p.wide) {
		snprintf(q, sizeof(q), "delete %s and all its snapshots",
		    p.v[0].name);
		if ((rc = consent_or_force(q, force, "--force", e)) == 0)
			rc = box_remove_picked(&c, &p, "delete", 1, 0, e);
	} else {
		p.wide = 1;	/* several: one question for all of them */
		rc = box_remove_picked(&c, &p, "delete (with their snapshots)",
		    force, 0, e);
	}
out:
	box_pick_free(&p);
	incus_close(&c);
	return rc;
}
