/*
 * box exec <box> [--] <cmd...> - run a command in a box as its user, with
 * the caller's stdin, stdout and stderr and the command's exit status; and
 * session_run(), which shell and tmux share.
 *
 * Who runs it: the box's stamped user (user.box.user; legacy boxes:
 * claude; otherwise root), in a login environment, so that whatever the
 * template put on the user's PATH through the profile (~/.local/bin and
 * friends) is found — `box exec b -- claude` must work.  Incus's own
 * user/group fields are not enough for that: they set no HOME, no login
 * PATH and no supplementary groups.  So the command Incus runs (as root)
 * is a short sh script that looks the user up in the box's /etc/passwd and
 *
 *   - for root: exports HOME, USER, LOGNAME, SHELL and execs the user's
 *     shell as a login shell (`$SHELL -l -c 'exec "$@"' ...`): no helper,
 *     no extra process, the argv passed through exactly (an image whose
 *     /etc/passwd has no root line still gets /root and /bin/sh: `box
 *     root` must work on any box);
 *   - for a login shell as another user (box shell): `su -l USER`, a real
 *     PAM login session (logind, limits, the user's groups);
 *   - for a command as another user: util-linux `setpriv --reuid --regid
 *     --init-groups --reset-env` then the login shell as above; failing
 *     that (busybox images), `su -l -c 'exec "$@"' -- USER ...`.
 *
 * Why not `sudo -u USER -i` (what the shell version did): sudo is missing
 * from minimal images, and -i joins the arguments into one shell string
 * with backslash escapes that leave `$` live (`box exec b -- echo '$HOME'`
 * would expand it).  Why not `su -c` everywhere: util-linux su puts a -c
 * command in a new session without a controlling terminal, which breaks
 * interactive programs and Ctrl-C; setpriv keeps the terminal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/life/idle.h"
#include "box/box.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "incus/api.h"
#include "incus/exec.h"
#include "util/tty.h"

static const char login_sh[] =
	"u=$1; shift\n"
	"while IFS=: read -r n _ id gid _ h s; do\n"
	"	[ \"$n\" = \"$u\" ] && break\n"
	"done </etc/passwd\n"
	"if [ \"$n\" != \"$u\" ] && [ \"$u\" = root ]; then\n"
	"	id=0 h=/root s=/bin/sh\n"
	"elif [ \"$n\" != \"$u\" ]; then\n"
	"	echo \"box: this box has no user '$u'\" >&2\n"
	"	exit 126\n"
	"fi\n"
	"[ -x \"${s:-/nonexistent}\" ] || s=/bin/sh\n"
	"cd \"$h\" 2>/dev/null || cd /\n"
	"if [ \"$id\" = 0 ]; then\n"
	"	export HOME=\"$h\" USER=\"$u\" LOGNAME=\"$u\" SHELL=\"$s\"\n"
	"	[ $# -gt 0 ] || exec \"$s\" -l\n"
	"	exec \"$s\" -l -c 'exec \"$@\"' \"$s\" \"$@\"\n"
	"fi\n"
	"[ $# -gt 0 ] || exec su -l \"$u\"\n"
	"if setpriv --help 2>&1 | grep -q -e --reset-env; then\n"
	"	exec setpriv --reuid=\"$id\" --regid=\"$gid\" --init-groups "
	"--reset-env -- env LANG=\"${LANG:-C.UTF-8}\" \"$s\" -l -c "
	"'exec \"$@\"' \"$s\" \"$@\"\n"
	"fi\n"
	"exec su -l -c 'exec \"$@\"' -- \"$u\" \"$s\" \"$@\"\n";

/*
 * -e and --cwd apply after the login (which resets the environment and
 * starts in the user's home): the command runs through this, as the user.
 */
static const char env_sh[] =
	"d=$1; shift\n"
	"if [ -n \"$d\" ]; then cd -- \"$d\" || exit 125; fi\n"
	"exec env \"$@\"\n";

#define SESSION_MAX_ARGS 4096

