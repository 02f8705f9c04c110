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
	const struct opt rows[] = {
		OPT_ARG("<box>|all", 1, 1, OC_BOX, NULL),
		OPT_END
	};
	struct opt_result res;
	struct box_info bi;
	struct incus c;
	int rc;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if (box_is_all(res.pos[0]))
		rc = box_each(&c, "start", start_one, NULL, e);
	else if ((rc = box_resolve(&c, res.pos[0], &bi, e)) == 0)
		rc = start_one(&c, &bi, NULL, e);
	incus_close(&c);
	return rc;
}
