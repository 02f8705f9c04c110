/*
 * box down <box>|all... [--force] - stop boxes, or every box.  The guest is
 * asked to shut down and given LIFE_GRACE_S seconds; one that does not is
 * stopped the hard way, and box says so.  --force stops it at once (a
 * forced stop: no shutdown is asked for, nothing waited on).
 *
 * Decision: a box that is already stopped is not an error (the original
 * passed on Incus's "already stopped" failure); `down` means "be down".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/each.h"
#include "box/life/life.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"

static int
down_one(struct incus *c, const struct box_info *bi, void *arg,
    struct box_err *e)
{
	return life_down(c, bi->name, bi->status, *(const int *)arg,
	    LIFE_GRACE_S, e);
}

int
cmd_down(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	int rc, force;
	const struct opt rows[] = {
		OPT_PICK_ARG,
		OPT_FLAG("--force", "-f", &force, "stop at once, asking "
		    "nothing"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	return box_pick_each(res.pos, res.npos, "stop", force, 1, NULL,
	    down_one, &force, e);
}
