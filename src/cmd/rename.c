/*
 * box rename <box> <new-name> - rename a stopped box; its snapshots
 * follow.  Incus refuses a running instance; box says so first, with the
 * fix.  POST /1.0/instances/<box> {"name": "<new>"}.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/each.h"
#include "box/life.h"
#include "cmd/cmd.h"
#include "host/stack/egress_host.h"
#include "incus/api.h"
#include "incus/instance.h"
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
	struct box_info bi;
	struct incus c;
	int rc;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = box_new_name_ok(res.pos[1], "", e)) < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_resolve(&c, res.pos[0], &bi, e)) < 0)
		goto out;
	if (strcmp(bi.status, "Stopped") != 0) {
		rc = err_set(e, -EBUSY, "box %s is not stopped — Incus "
		    "renames only a stopped instance", res.pos[0]);
		err_fix(e, "stop it first: box down %s", res.pos[0]);
		goto out;
	}
	if ((rc = life_exists(&c, res.pos[1], e)) != 0) {
		if (rc > 0)
			rc = err_set(e, -EEXIST, "an instance named %s already "
			    "exists", res.pos[1]);
		goto out;
	}
	rc = incus_instance_rename(&c, res.pos[0], res.pos[1], LIFE_OP_S, e);
	if (rc == 0)
		life_say("renamed %s to %s", res.pos[0], res.pos[1]);
	/* its egress sets are named after it */
	if (rc == 0)
		rc = egress_sync_box(&c, res.pos[1], e);
out:
	incus_close(&c);
	return rc;
}
