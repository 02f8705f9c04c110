/*
 * box restore <box> <snapshot> [--force] - roll a box back to a snapshot.
 * Destructive: asks on a terminal, or needs --force (BOX_YES is not read).
 * A running box is stopped, rolled back and started again by the daemon
 * (snapshots are stateless: a crash-consistent rollback).
 * PUT /1.0/instances/<box> {"restore": "<snapshot>"}.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/life.h"
#include "cmd/cmd.h"
#include "host/egress_host.h"
#include "incus/api.h"
#include "util/opt.h"

int
cmd_restore(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_reply r;
	struct incus c;
	struct json_w w;
	char path[400], esc[200], q[300], *body;
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
	if (url_escape(res.pos[1], esc, sizeof(esc)) < 0) {
		rc = err_usage(e, "snapshot name too long");
		goto out;
	}
	snprintf(path, sizeof(path), "/1.0/instances/%s/snapshots/%s",
	    res.pos[0], esc);
	rc = incus_call(&c, "GET", path, NULL, &r, e);
	incus_reply_free(&r);
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
	if ((rc = life_consent(q, force, e)) < 0)
		goto out;
	json_w_init(&w, 1024);
	json_w_obj(&w);
	json_w_key(&w, "restore");
	json_w_str(&w, res.pos[1]);
	json_w_end(&w, '}');
	if (json_w_finish(&w, &body, NULL) < 0) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), "/1.0/instances/%s", res.pos[0]);
	rc = incus_do(&c, "PUT", path, body, LIFE_OP_S, &r, e);
	incus_reply_free(&r);
	free(body);
	if (rc == 0)
		life_say("restored %s to %s", res.pos[0], res.pos[1]);
	/* the snapshot's config is back, its egress policy with it */
	if (rc == 0)
		rc = egress_sync_box(&c, res.pos[0], e);
out:
	incus_close(&c);
	return rc;
}
