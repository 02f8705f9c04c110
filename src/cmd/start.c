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
#include "box/life.h"
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
	struct box_pick p;
	struct incus c;
	int rc, force;
	const struct opt rows[] = {
		OPT_ARG("<box>|all", 1, OPT_ANY, OC_BOX, "boxes, glob "
		    "patterns ('w-*') or all; all, or a pattern naming more "
		    "than one box, asks first"),
		OPT_FLAG("--force", "-f", &force, "start them without asking"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_pick(&c, res.pos, res.npos, &p, e)) == 0)
		rc = box_pick_run(&c, &p, "start", force, 1, start_one, NULL,
		    e);
	box_pick_free(&p);
	incus_close(&c);
	return rc;
}
