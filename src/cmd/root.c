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
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_REST("<cmd...>", "one command to run as root instead of a "
		    "shell"),
		OPT_END
	};
	struct opt_result res;
	int rc;

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if (!res.dashdash)
		return session_run(res.pos[0], NULL, 0, SESSION_ROOT, e);
	if (res.nrest == 0) {
		opt_usage(argv[0], rows, e);
		e->fix[0] = '\0';
		err_fix(e, "the command goes after --");
		return -EINVAL;
	}
	return session_run(res.pos[0], res.rest, res.nrest, SESSION_ROOT, e);
}
