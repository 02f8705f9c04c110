/*
 * box down <box> [--force] - stop a box.  The guest is asked to shut down
 * and given DOWN_GRACE_S seconds; one that does not is stopped the hard
 * way, and box says so.  --force skips the asking.
 *
 * Decision: a box that is already stopped is not an error (the original
 * passed on Incus's "already stopped" failure); `down` means "be down".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/life.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"

#define DOWN_GRACE_S 30

int
cmd_down(int argc, char **argv, struct box_err *e)
{
	struct opt opts[] = {
		{ "--force", "-f", 0, NULL, 0 },
		{ NULL, NULL, 0, NULL, 0 }
	};
	struct opt_result res;
	struct box_info bi;
	struct incus c;
	int rc, forced = 0;

	rc = opt_parse(argc, argv, opts, &res, e);
	if (rc < 0)
		return rc;
	if (res.npos != 1 || res.dashdash)
		return err_usage(e, "usage: box down <box> [--force]");
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_resolve(&c, res.pos[0], &bi, e)) < 0)
		goto out;
	if (strcmp(bi.status, "Stopped") == 0) {
		life_say("%s is already stopped", res.pos[0]);
		goto out;
	}
	if (opts[0].seen)
		rc = life_state(&c, res.pos[0], "stop", 1, 0, e);
	else
		rc = life_stop(&c, res.pos[0], DOWN_GRACE_S, &forced, e);
	if (rc == 0 && forced)
		life_say("%s did not shut down within %d s; stopped it "
		    "forcibly", res.pos[0], DOWN_GRACE_S);
	if (rc == 0)
		life_say("stopped %s", res.pos[0]);
out:
	incus_close(&c);
	return rc;
}
