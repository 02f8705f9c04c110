/* incus_env.c - INCUS_SOCKET, INCUS_DIR, BOX_IO_TIMEOUT, BOX_PROJECT. */
#include "box/remote/incus_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int
set(const char *v)
{
	return v != NULL && *v != '\0';
}

/* The incus client's default directory, so box and incus agree. */
static const char *
default_dir(void)
{
	struct stat st;

	if (stat("/var/lib/incus/unix.socket", &st) != 0 &&
	    stat("/run/incus/unix.socket", &st) == 0)
		return "/run/incus";
	return "/var/lib/incus";
}

static int
parse_timeout(const char *v, struct incus_settings *s, struct box_err *e)
{
	char *end;
	long sec;

	if (!set(v))
		return 0;
	sec = strtol(v, &end, 10);
	if (*end != '\0' || sec < 1 || sec > 3600)
		return err_usage(e, "BOX_IO_TIMEOUT must be whole seconds from "
		    "1 to 3600, not '%s'", v);
	s->timeout_ms = (int)sec * 1000;
	return 0;
}

static int
parse_project(const char *v, struct incus_settings *s, struct box_err *e)
{
	if (!set(v))
		return 0;
	if (strlen(v) >= sizeof(s->project) ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-_.") != strlen(v))
		return err_usage(e, "BOX_PROJECT is not a project name: '%s'",
		    v);
	snprintf(s->project, sizeof(s->project), "%s", v);
	return 0;
}

/*
 * A restricted caller talks to incus-user in its own project; INCUS_SOCKET
 * wins, and gets the project only when it names incus-user's socket.
 */
static void
user_defaults(const struct incus_env *env, struct incus_settings *s,
    char *path, size_t cap)
{
	const char *base;

	if (!set(env->user_socket))
		return;
	if (!set(env->socket))
		snprintf(path, cap, "%s/%s", s->daemon_dir, env->user_socket);
	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	if (s->project[0] == '\0' && strcmp(base, env->user_socket) == 0 &&
	    env->user_project != NULL)
		snprintf(s->project, sizeof(s->project), "%s",
		    env->user_project);
}

int
incus_env_settings(const struct incus_env *env, struct incus_settings *s,
    struct box_err *e)
{
	char path[4096];
	size_t n;
	int rc;

	memset(s, 0, sizeof(*s));
	s->timeout_ms = INCUS_TIMEOUT_MS;
	if ((rc = parse_timeout(env->timeout, s, e)) < 0 ||
	    (rc = parse_project(env->project, s, e)) < 0)
		return rc;
	snprintf(s->daemon_dir, sizeof(s->daemon_dir), "%s",
	    set(env->dir) ? env->dir : default_dir());
	if (set(env->socket))
		snprintf(path, sizeof(path), "%s", env->socket);
	else
		snprintf(path, sizeof(path), "%s/unix.socket", s->daemon_dir);
	user_defaults(env, s, path, sizeof(path));
	n = strlen(path);
	if (n >= sizeof(s->socket_path))
		return err_usage(e, "Incus socket path too long: %s", path);
	memcpy(s->socket_path, path, n + 1);
	return 0;
}

void
incus_env_apply(const char *user_socket, const char *user_project)
{
	struct incus_env env = {
		getenv("INCUS_SOCKET"), getenv("INCUS_DIR"),
		getenv("BOX_IO_TIMEOUT"), getenv("BOX_PROJECT"),
		user_socket, user_project
	};
	struct incus_settings s;
	struct box_err e;

	err_clear(&e);
	incus_env_settings(&env, &s, &e);
	incus_configure(&s, &e);
}
