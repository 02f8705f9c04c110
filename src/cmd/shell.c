/*
 * box shell <box> - a login shell in the box as the box's user (see
 * session_run() in exec.c for how the user and the login come about).
 * Words after the box are a command, as ssh takes them (box ssh b ls):
 * run the way box exec runs it.
 */
#include <errno.h>

#include "cmd/cmd.h"
#include "cmd/session.h"

int
cmd_shell(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_STRAY("<cmd>"),	/* ssh's habit: box ssh b ls */
		OPT_REST("<cmd...>", "a command instead of the shell, as box "
		    "exec runs it (the -- may be left out, as with ssh)"),
		OPT_END
	};
	struct opt_result res;
	int rc;

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if (res.dashdash && res.npos > 1)
		return err_usage(e, "one -- only, right after the box");
	if (res.dashdash)
		return session_run(res.pos[0], res.rest, res.nrest, 0, e);
	return session_run(res.pos[0], res.pos + 1, res.npos - 1, 0, e);
}
