/*
 * grant.h - the restricted tier, admin side: the pieces `box grant` and
 * `box revoke` are made of.
 *
 * incus-user (cmd/incus-user in Incus) serves the group 'incus' on
 * unix.socket.user.  On a user's first contact it makes, as root, the
 * state directory <incus dir>/users/<uid> (a client certificate), the
 * project user-<uid> (restricted, restricted.networks.access=incusbr-<uid>),
 * the bridge incusbr-<uid> WITHOUT addresses in its config (so Incus
 * probes random 10.x subnets for one: forbidden here, and a plain NAT
 * bridge anyway), the project's default profile (root disk and an eth0 on
 * that bridge) and the trust entry incus-user-<uid> (restricted to the
 * project).  A 409 on the bridge is accepted, so box creates it first,
 * with ipv4.address=none and ipv6.address=none: nothing is ever probed,
 * and the bridge can carry nothing.  incus-user remembers the projects it
 * saw at start and those it made; a project made behind its back makes
 * its setup fail, one it remembers but that is gone is not made again.
 */
#ifndef BOX_GRANT_H
#define BOX_GRANT_H

#include <sys/types.h>

#include "incus/api.h"
#include "util/err.h"

#define GRANT_DAEMON	"/usr/libexec/incus/incus-user"
#define GRANT_UNIT	"incus-user.socket"
#define GRANT_MAX_PROCS	64

struct grant_user {
	char name[64];
	unsigned uid, gid;
	char home[256];
	char project[32];	/* user-<uid> */
	char bridge[16];	/* incusbr-<uid>, or user-<uid> past 15 chars */
	char state_dir[160];	/* <incus dir>/users/<uid> */
	char socket[160];	/* <incus dir>/unix.socket.user */
};

/* The user from the password database; root is refused. */
int grant_user_lookup(const char *name, struct grant_user *u,
    struct box_err *e);

/* Is u a member of group in the group database (not a session's view)? */
int grant_in_group(const struct grant_user *u, const char *group);

/* gpasswd -a / -d, then verified against the group database. */
int grant_group_add(const struct grant_user *u, struct box_err *e);
int grant_group_remove(const struct grant_user *u, struct box_err *e);

/*
 * Is incus-user serving its socket?  Where systemd runs, the socket unit
 * is enabled and started; elsewhere it must already run.  *how says which
 * ("systemd: incus-user.socket" or the command line it runs with).
 */
int grant_daemon_ready(const struct grant_user *u, char *how, size_t cap,
    struct box_err *e);

/*
 * One request on incus-user's socket AS the user (fork, setgroups to the
 * user's primary group and 'incus', setgid, setuid), bounded by timeout_s.
 * check_profile: also read the project's box-net and require the contract
 * (from the user's side).  Never run as root on that socket: incus-user
 * would set up a project for uid 0.
 */
int grant_as_user(const struct grant_user *u, int check_profile,
    int timeout_s, struct box_err *e);

/* The user's processes (real uid): up to max pids, returns the count. */
int grant_procs(unsigned uid, pid_t *pids, int max);

/* "1234 (bash), 1240 (sleep)" for messages. */
void grant_procs_text(const pid_t *pids, int n, char *buf, size_t cap);

#endif
