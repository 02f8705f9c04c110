/*
 * box start <box>|all - start a stopped box, or every box.
 * PUT .../state {"action":"start"}.  Already running is not an error (see
 * down.c).
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
start_one(struct incus *c, const struct box_info *bi, void *arg,
    struct box_err *e)
{
	(void)arg;
	return life_up(c, bi->name, bi->running, e);
}

int
cmd_start(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	int rc, force;
	const struct opt rows[] = {
		OPT_PICK_ARG,
		OPT_FLAG("--force", "-f", &force, "start them without asking"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	return box_pick_each(res.pos, res.npos, "start", force, 1, NULL,
	    start_one, NULL, e);
}
