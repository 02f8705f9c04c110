/*
 * box root <box> [-- <cmd...>] - a root login shell in the box (or one
 * command as root), whoever the box's user is and whether or not it
 * exists: the way back into a box whose user is broken, or an image
 * without sudo.
 *
 * Incus starts every exec as uid 0 already, so this is the same session
 * as `box shell` (session_run() in exec.c) with the user forced to root:
 * the login shell is exec'd directly, never through su or sudo, so
 * neither PAM nor a sudoers file nor the box's user is involved.
 */
#include <errno.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/session.h"

int
cmd_root(int argc, char **argv, struct box_err *e)
{
	if (argc < 2 || argv[1][0] == '-')
		return err_usage(e, "usage: box root <box> [-- <cmd...>]");
	if (argc == 2)
		return session_run(argv[1], NULL, 0, SESSION_ROOT, e);
	if (strcmp(argv[2], "--") != 0 || argc == 3)
		return err_usage(e, "usage: box root <box> [-- <cmd...>] (the "
		    "command goes after --)");
	return session_run(argv[1], argv + 3, argc - 3, SESSION_ROOT, e);
}
