/*
 * incus_env.h - the Incus client's settings, from box's environment.
 *
 * incus/ takes its settings from its caller and never reads the
 * environment; this is the one place that does, once per run (main, via
 * tier_apply()), and hands the result down with incus_configure().
 *
 *   INCUS_SOCKET    the daemon's socket (wins over everything)
 *   INCUS_DIR       the daemon's directory: <dir>/unix.socket, and where
 *                   its state (leases) lives
 *   BOX_IO_TIMEOUT  seconds any one connect/read/write may stall (1..3600)
 *   BOX_PROJECT     the Incus project to work in
 *
 * With neither socket variable the incus client's search order applies:
 * /var/lib/incus/unix.socket, else /run/incus/unix.socket when only that
 * one exists.  A restricted caller (box/remote/tier.c) gets incus-user's socket in
 * the daemon directory and its own project, as the incus client does.
 */
#ifndef BOX_INCUS_ENV_H
#define BOX_INCUS_ENV_H

#include "incus/api.h"
#include "util/err.h"

/* The raw values (NULL or "" = unset), so the unit tests drive it purely. */
struct incus_env {
	const char *socket, *dir, *timeout, *project;
	/* the restricted tier's defaults, or NULL */
	const char *user_socket, *user_project;
};

/* The settings env describes; a value that does not parse fails (usage). */
int incus_env_settings(const struct incus_env *env, struct incus_settings *s,
    struct box_err *e);

/*
 * Read the environment once and hand the settings to incus/ (an error is
 * kept for the verbs that talk to Incus).  user_socket/user_project: the
 * restricted tier's defaults, or NULL.
 */
void incus_env_apply(const char *user_socket, const char *user_project);

#endif
