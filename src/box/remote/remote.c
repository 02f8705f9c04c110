/*
 * remote.c - see remote.h.  The protocol is OpenSSH's: box only starts
 * ssh, waits (bounded) for the forwarded socket to appear, asks the daemon
 * one GET /1.0 through it, and reads what ssh said to name a failure.
 */
#include "box/remote/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box/remote/incus_env.h"
#include "box/remote/tier.h"
#include "incus/api.h"
#include "incus/server.h"
#include "util/clock.h"
#include "util/text.h"

#define DAEMON_DIR	"/var/lib/incus/"
#define DEFAULT_SOCKET	DAEMON_DIR "unix.socket"
#define USER_SOCKET	"unix.socket.user"
#define SAID_MAX	4096	/* what ssh said, kept for the messages */
#define OUT_MAX		256	/* a mux command's stdout (id -u, command -v) */

static const struct {
	const char *verb;
	int how;
} remote_table[] = {
	/* the daemon's API only: through the forwarded socket */
	{ "new", RH_API }, { "list", RH_API }, { "info", RH_API },
	{ "shell", RH_API }, { "root", RH_API }, { "exec", RH_API },
	{ "cp", RH_API }, { "tmux", RH_API }, { "snapshot", RH_API },
	{ "restore", RH_API }, { "fork", RH_API }, { "export", RH_API },
	{ "import", RH_API }, { "rename", RH_API }, { "move", RH_API },
	{ "down", RH_API }, { "start", RH_API }, { "restart", RH_API },
	{ "rm", RH_API }, { "expose", RH_API }, { "status", RH_API },
	{ "logs", RH_API }, { "prune", RH_API },
	/* the host's own kernel, files or programs: the remote's box */
	{ "egress", RH_HOST }, { "incus", RH_HOST }, { "secret", RH_HOST },
	{ "setup-host", RH_HOST }, { "teardown-host", RH_HOST },
	{ "migrate-host", RH_HOST }, { "firewall", RH_HOST },
	{ "grant", RH_HOST }, { "revoke", RH_HOST }, { "doctor", RH_HOST },
	{ "verify", RH_HOST }, { "whereami", RH_HOST },
	{ "versions", RH_HOST },
	/* the remote's install, or its boot unit: done there, by hand */
	{ "use", RH_REFUSE }, { "uninstall", RH_REFUSE },
	{ "resolver", RH_REFUSE }, { "secret-door", RH_REFUSE },
	{ "guard", RH_REFUSE },
	/* this binary itself */
	{ "templates", RH_LOCAL }, { "completion", RH_LOCAL },
	{ "config", RH_LOCAL },	/* the defaults new takes here */
	{ "help", RH_LOCAL }, { "version", RH_LOCAL },
};

static struct {
	struct remote_url u;
	char dir[64];		/* the private directory */
	int dirfd, basefd;	/* it and the one it is in, held open + 1
				 * (0: none), so a rename of either path
				 * changes nothing box unlinks or trusts */
	char sock[128];		/* the forward's local end */
	char ctl[128];		/* the master's ControlPath */
	char rsock[256];	/* the remote's socket */
	pid_t pid;		/* the master, 0 when none */
	int errfd;		/* its stderr */
	char said[SAID_MAX];	/* what it said, NUL-terminated */
	size_t nsaid, shown;	/* bytes kept; how many already shown */
	int active;
	int opened;		/* errfd and the rest are set */
	int chosen;		/* rsock is BOX_REMOTE_SOCKET's: it wins */
	int denied;		/* the remote says the login may not open rsock */
	int fell;		/* rsock is incus-user's, by fall_back() */
} R;			/* zeroed: in .bss, not the binary */

int
remote_how(const char *verb)
{
	size_t i;

	for (i = 0; i < sizeof(remote_table) / sizeof(remote_table[0]); i++)
		if (strcmp(remote_table[i].verb, verb) == 0)
			return remote_table[i].how;
	return 0;
}

int
remote_active(void)
{
	return R.active;
}

