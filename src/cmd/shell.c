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
	if (argc != 2 || argv[1][0] == '-')
		return err_usage(e, "usage: box shell <box>");
	return session_run(argv[1], NULL, 0, 0, e);
}
