/*
 * box rename <box> <new-name> - rename a stopped box; its snapshots
 * follow.  Incus refuses a running instance; box says so first, with the
 * fix.  POST /1.0/instances/<box> {"name": "<new>"}.
 */
#include "box/each.h"
#include "box/life/life.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"

int
cmd_rename(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<new-name>", 1, 1, OC_NONE, NULL),
		OPT_END
	};
	struct opt_result res;
	struct incus c;
	int rc;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = box_new_name_ok(res.pos[1], "", e)) < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	rc = life_rename(&c, res.pos[0], res.pos[1], e);
	incus_close(&c);
	return rc;
}
