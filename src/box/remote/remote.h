/*
 * remote.h - box driven from another machine: --remote ssh://[user@]host[:port]
 * (or BOX_REMOTE), through OpenSSH's own socket forwarding.
 *
 * One ssh process, the connection's master, is started per run:
 *
 *   ssh -N -T -M -S <dir>/ctl -o ControlPersist=no -o BatchMode=yes
 *       -o ExitOnForwardFailure=yes -o StreamLocalBindUnlink=yes
 *       -o ConnectTimeout=<s> -L <dir>/<sock>:<remote socket>
 *       [-l user] [-p port] -- host
 *
 * <dir> is a fresh 0700 directory of the caller's ($XDG_RUNTIME_DIR, else
 * /tmp); the daemon is then reached at <dir>/<sock> as if it were local.
 * Host keys are checked as the caller's ssh config says; box never turns
 * that off, and BatchMode means ssh never prompts (use ssh-agent for a key
 * with a passphrase).  The master is in a session of its own (Ctrl-C goes
 * to the box, not the tunnel), dies with box (PR_SET_PDEATHSIG), and is
 * killed and reaped on exit and on SIGINT/SIGTERM/SIGHUP; it has the
 * I/O timeout (BOX_IO_TIMEOUT, 30 s) to come up.
 *
 * The remote socket: BOX_REMOTE_SOCKET when set (an absolute path; it
 * always wins), else /var/lib/incus/unix.socket (an admin there: root or
 * incus-admin); when the remote says the login may not open that one (and
 * only then), /var/lib/incus/unix.socket.user, forwarded through the same
 * master (fall_back() in remote.c).  On that socket the login is a granted
 * user, in the project user-<uid> of their uid there (asked with id -u over
 * the same connection).
 *
 * Verbs that need the host's own kernel run the remote's installed box
 * over the same connection (ssh -S <dir>/ctl ... box <verb> <args>), with
 * its output through the sanitiser; the rest are refused, naming the
 * command to run there.  Which verb goes which way is remote_table in
 * remote.c: one row per verb (a unit test checks every verb has one).
 * Everything ssh prints is shown through text_shown().
 */
#ifndef BOX_REMOTE_H
#define BOX_REMOTE_H

#include "box/remote/remote_url.h"
#include "util/err.h"

enum remote_how {
	RH_LOCAL = 1,	/* needs no daemon and no host: runs here */
	RH_API,		/* the remote daemon, through the forwarded socket */
	RH_HOST,	/* the remote's box, over the same connection */
	RH_REFUSE,	/* refused, naming the command to run there */
};

/* How verb runs with --remote; 0 for a verb without a row. */
int remote_how(const char *verb);

/*
 * Take "--remote URL" / "--remote=URL" off the front of argv (shifting
 * the rest down), else BOX_REMOTE: 1 and *u when there is a remote, 0
 * when none, < 0 (usage) when it does not parse.
 */
int remote_from_args(int *argc, char **argv, struct remote_url *u,
    struct box_err *e);

/*
 * Start the master for verb (how as remote_how()); for RH_API, probe the
 * daemon through the forward and hand the Incus client its settings (the
 * errors for a missing key, a refused host key, a missing remote socket
 * are made here).  0 or < 0.
 */
int remote_open(const struct remote_url *u, const char *verb, int how,
    struct box_err *e);

/* RH_HOST: box argv[0..argc) on the remote; its exit status, or < 0. */
int remote_run(int argc, char **argv, struct box_err *e);

/* Stop and reap the master, remove the directory (idempotent). */
void remote_close(void);

/* 1 while this run drives a remote daemon. */
int remote_active(void);

/*
 * For work that happens in the daemon host's kernel (an egress policy's
 * rules): -EREMOTE saying so, the fix naming the command to run there.
 */
int remote_kernel_only(const char *what, struct box_err *e);

#endif
