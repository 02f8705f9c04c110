/*
 * box fork <box> <new> [--slow] - a copy of a running box that never
 * stops it: a copy-on-write snapshot of the source, a copy of that, and
 * the copy brought up as a clone is (re-stamped, a machine identity, a MAC
 * and so a lease of its own, the source's doors left behind, its egress
 * policy carried).  The pipeline is box/life/mint_run.c's; refused on a pool
 * without copy-on-write unless --slow.
 */
#include <stdio.h>
#include <string.h>

#include "box/each.h"
#include "box/life/mint_run.h"
#include "cmd/cmd.h"
#include "util/opt.h"

int
cmd_fork(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct box_mint_req q;
	struct box_mint_out out;
	int rc, slow;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<new>", 1, 1, OC_NONE, NULL),
		OPT_FLAG("--slow", NULL, &slow, "on a pool without "
		    "copy-on-write (dir): copy every byte of the running box "
		    "instead of refusing"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = box_new_name_ok(res.pos[1], "", e)) < 0)
		return rc;
	memset(&q, 0, sizeof(q));
	q.name = res.pos[1];
	q.from = res.pos[0];
	q.fork = 1;
	q.slow = slow;
	if ((rc = box_mint(&q, &out, e)) < 0)
		return rc;
	printf("%s\n", out.ready);
	return 0;
}
