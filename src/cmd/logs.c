/*
 * box logs <box> [--cloud-init] [--follow] [--lines N] - what the box
 * wrote to its console, or cloud-init's output log (box/logs.h).
 */
#include <unistd.h>

#include "box/box.h"
#include "box/logs.h"
#include "cmd/cmd.h"
#include "util/opt.h"

int
cmd_logs(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct logs_req q;
	int rc, ci, follow, lines = 0;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_FLAG("--cloud-init", NULL, &ci, "cloud-init's output log "
		    "(" LOGS_CLOUD_INIT_PATH ") instead of the console"),
		OPT_FLAG("--follow", "-f", &follow, "keep showing what is "
		    "written, a look a second, until interrupted"),
		{ OK_INT, OC_NONE, 0, "--lines", "-n", "N", &lines, 1,
		    1000000, NULL, "only the last N lines (of the first look, "
		    "with --follow)" },
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if ((rc = box_name_check(res.pos[0], "", e)) < 0)
		return rc;
	q.name = res.pos[0];
	q.src = ci ? LOGS_CLOUD_INIT : LOGS_CONSOLE;
	q.follow = follow;
	q.lines = lines;
	q.shown = isatty(1);
	return box_logs(&q, e);
}