static int
session_exec(struct incus *c, const struct box_info *bi, int as_root,
    char *const *cmd, int ncmd, int interactive,
    const struct session_opts *so, struct exec_status *st,
    struct box_err *e)
{
	const char *argv[SESSION_MAX_ARGS + OPT_LIST_MAX + 12];
	const char *env[2] = { NULL, NULL };
	char term[128];
	struct exec_req req;
	struct exec_stdio io;
	struct tty_sig sig;
	int i, rc;

	int k = 5;

	if (ncmd > SESSION_MAX_ARGS || so->nenv > OPT_LIST_MAX)
		return err_usage(e, "too many arguments (at most %d)",
		    SESSION_MAX_ARGS);
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = login_sh;
	argv[3] = "box-login";
	argv[4] = as_root ? "root" : so->user != NULL ? so->user : bi->user;
	if (ncmd > 0 && (so->nenv > 0 || so->cwd != NULL)) {
		argv[k++] = "/bin/sh";
		argv[k++] = "-c";
		argv[k++] = env_sh;
		argv[k++] = "box-env";
		argv[k++] = so->cwd != NULL ? so->cwd : "";
		for (i = 0; i < so->nenv; i++)
			argv[k++] = so->env[i];
	}
	for (i = 0; i < ncmd; i++)
		argv[k + i] = cmd[i];
	argv[k + ncmd] = NULL;
	if (getenv("TERM") != NULL && strlen(getenv("TERM")) < 100) {
		snprintf(term, sizeof(term), "TERM=%s", getenv("TERM"));
		env[0] = term;
	}
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.env = env;
	req.uid = req.gid = -1;
	req.interactive = interactive;
	io.in = 0;
	io.out = 1;
	io.err = 2;
	io.tty = interactive ? 1 : -1;
	io.timeout_ms = 0;
	io.sig = &sig;
	if (interactive && tty_size(1, &req.width, &req.height) < 0 &&
	    tty_size(0, &req.width, &req.height) < 0)
		req.width = req.height = 0;
	rc = tty_sig_open(&sig, interactive);
	if (rc < 0)
		return err_set(e, rc, "setting up signals: %s", err_str(rc));
	if (interactive)
		rc = tty_raw(0, e);
	if (rc == 0)
		rc = exec_run(c, bi->name, &req, &io, st, e);
	tty_restore();
	tty_sig_close(&sig);
	return rc;
}

int
session_run(const char *name, char *const *cmd, int ncmd, int flags,
    struct box_err *e)
{
	const struct session_opts so = { NULL, NULL, NULL, 0, -1 };

	return session_run_opts(name, cmd, ncmd, flags, &so, e);
}

int
session_run_opts(const char *name, char *const *cmd, int ncmd, int flags,
    const struct session_opts *so, struct box_err *e)
{
	struct exec_status st;
	struct incus_instance in;
	struct box_info bi;
	struct incus c;
	int rc, interactive = isatty(0) && isatty(1);

	if (so->tty == 0)
		interactive = 0;
	if (so->tty == 1 && !isatty(0))
		return err_usage(e, "-t needs a terminal on stdin");
	if (so->tty == 1)
		interactive = 1;
	if ((flags & SESSION_NEED_TTY) && !interactive)
		return err_usage(e, "this needs a terminal: stdin and stdout "
		    "must both be one");
	rc = incus_init(&c, e);
	if (rc < 0)
		return rc;
	if ((rc = box_get(&c, name, 0, &in, &bi, e)) < 0) {
		incus_close(&c);
		return rc;
	}
	if (!bi.running) {
		err_set(e, -EINVAL, "box '%s' is %s — it must be running",
		    name, bi.status[0] ? bi.status : "not running");
		err_fix(e, "box start %s", name);
		rc = -EINVAL;
	}
	if (rc == 0)
		rc = session_exec(&c, &bi, (flags & SESSION_ROOT) != 0, cmd,
		    ncmd, interactive, so, &st, e);
	/* a session seen by the idle check only while open: its end, too */
	box_idle_touch(&c, &in);
	incus_instance_free(&in);
	incus_close(&c);
	if (rc < 0)
		return rc;
	/*
	 * Incus calls any exit status 127 "Command not found" (126: not
	 * executable); the login shell in between already said which command.
	 */
	if (st.err[0] != '\0' && st.code != 126 && st.code != 127) {
		fflush(stdout);
		fprintf(stderr, "box: %s: %s\n", name, st.err);
	}
	return st.code;
}

