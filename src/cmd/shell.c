/*
 * box shell <box> - a login shell in the box as the box's user (see
 * session_run() in exec.c for how the user and the login come about).
 */
#include <errno.h>

#include "cmd/cmd.h"
#include "cmd/session.h"

int
cmd_shell(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_END
	};
	struct opt_result res;
	int rc;

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	return session_run(res.pos[0], NULL, 0, 0, e);
}
