/*
 * box start <box> - start a stopped box.  PUT .../state {"action":"start"}.
 * Already running is not an error (see down.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/life.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"

int
cmd_start(int argc, char **argv, struct box_err *e)
{
	struct opt opts[] = { { NULL, NULL, 0, NULL, 0 } };
	struct opt_result res;
	struct box_info bi;
	struct incus c;
	int rc;

	rc = opt_parse(argc, argv, opts, &res, e);
	if (rc < 0)
		return rc;
	if (res.npos != 1 || res.dashdash)
		return err_usage(e, "usage: box start <box>");
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_resolve(&c, res.pos[0], &bi, e)) < 0)
		goto out;
	if (bi.running) {
		life_say("%s is already running", res.pos[0]);
		goto out;
	}
	rc = life_state(&c, res.pos[0], "start", 0, 0, e);
	if (rc == 0)
		life_say("started %s", res.pos[0]);
out:
	incus_close(&c);
	return rc;
}