/* -e K=V: a name the shell takes, then '=' */
static int
env_ok(const char *kv)
{
	const char *p = kv;

	if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
	    *p == '_'))
		return 0;
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
	    (*p >= '0' && *p <= '9') || *p == '_')
		p++;
	return *p == '=';
}

int
cmd_exec(int argc, char **argv, struct box_err *e)
{
	struct opt_list env;
	const char *cwd, *user;
	int tty, notty, i;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_STRAY("<cmd>"),	/* the command without the -- */
		OPT_REST("<cmd...>", "the command; the -- may be left out when "
		    "it has no flags of its own"),
		{ OK_LIST, OC_NONE, 0, "--env", "-e", "K=V", &env, 0, 0, NULL,
		  "set a variable for the command (repeatable), after the "
		  "login's own" },
		OPT_STR("--cwd", "<dir>", &cwd, OC_NONE, "start the command "
		    "in this directory (default: the user's home)"),
		OPT_STR("--user", "<name>", &user, OC_NONE, "run it as this "
		    "user of the box, or root (default: the box's user)"),
		{ OK_FLAG, OC_NONE, 0, "--tty", "-t", NULL, &tty, 0, 0, NULL,
		  "give the command a terminal even when stdout is not one" },
		{ OK_FLAG, OC_NONE, 0, "--no-tty", "-T", NULL, &notty, 0, 0,
		  NULL, "never a terminal: three pipes, even on one" },
		OPT_END
	};
	struct session_opts so;
	struct opt_result res;
	int rc;

	/*
	 * Everything after the box name is the command; a dash before "--"
	 * is refused so that `box exec b ls -la` cannot half-parse.  A flag
	 * after the command's first word is the command's: the -- hint; one
	 * before it is exec's own, misspelt: the usual suggestion.
	 */
	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc == OPT_DESCRIBED)
		return rc;
	if (rc < 0 && res.unknown && res.npos >= 2) {
		e->fix[0] = '\0';
		err_fix(e, "a command's own flags go after --, as in 'box exec "
		    "<box> -- <cmd...>'");
	}
	if (rc < 0)
		return rc;
	if (tty && notty)
		return err_usage(e, "-t and -T contradict each other");
	for (i = 0; i < env.n; i++)
		if (!env_ok(env.v[i]))
			return err_usage(e, "-e takes NAME=value, not '%s'",
			    env.v[i]);
	if (user != NULL && (user[0] == '\0' || strlen(user) > 32 ||
	    strspn(user, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(user) ||
	    user[0] == '-'))
		return err_usage(e, "--user takes a user name, not '%s'", user);
	if (cwd != NULL && cwd[0] != '/')
		return err_usage(e, "--cwd takes an absolute path, not '%s'",
		    cwd);
	so.user = user;
	so.cwd = cwd;
	so.env = env.v;
	so.nenv = env.n;
	so.tty = tty ? 1 : notty ? 0 : -1;
	/* "box exec b -- cmd" and "box exec b cmd" alike */
	if (res.dashdash && res.npos > 1) {
		opt_usage(argv[0], rows, e);
		e->fix[0] = '\0';
		err_fix(e, "one -- only, right after the box");
		return -EINVAL;
	}
	if (res.dashdash)
		return session_run_opts(res.pos[0], res.rest, res.nrest, 0,
		    &so, e);
	return session_run_opts(res.pos[0], res.pos + 1, res.npos - 1, 0, &so,
	    e);
}