int
remote_from_args(int *argc, char **argv, struct remote_url *u,
    struct box_err *e)
{
	const char *v = NULL;
	int drop = 0, i, rc;

	if (*argc >= 2 && strcmp(argv[1], "--remote") == 0) {
		if (*argc < 3)
			return err_usage(e, "--remote needs "
			    "ssh://[user@]host[:port]");
		v = argv[2];
		drop = 2;
	} else if (*argc >= 2 && strncmp(argv[1], "--remote=", 9) == 0) {
		v = argv[1] + 9;
		drop = 1;
	} else if ((v = getenv("BOX_REMOTE")) == NULL || *v == '\0') {
		return 0;
	}
	if ((rc = remote_url_parse(v, u, e)) < 0)
		return rc;
	for (i = 1; i + drop <= *argc; i++)
		argv[i] = argv[i + drop];
	*argc -= drop;
	return 1;
}

/* --- what ssh says ------------------------------------------------------ */

/* s[0..n) to fd, each run between tabs and newlines through text_shown. */
static void
show(int fd, const char *prefix, const char *s, size_t n)
{
	char out[4 * 512 + 1];
	size_t i = 0, j, k;
	FILE *f = fd == 1 ? stdout : stderr;

	while (i < n) {
		if (prefix != NULL && (i == 0 || s[i - 1] == '\n'))
			fputs(prefix, f);
		for (j = i; j < n && s[j] != '\n' && s[j] != '\t' &&
		    j - i < 512; j++)
			;
		k = j - i;
		text_shown(s + i, k, out, sizeof(out));
		fputs(out, f);
		if (j < n && (s[j] == '\n' || s[j] == '\t'))
			fputc(s[j++], f);
		i = j;
	}
	fflush(f);
}

/* Read what the master has said, for up to ms. */
static void
hear(int ms)
{
	struct pollfd p = { R.errfd, POLLIN, 0 };
	ssize_t r;

	if (R.errfd < 0)
		return;
	while (poll(&p, 1, ms) > 0) {
		if (R.nsaid + 1 >= sizeof(R.said)) {
			/* keep the newest half: the last lines name it */
			size_t h = sizeof(R.said) / 2;

			memmove(R.said, R.said + R.nsaid - h, h);
			R.shown = R.shown > R.nsaid - h ? R.shown -
			    (R.nsaid - h) : 0;
			R.nsaid = h;
		}
		r = read(R.errfd, R.said + R.nsaid, sizeof(R.said) - 1 -
		    R.nsaid);
		if (r <= 0) {
			close(R.errfd);
			R.errfd = -1;
			break;
		}
		R.nsaid += (size_t)r;
		R.said[R.nsaid] = '\0';
		ms = 0;
	}
}

/* Show what ssh said that was not shown yet. */
static void
relay(void)
{
	if (R.nsaid > R.shown)
		show(2, "ssh: ", R.said + R.shown, R.nsaid - R.shown);
	R.shown = R.nsaid;
}

/* The last non-blank line ssh said, shown, into buf. */
static void
last_line(char *buf, size_t cap)
{
	const char *t = text_tail(R.said, R.nsaid, 1);
	size_t n = strcspn(t, "\r\n");

	text_shown(t, n, buf, cap);
}

static int
said(const char *s)
{
	return strstr(R.said, s) != NULL;
}

/* --- the processes ------------------------------------------------------ */

/* The forward's socket, the master's and their directory (signal-safe). */
static void
unlink_ours(void)
{
	if (R.dirfd > 0 && R.sock[0] != '\0')
		unlinkat(R.dirfd - 1, strrchr(R.sock, '/') + 1, 0);
	if (R.dirfd > 0 && R.ctl[0] != '\0')
		unlinkat(R.dirfd - 1, "ctl", 0);
	if (R.basefd > 0 && R.dir[0] != '\0')
		unlinkat(R.basefd - 1, strrchr(R.dir, '/') + 1, AT_REMOVEDIR);
}

/*
 * A socket in the held directory box may trust: there, a socket, the
 * euid's (ssh, run by box, made it).  And the path others connect by
 * still names the held directory.
 */
