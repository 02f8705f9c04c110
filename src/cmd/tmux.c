/*
 * box tmux <box> [<session>] - attach to the tmux session in the box, or
 * create it (tmux new-session -A), as the box's user.  The session name
 * defaults to "main".
 */
#include <errno.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/session.h"

#define NO_TMUX 119	/* what the check below exits with */
#define NO_TMUX_S "119"

static int
session_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 64)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_'))
			return 0;
	return 1;
}

int
cmd_tmux(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<session>", 0, 1, OC_NONE, "default main"),
		OPT_END
	};
	/*
	 * tmux looked for first, in the user's login PATH: an image without
	 * it ends with NO_TMUX, which becomes a message with the fix instead
	 * of the shell's raw "tmux: not found" and 127.
	 */
	char *cmd[] = { "/bin/sh", "-c", "command -v tmux >/dev/null 2>&1 || "
	    "exit " NO_TMUX_S "; exec tmux new-session -A -s \"$1\"",
	    "box-tmux", NULL };
	struct opt_result res;
	const char *session;
	int rc;

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	session = res.npos > 1 ? res.pos[1] : "main";
	if (!session_name_ok(session))
		return err_usage(e, "session names are letters, digits, '-' "
		    "and '_' — got '%s'", session);
	cmd[4] = (char *)session;
	rc = session_run(res.pos[0], cmd, 5, SESSION_NEED_TTY, e);
	if (rc == NO_TMUX) {
		err_set(e, -ENOENT, "%s has no tmux (not on its user's PATH)",
		    res.pos[0]);
		err_fix(e, "install it in the box (box root %s -- apt-get "
		    "install -y tmux), or use box shell %s", res.pos[0],
		    res.pos[0]);
		return -ENOENT;
	}
	return rc;
}
