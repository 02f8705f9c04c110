/*
 * session.h - running something in a box as the box's user, for the
 * shell, exec and tmux verbs.
 */
#ifndef BOX_SESSION_H
#define BOX_SESSION_H

#include "util/err.h"

/* A session must have a terminal (tmux). */
#define SESSION_NEED_TTY	0x1
/* As root whoever the box's user is (box root): Incus runs the command as
 * uid 0 already, so no su or sudo is involved. */
#define SESSION_ROOT		0x2

/*
 * Run cmd[0..ncmd) (ncmd == 0: a login shell) in box name as its stamped
 * user, with a login environment, on the caller's stdio: a terminal session
 * when stdin and stdout are terminals, three pipes otherwise.  Returns the
 * remote exit status (>= 0), or < 0 with e filled.
 */
int session_run(const char *name, char *const *cmd, int ncmd, int flags,
    struct box_err *e);

/* What box exec's options change about a session (NULL/0: as above). */
struct session_opts {
	const char *user;		/* --user: a user of the box, or root */
	const char *cwd;		/* --cwd: where the command starts */
	const char *const *env;		/* -e K=V..., after the login */
	int nenv;
	int tty;			/* -1 as the terminal is, 0 -T, 1 -t */
};

int session_run_opts(const char *name, char *const *cmd, int ncmd,
    int flags, const struct session_opts *so, struct box_err *e);

#endif
