/*
 * box restart <box>|all [--force] - stop a box the way `down` does (a
 * graceful shutdown within LIFE_GRACE_S seconds, else forcibly; --force:
 * at once), then start it.
 *
 * Decisions: a stopped box named on its own is started (restart means
 * "be freshly up"); `restart all` restarts the running boxes and leaves
 * the stopped ones stopped, since stopping one was somebody's choice.
 * Stop and start rather than Incus's own restart action: the same
 * grace-then-force rule as `down`, said the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/each.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"

struct how {
	int force;
	int all;
};

static int
restart_one(struct incus *c, const struct box_info *bi, void *arg,
    struct box_err *e)
{
	const struct how *h = arg;
	int rc;

	if (!bi->running && h->all) {
		life_say("%s is %s; left as it is", bi->name,
		    bi->status[0] ? bi->status : "not running");
		return 0;
	}
	if (!bi->running) {
		life_say("%s was not running", bi->name);
		return life_up(c, bi->name, 0, e);
	}
	if ((rc = life_down(c, bi->name, bi->status, h->force, LIFE_GRACE_S,
	    e)) < 0)
		return rc;
	if ((rc = life_up(c, bi->name, 0, e)) < 0) {
		err_fix(e, "it is stopped now: box start %s", bi->name);
		return rc;
	}
	life_say("restarted %s", bi->name);
	return 0;
}

int
cmd_restart(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct how h;
	int rc;
	const struct opt rows[] = {
		OPT_PICK_ARG,
		OPT_FLAG("--force", "-f", &h.force, "stop at once instead of "
		    "asking the box to shut down (and ask nothing)"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	/* h.all: many picked, so the stopped ones stay stopped */
	return box_pick_each(res.pos, res.npos, "restart", h.force, 1, &h.all,
	    restart_one, &h, e);
}