static int
ours(const char *path)
{
	struct stat st, a, b;

	return R.dirfd > 0 && fstatat(R.dirfd - 1, strrchr(path, '/') + 1,
	    &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_uid == geteuid() && lstat(R.dir, &a) == 0 &&
	    fstat(R.dirfd - 1, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino;
}

static void
on_signal(int sig)
{
	struct timespec ts = { 0, 10000000 };
	int i;

	/* async-signal-safe only: kill, reap (1 s at most), unlink */
	if (R.pid > 0) {
		kill(R.pid, SIGTERM);
		for (i = 0; i < 100 && waitpid(R.pid, NULL, WNOHANG) == 0; i++)
			nanosleep(&ts, NULL);
		if (i == 100) {
			kill(R.pid, SIGKILL);
			waitpid(R.pid, NULL, 0);
		}
	}
	unlink_ours();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Start argv with stdin/stdout/stderr from in/out/err (-1: /dev/null).
 * own: in a session of its own.  Dies with box either way.
 */
static pid_t
spawn(char **argv, int in, int out, int err, int own)
{
	pid_t parent = getpid(), pid = fork();
	int null;

	if (pid != 0)
		return pid;
	if (own)
		setsid();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(126);
	null = open("/dev/null", O_RDWR);
	dup2(in >= 0 ? in : null, 0);
	dup2(out >= 0 ? out : null, 1);
	dup2(err >= 0 ? err : null, 2);
	execvp(argv[0], argv);
	dprintf(2, "box-remote: cannot run %s: %s\n", argv[0],
	    strerror(errno));
	_exit(127);
}

/* argv's tail for every ssh: [-l user] [-p port] -- host; returns argc. */
static int
dest_args(char **argv, int n, char *port, size_t pcap)
{
	if (R.u.user[0] != '\0') {
		argv[n++] = "-l";
		argv[n++] = R.u.user;
	}
	if (R.u.port != 0) {
		snprintf(port, pcap, "%d", R.u.port);
		argv[n++] = "-p";
		argv[n++] = port;
	}
	argv[n++] = "--";
	argv[n++] = R.u.host;
	argv[n] = NULL;
	return n;
}

/* argv = ssh, then head (NULL-ended), then dest_args' tail; returns argc. */
static int
ssh_argv(char **argv, char *const *head, char *port, size_t pcap)
{
	int n = 0;

	argv[n++] = "ssh";
	while (*head != NULL)
		argv[n++] = *head++;
	return dest_args(argv, n, port, pcap);
}

/*
 * argv for a command on the remote through the master, up to the command
 * itself (ctlopt: the caller's room for the ControlPath option), or, with
 * fwd, asking the master for one more forward (-O forward -L fwd); argc.
 */
static int
mux_argv(char **argv, char *ctlopt, size_t ccap, char *fwd, char *port,
    size_t pcap)
{
	char *head[] = { "-T", "-o", "ControlMaster=no", "-o", ctlopt, "-o",
	    "BatchMode=yes", "-O", "forward", "-L", fwd, NULL };

	snprintf(ctlopt, ccap, "ControlPath=%s", R.ctl);
	if (fwd == NULL)
		head[7] = NULL;
	return ssh_argv(argv, head, port, pcap);
}

static int
io_seconds(void)
{
	const char *v = getenv("BOX_IO_TIMEOUT");
	long s;

	if (v != NULL && text_uint(v, 1, 3600, &s) == 0)
		return (int)s;
	return INCUS_TIMEOUT_MS / 1000;
}

/*
 * Is dir a place only the euid (or root) can change: a directory, not a
 * link, owned by the euid or root, writable by no one else unless it is
 * sticky and root's (/tmp)?  private: also the euid's and 0700.
 */
static int
root_only_dir(const char *dir, int private)
{
	struct stat st;
	uid_t me = geteuid();

	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (private)
		return st.st_uid == me && (st.st_mode & 07777) == 0700;
	if (st.st_uid != me && st.st_uid != 0)
		return 0;
	return (st.st_mode & 022) == 0 ||
	    ((st.st_mode & S_ISVTX) && st.st_uid == 0);
}

/*
 * Where the private directory goes: $XDG_RUNTIME_DIR only when it is the
 * euid's own 0700 directory in a directory no one else can change (after
 * `su` without `-` or `sudo -E` it is the user's: they could rename root's
 * directory away and put theirs, with their socket, in its place), else
 * /tmp (sticky: only its maker renames what it holds).
 */
static const char *
runtime_base(void)
{
	const char *base = getenv("XDG_RUNTIME_DIR");
	char up[40];

	if (base == NULL || base[0] != '/' || strlen(base) > 32 ||
	    strchr(base, '%') != NULL || strchr(base, ':') != NULL)
		return "/tmp";
	snprintf(up, sizeof(up), "%s", base);
	*strrchr(up, '/') = '\0';
	if (!root_only_dir(base, 1) || !root_only_dir(up[0] ? up : "/", 0))
		return "/tmp";
	return base;
}

static int
make_dir(struct box_err *e)
{
	const char *base = runtime_base();
	struct stat st;
	int fd;

	if (!root_only_dir(base, 0))
		return err_set(e, -EPERM, "%s is not a directory only its "
		    "owner and root may change: no private place for the ssh "
		    "socket", base);
	if ((fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return err_set(e, -errno, "opening %s: %s", base,
		    strerror(errno));
	R.basefd = fd + 1;
	snprintf(R.dir, sizeof(R.dir), "%s/box-remote.XXXXXX", base);
	if (mkdtemp(R.dir) == NULL) {
		R.dir[0] = '\0';
		return err_set(e, -errno, "cannot make a private directory "
		    "in %s for the ssh socket: %s", base, strerror(errno));
	}
	fd = openat(R.basefd - 1, strrchr(R.dir, '/') + 1, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		R.dirfd = fd + 1;
	/* mkdtemp made it 0700, ours: checked on the descriptor held */
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0)
		return err_set(e, -EPERM, "%s is not a private directory",
		    R.dir);
	return 0;
}

/* R.sock, the forward's local end here: <dir>/<the remote's basename>. */
static void
local_end(void)
{
	snprintf(R.sock, sizeof(R.sock), "%s/%s", R.dir,
	    strrchr(R.rsock, '/') + 1);
}

static int
remote_socket(struct box_err *e)
{
	const char *s = getenv("BOX_REMOTE_SOCKET"), *base;

	R.chosen = s != NULL && *s != '\0';
	if (!R.chosen)
		s = DEFAULT_SOCKET;
	if (s[0] != '/' || strlen(s) >= sizeof(R.rsock) ||
	    strstr(s, "/../") != NULL || strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") != strlen(s))
		return err_usage(e, "BOX_REMOTE_SOCKET must be an absolute "
		    "path of letters, digits, '.', '_', '-' and '/', not "
		    "'%.200s'", s);
	snprintf(R.rsock, sizeof(R.rsock), "%s", s);
	base = strrchr(s, '/') + 1;
	if (*base == '\0' || strcmp(base, "..") == 0 || strcmp(base, ".") == 0)
		return err_usage(e, "BOX_REMOTE_SOCKET names no socket: %s",
		    s);
	local_end();
	snprintf(R.ctl, sizeof(R.ctl), "%s/ctl", R.dir);
	return 0;
}

/* ssh ended before its forward came up: say why, in one message. */
static int
master_failed(int status, struct box_err *e)
{
	char dest[300], line[1024], hint[320];

	hear(200);
	remote_url_dest(&R.u, dest, sizeof(dest));
	remote_url_ssh(&R.u, hint, sizeof(hint));
	last_line(line, sizeof(line));
	if (said("box-remote: cannot run"))
		err_set(e, -ENOENT, "no ssh client to reach %s (%s)", dest,
		    line), err_fix(e, "install OpenSSH's client (Debian: "
		    "apt-get install openssh-client)");
	else if (said("REMOTE HOST IDENTIFICATION HAS CHANGED") ||
	    said("Host key verification failed") ||
	    said("No matching host key") || said("host key is known"))
		err_set(e, -EPERM, "ssh refused the host key of %s: it is not "
		    "the one your known_hosts holds for it, or none is held "
		    "(%s)", R.u.host, line), err_fix(e, "check the host's key fingerprint "
		    "out of band, then accept it once with '%s' (box never "
		    "turns host-key checking off)", hint);
	else if (said("Permission denied") || said("Too many authentication"))
		err_set(e, -EACCES, "%s refused every key ssh offered (%s)",
		    dest, line), err_fix(e, "give ssh a key that host takes: "
		    "load it into ssh-agent (ssh-add), or name it with "
		    "IdentityFile in ~/.ssh/config; ssh runs with "
		    "BatchMode=yes, so it asks for no password or passphrase");
	else if (said("open failed") || said("forward"))
		err_set(e, -EIO, "ssh could not forward to %s's socket (%s)",
		    dest, line), err_fix(e, "the remote sshd must allow it "
		    "(AllowStreamLocalForwarding yes)");
	else
		err_set(e, -EHOSTUNREACH, "ssh to %s ended with status %d: %s",
		    dest, status, line[0] ? line : "(it said nothing)"),
		    err_fix(e, "check that '%s true' works", hint);
	return e->code;
}

static int
start_master(struct box_err *e)
{
	char fwd[400], ctlopt[160], cto[40], port[8], *argv[40];
	char *head[] = { "-N", "-T", "-o", "ControlMaster=yes", "-o", ctlopt,
	    "-o", "ControlPersist=no", "-o", "BatchMode=yes", "-o",
	    "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes",
	    "-o", cto, "-o", "ServerAliveInterval=15", "-L", fwd, NULL };
	int p[2], rc, status;
	long long end;

	snprintf(fwd, sizeof(fwd), "%s:%s", R.sock, R.rsock);
	snprintf(ctlopt, sizeof(ctlopt), "ControlPath=%s", R.ctl);
	snprintf(cto, sizeof(cto), "ConnectTimeout=%d", io_seconds());
	ssh_argv(argv, head, port, sizeof(port));
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	R.pid = spawn(argv, -1, -1, p[1], 1);
	close(p[1]);
	if (R.pid < 0) {
		R.pid = 0;
		close(p[0]);
		return err_set(e, -errno, "fork: %s", strerror(errno));
	}
	R.errfd = p[0];
	end = clock_ms() + (long long)io_seconds() * 1000;
	for (;;) {
		hear(25);
		if (ours(R.sock) && ours(R.ctl))
			return 0;
		rc = waitpid(R.pid, &status, WNOHANG);
		if (rc == R.pid) {
			R.pid = 0;
			return master_failed(WIFEXITED(status) ?
			    WEXITSTATUS(status) : 128 + WTERMSIG(status), e);
		}
		if (clock_ms() > end) {
			char dest[300];

			remote_close();
			remote_url_dest(&R.u, dest, sizeof(dest));
			err_set(e, -ETIMEDOUT, "ssh to %s did not come up within "
			    "%d s", dest, io_seconds());
			err_fix(e, "check the host answers ssh, or raise "
			    "BOX_IO_TIMEOUT");
			return -ETIMEDOUT;
		}
	}
}

/* fd into buf[0..cap) (NUL-terminated) until EOF, full, or end; closed. */
static size_t
slurp(int fd, char *buf, size_t cap, long long end)
{
	struct pollfd p = { fd, POLLIN, 0 };
	size_t got = 0;
	ssize_t r;
	long long left;

	while (got + 1 < cap && (left = end - clock_ms()) > 0 &&
	    poll(&p, 1, (int)left) > 0) {
		r = read(fd, buf + got, cap - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(fd);
	return got;
}

/*
 * One command on the remote through the master (or, cmd NULL, the
 * forward fwd asked of it): stdout (bounded) into out, stderr kept in
 * R.said.  Its exit status, or < 0.
 */
static int
mux_run(const char *cmd, char *fwd, char *out, size_t cap,
    struct box_err *e)
{
	char ctlopt[160], port[8], *argv[24];
	int p[2], q[2], n, status;
	long long end;
	pid_t pid;

	n = mux_argv(argv, ctlopt, sizeof(ctlopt), fwd, port, sizeof(port));
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	if (pipe2(q, O_CLOEXEC) < 0) {
		close(p[0]);
		close(p[1]);
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	}
	pid = spawn(argv, -1, p[1], q[1], 0);
	close(p[1]);
	close(q[1]);
	/* a few bytes each way, within the I/O timeout: out, then stderr */
	end = clock_ms() + (long long)io_seconds() * 1000;
	slurp(p[0], out, cap, end);
	R.nsaid += slurp(q[0], R.said + R.nsaid, sizeof(R.said) - R.nsaid,
	    end);
	if (pid > 0 && clock_ms() > end)
		kill(pid, SIGKILL);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return err_set(e, -ECHILD, "ssh did not run");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Through the forward, once: the daemon answers, or why not. */
static int
probe(struct box_err *e)
{
	char dest[300], line[1024], cmd[700], out[OUT_MAX];
	struct incus c;
	struct box_err pe;
	int rc;

	err_clear(&pe);
	if ((rc = incus_init(&c, &pe)) == 0) {
		rc = incus_server_ping(&c, &pe);
		incus_close(&c);
	}
	if (rc == 0)
		return 0;
	hear(300);
	remote_url_dest(&R.u, dest, sizeof(dest));
	last_line(line, sizeof(line));
	R.shown = R.nsaid;	/* it is in the message */
	if (said("prohibited")) {
		err_set(e, -EPERM, "%s's sshd forbids forwarding to a socket "
		    "(%s)", dest, line);
		err_fix(e, "AllowStreamLocalForwarding yes in its "
		    "sshd_config");
		return e->code;
	}
	if (!said("open failed")) {
		*e = pe;
		err_context(e, "the Incus daemon of %s through ssh", dest);
		return e->code;
	}
	/* sshd tells the client no reason: ask the remote what is there */
	snprintf(cmd, sizeof(cmd), "if [ ! -S '%s' ]; then echo missing; "
	    "elif [ ! -w '%s' ]; then echo denied; else echo dead; fi",
	    R.rsock, R.rsock);
	if (mux_run(cmd, NULL, out, sizeof(out), &pe) < 0)
		out[0] = '\0';
	R.shown = R.nsaid;
	if (strncmp(out, "missing", 7) == 0) {
		err_set(e, -ENOENT, "%s has no Incus socket at %s", dest,
		    R.rsock);
		err_fix(e, "start Incus there, or point BOX_REMOTE_SOCKET at "
		    "its socket (/var/lib/incus/unix.socket, or "
		    "/var/lib/incus/unix.socket.user for a granted user)");
	} else if (strncmp(out, "denied", 6) == 0) {
		R.denied = 1;
		err_set(e, -EACCES, "%s may not open %s", dest, R.rsock);
		if (strcmp(R.rsock, DEFAULT_SOCKET) == 0)
			err_fix(e, "log in as an admin there (root or "
			    "incus-admin), or, as a user granted with 'box "
			    "grant', unset BOX_REMOTE_SOCKET or set "
			    "BOX_REMOTE_SOCKET=" DAEMON_DIR USER_SOCKET);
		else
			err_fix(e, "log in as an admin there (root or "
			    "incus-admin), or have its admin grant this "
			    "login there (box grant <user>)");
	} else {
		err_set(e, -ECONNREFUSED, "nothing answers on %s at %s (%s)",
		    R.rsock, dest, line);
		err_fix(e, "start Incus there (systemctl start incus)");
	}
	return e->code;
}

/* A granted user's project there: user-<their uid>. */
static int
user_project(struct box_err *e)
{
	char out[OUT_MAX], proj[32];
	long uid;
	int rc;

	if ((rc = mux_run("id -u", NULL, out, sizeof(out), e)) < 0)
		return rc;
	out[strcspn(out, "\r\n")] = '\0';
	if (rc != 0 || text_uint(out, 0, 4294967294L, &uid) < 0)
		return err_set(e, -EPROTO, "'id -u' on the remote did not "
		    "give a uid"), err_fix(e, "set BOX_PROJECT=user-<uid> "
		    "of your user there"), -EPROTO;
	tier_project((unsigned)uid, proj, sizeof(proj));
	setenv("BOX_PROJECT", proj, 0);
	return 0;
}

/*
 * The one other socket box ever tries, decided here alone: no
 * BOX_REMOTE_SOCKET was given (it always wins), and the remote said the
 * login may not open the admin's socket (permission: a missing socket or
 * a dead daemon stays an error naming its fix).  Both paths are fixed,
 * the remote admin's own.  The master already up forwards incus-user's
 * socket too (ssh -O forward: no second login, no second touch of a key),
 * the admin's local end goes, and from here on the login is a user
 * granted there.  Silent when it works; an error after it says so.
 * 1: not this case (e as it was); 0: switched; < 0: e says why not.
 */
static int
fall_back(struct box_err *e)
{
	char fwd[400], out[OUT_MAX], line[1024];
	int rc;

	if (R.chosen || !R.denied || strcmp(R.rsock, DEFAULT_SOCKET) != 0)
		return 1;
	R.fell = 1;
	if (R.dirfd > 0)
		unlinkat(R.dirfd - 1, strrchr(R.sock, '/') + 1, 0);
	snprintf(R.rsock, sizeof(R.rsock), "%s", DAEMON_DIR USER_SOCKET);
	local_end();
	snprintf(fwd, sizeof(fwd), "%s:%s", R.sock, R.rsock);
	R.nsaid = R.shown = 0;	/* what ssh said of the admin's: judged */
	R.said[0] = '\0';
	err_clear(e);
	if ((rc = mux_run(NULL, fwd, out, sizeof(out), e)) <= 0)
		return rc;
	hear(0);
	last_line(line, sizeof(line));
	R.shown = R.nsaid;
	return err_set(e, -EIO, "ssh could not forward %s (%s)", R.rsock,
	    line);
}

static const char *verb_now = "";

int
remote_open(const struct remote_url *u, const char *verb, int how,
    struct box_err *e)
{
	const char *base;
	char dest[300];
	int rc;

	remote_close();
	R.opened = 1;
	R.errfd = -1;
	R.u = *u;
	verb_now = verb;
	R.nsaid = R.shown = 0;
	R.said[0] = '\0';
	R.denied = R.fell = 0;
	if ((rc = make_dir(e)) < 0 || (rc = remote_socket(e)) < 0)
		goto bad;
	atexit(remote_close);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if ((rc = start_master(e)) < 0)
		goto bad;
	R.active = 1;
	relay();
	if (how != RH_API)
		return 0;
again:
	base = strrchr(R.rsock, '/') + 1;
	if (strcmp(base, USER_SOCKET) == 0) {
		if ((rc = user_project(e)) < 0)
			goto bad;
		tier_force(TIER_RESTRICTED);
	} else {
		tier_force(TIER_ADMIN);
	}
	if (!ours(R.sock)) {
		rc = err_set(e, -EPERM, "%s is not the socket box's ssh made "
		    "(its directory was swapped, or another user owns it)",
		    R.sock);
		goto bad;
	}
	setenv("INCUS_SOCKET", R.sock, 1);
	incus_env_apply(NULL, NULL);
	if ((rc = probe(e)) == 0)
		return 0;
	if ((rc = fall_back(e)) == 0)
		goto again;
	rc = e->code;
bad:
	if (R.fell) {
		remote_url_dest(&R.u, dest, sizeof(dest));
		err_context(e, "%s may not open %s, so box tried incus-user's "
		    "socket", dest, DEFAULT_SOCKET);
	}
	remote_close();
	return rc;
}

/* s, quoted for a POSIX shell, appended to b (heap, grown). */
static int
quote(char **b, size_t *n, size_t *cap, const char *s)
{
	size_t need = *n + 4 * strlen(s) + 4;
	char *p;

	if (need > *cap) {
		if ((p = realloc(*b, need * 2)) == NULL)
			return -ENOMEM;
		*b = p;
		*cap = need * 2;
	}
	p = *b + *n;
	*p++ = ' ';
	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *s;
		}
	}
	*p++ = '\'';
	*p = '\0';
	*n = (size_t)(p - *b);
	return 0;
}

/* Relay ssh's stdout and stderr through the sanitiser until both end. */
static void
relay_streams(int out, int err)
{
	struct pollfd p[2] = { { out, POLLIN, 0 }, { err, POLLIN, 0 } };
	char buf[4096];
	ssize_t r;
	int i, open = 2;

	while (open > 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open--;
				continue;
			}
			show(i == 0 ? 1 : 2, NULL, buf, (size_t)r);
		}
	}
}

int
remote_run(int argc, char **argv, struct box_err *e)
{
	char ctlopt[160], port[8], out[OUT_MAX], dest[300], hint[320];
	char *av[24], *cmd = NULL;
	size_t n = 0, cap = 0;
	int p[2], q[2], k, i, rc, status;
	pid_t pid;

	remote_url_dest(&R.u, dest, sizeof(dest));
	remote_url_ssh(&R.u, hint, sizeof(hint));
	rc = mux_run("command -v box", NULL, out, sizeof(out), e);
	if (rc < 0)
		return rc;
	if (rc != 0 || out[0] == '\0') {
		R.shown = R.nsaid;
		err_set(e, -ENOENT, "%s has no box on its PATH, and '%s' needs "
		    "that host's own box", dest, argv[0]);
		err_fix(e, "install box there (make install), then: %s box %s",
		    hint, argv[0]);
		return -ENOENT;
	}
	cap = 64;
	if ((cmd = malloc(cap)) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	memcpy(cmd, "exec box", 9);
	n = 8;
	for (i = 0; i < argc; i++)
		if (quote(&cmd, &n, &cap, argv[i]) < 0) {
			free(cmd);
			return err_set(e, -ENOMEM, "out of memory");
		}
	k = mux_argv(av, ctlopt, sizeof(ctlopt), NULL, port, sizeof(port));
	av[k++] = cmd;
	av[k] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0 || pipe2(q, O_CLOEXEC) < 0) {
		free(cmd);
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	}
	fflush(stdout);
	pid = spawn(av, 0, p[1], q[1], 0);
	free(cmd);
	close(p[1]);
	close(q[1]);
	relay_streams(p[0], q[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return err_set(e, -ECHILD, "ssh did not run");
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (rc == 255) {
		err_set(e, -EIO, "the ssh connection to %s ended before box "
		    "%s there did", dest, argv[0]);
		err_fix(e, "run it there: %s box %s", hint, argv[0]);
		return -EIO;
	}
	return rc;
}

int
remote_kernel_only(const char *what, struct box_err *e)
{
	char dest[300], hint[320];

	remote_url_dest(&R.u, dest, sizeof(dest));
	remote_url_ssh(&R.u, hint, sizeof(hint));
	err_set(e, -EREMOTE, "%s happens in %s's own kernel, which box does "
	    "not reach through the daemon's socket", what, dest);
	err_fix(e, "run it on that host: %s box %s ...", hint, verb_now);
	return -EREMOTE;
}

void
remote_close(void)
{
	long long end;
	int status;

	if (!R.opened)
		return;
	if (R.pid > 0) {
		kill(R.pid, SIGTERM);
		end = clock_ms() + 2000;
		while (waitpid(R.pid, &status, WNOHANG) == 0) {
			if (clock_ms() > end) {
				kill(R.pid, SIGKILL);
				waitpid(R.pid, &status, 0);
				break;
			}
			usleep(10000);
		}
		R.pid = 0;
	}
	if (R.errfd >= 0) {
		hear(0);
		close(R.errfd);
		R.errfd = -1;
	}
	if (R.active)
		relay();
	unlink_ours();
	if (R.dirfd > 0)
		close(R.dirfd - 1);
	if (R.basefd > 0)
		close(R.basefd - 1);
	R.dirfd = R.basefd = 0;
	R.sock[0] = R.ctl[0] = R.dir[0] = '\0';
	R.active = 0;
}
