/*
 * grant.c - users, the group 'incus', incus-user, and requests made as a
 * user.  Group changes go through gpasswd (it keeps /etc/gshadow and the
 * locks right) and are believed only once the group database says so.
 */
#include "host/stack/grant.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box/remote/profile.h"
#include "box/remote/tier.h"
#include "host/stack/sysd.h"
#include "incus/server.h"

static int
name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < 32 && s[0] != '-' &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == n;
}

int
grant_user_lookup(const char *name, struct grant_user *u, struct box_err *e)
{
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	if (!name_ok(name))
		return err_usage(e, "not a user name: '%s'", name);
	errno = 0;
	pw = getpwnam(name);
	if (pw == NULL) {
		err_set(e, -ENOENT, "no such user: %s", name);
		err_fix(e, "create the account first (useradd -m %s)", name);
		return -ENOENT;
	}
	if (pw->pw_uid == 0)
		return err_set(e, -EPERM, "%s is root: root is an admin "
		    "already, there is nothing to grant or revoke", name);
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir);
	tier_project(u->uid, u->project, sizeof(u->project));
	/* incus-user's rule: an interface name has at most 15 bytes. */
	if (snprintf(u->bridge, sizeof(u->bridge), "incusbr-%u", u->uid) >=
	    (int)sizeof(u->bridge))
		snprintf(u->bridge, sizeof(u->bridge), "user-%u", u->uid);
	snprintf(u->state_dir, sizeof(u->state_dir), "%s/users/%u",
	    incus_daemon_dir(), u->uid);
	snprintf(u->socket, sizeof(u->socket), "%s/" TIER_USER_SOCKET,
	    incus_daemon_dir());
	return 0;
}

int
grant_in_group(const struct grant_user *u, const char *group)
{
	struct group *g = getgrnam(group);
	char **m;

	if (g == NULL)
		return 0;
	if (g->gr_gid == u->gid)
		return 1;
	for (m = g->gr_mem; *m != NULL; m++)
		if (strcmp(*m, u->name) == 0)
			return 1;
	return 0;
}

static int
gpasswd(const char *flag, const struct grant_user *u, struct box_err *e)
{
	char name[64];
	char *argv[] = { "gpasswd", (char *)flag, name, TIER_GROUP_USER, NULL };
	int fd = dup(STDOUT_FILENO), devnull, rc;

	/* gpasswd chats on stdout; what counts is the group database. */
	snprintf(name, sizeof(name), "%s", u->name);
	fflush(stdout);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull >= 0)
		dup2(devnull, STDOUT_FILENO);
	rc = sysd_run(argv, e);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	if (devnull >= 0)
		close(devnull);
	return rc;
}

int
grant_group_add(const struct grant_user *u, struct box_err *e)
{
	struct group *g = getgrnam(TIER_GROUP_USER);
	int rc;

	if (g == NULL) {
		err_set(e, -ENOENT, "there is no group '" TIER_GROUP_USER "' "
		    "on this host (Incus's packages create it)");
		err_fix(e, "install Incus (incus-base), or groupadd --system "
		    TIER_GROUP_USER);
		return -ENOENT;
	}
	rc = gpasswd("-a", u, e);
	if (rc < 0)
		return rc;
	if (!grant_in_group(u, TIER_GROUP_USER))
		return err_set(e, -EIO, "gpasswd said yes, but the group "
		    "database does not list %s in '" TIER_GROUP_USER "'",
		    u->name);
	return 0;
}

int
grant_group_remove(const struct grant_user *u, struct box_err *e)
{
	int rc;

	if (!grant_in_group(u, TIER_GROUP_USER))
		return 0;
	rc = gpasswd("-d", u, e);
	if (rc < 0 && !grant_in_group(u, TIER_GROUP_USER))
		err_clear(e);
	else if (rc < 0)
		return rc;
	if (grant_in_group(u, TIER_GROUP_USER))
		return err_set(e, -EIO, "the group database still lists %s in "
		    "'" TIER_GROUP_USER "'", u->name);
	return 0;
}

/* Does a process run program (its /proc/<pid>/exe)? */
static int
program_runs(const char *program)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int found = 0;

	if (d == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		char path[300], exe[256];
		ssize_t n;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/exe", de->d_name);
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n <= 0)
			continue;
		exe[n] = '\0';
		found = strcmp(exe, program) == 0;
	}
	closedir(d);
	return found;
}

int
grant_daemon_ready(const struct grant_user *u, char *how, size_t cap,
    struct box_err *e)
{
	struct stat st;

	if (sysd_present()) {
		char *argv[] = { "systemctl", "enable", "--now", GRANT_UNIT,
		    NULL };
		int rc = sysd_run(argv, e);

		if (rc < 0) {
			err_context(e, "starting incus-user");
			err_fix(e, "systemctl status " GRANT_UNIT);
			return rc;
		}
		snprintf(how, cap, "systemd: %s (enabled, socket-activated)",
		    GRANT_UNIT);
	} else {
		if (!program_runs(GRANT_DAEMON)) {
			err_set(e, -ESRCH, "incus-user is not running, and "
			    "there is no systemd here to start it");
			err_fix(e, "start it as root: %s --group "
			    TIER_GROUP_USER " & (it serves %s)", GRANT_DAEMON,
			    u->socket);
			return -ESRCH;
		}
		snprintf(how, cap, "no systemd: %s --group " TIER_GROUP_USER
		    " (started by hand)", GRANT_DAEMON);
	}
	if (stat(u->socket, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		err_set(e, -ENOENT, "incus-user runs but %s is not there",
		    u->socket);
		err_fix(e, "restart incus-user (systemctl restart "
		    GRANT_UNIT ")");
		return -ENOENT;
	}
	return 0;
}

/* The child: become the user, ask, report on fd. */
static int
child_request(const struct grant_user *u, int check_profile, int fd)
{
	gid_t groups[2];
	struct group *g = getgrnam(TIER_GROUP_USER);
	struct incus c;
	struct box_err e;
	int rc, exists, ok;

	err_clear(&e);
	groups[0] = u->gid;
	groups[1] = g != NULL ? g->gr_gid : u->gid;
	if (setgroups(2, groups) < 0 || setgid(u->gid) < 0 ||
	    setuid(u->uid) < 0 || getuid() != u->uid) {
		dprintf(fd, "cannot become %s: %s", u->name, strerror(errno));
		return 1;
	}
	/* the run's settings (timeout), aimed at the user's daemon */
	rc = incus_init(&c, &e);
	if (rc == 0 && strlen(u->socket) >= sizeof(c.socket_path))
		rc = err_usage(&e, "Incus socket path too long: %s", u->socket);
	if (rc == 0) {
		memcpy(c.socket_path, u->socket, strlen(u->socket) + 1);
		snprintf(c.project, sizeof(c.project), "%s", u->project);
	}
	if (rc == 0)
		rc = incus_server_ping(&c, &e);
	if (rc == 0) {
		if (check_profile) {
			rc = profile_check(&c, &exists, &ok, &e);
			if (rc == 0 && !(exists && ok))
				rc = err_set(&e, -EPROTO, "from %s's side, "
				    "the profile box-net in %s is %s",
				    u->name, u->project, exists ?
				    "not the contract's" : "missing");
		}
	}
	incus_close(&c);
	if (rc < 0) {
		dprintf(fd, "%s", e.msg[0] ? e.msg : err_str(rc));
		return 1;
	}
	return 0;
}

int
grant_as_user(const struct grant_user *u, int check_profile, int timeout_s,
    struct box_err *e)
{
	char msg[512];
	int p[2], status = 0, waited = 0;
	ssize_t n = 0;
	pid_t pid, w;

	if (pipe2(p, O_CLOEXEC) < 0)
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return err_set(e, -errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		_exit(child_request(u, check_profile, p[1]));
	}
	close(p[1]);
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (waited++ >= timeout_s * 10) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			close(p[0]);
			return err_set(e, -ETIMEDOUT, "incus-user did not "
			    "answer %s within %d s", u->name, timeout_s);
		}
		poll(NULL, 0, 100);
	}
	msg[0] = '\0';
	n = read(p[0], msg, sizeof(msg) - 1);
	close(p[0]);
	msg[n > 0 ? n : 0] = '\0';
	if (w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return err_set(e, -EPROTO, "asking incus-user as %s failed: %s",
	    u->name, msg[0] ? msg : "no answer (it closed the connection: "
	    "its log says why)");
}

static int
proc_uid(const char *pid, unsigned *uid)
{
	char path[64], buf[2048], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* A zombie holds nothing: no socket, no files. */
	p = strstr(buf, "\nState:");
	if (p != NULL && strchr(p + 7, 'Z') != NULL &&
	    strchr(p + 7, 'Z') < strchr(p + 1, '\n'))
		return -1;
	p = strstr(buf, "\nUid:");
	if (p == NULL || sscanf(p + 5, "%u", uid) != 1)
		return -1;
	return 0;
}

int
grant_procs(unsigned uid, pid_t *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		unsigned pu;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (proc_uid(de->d_name, &pu) == 0 && pu == uid) {
			if (n < max)
				pids[n] = (pid_t)atol(de->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

void
grant_procs_text(const pid_t *pids, int n, char *buf, size_t cap)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && len + 40 < cap; i++) {
		char path[64], comm[32] = "?";
		int fd;
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			k = read(fd, comm, sizeof(comm) - 1);
			close(fd);
			comm[k > 0 ? k : 0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s%ld (%s)",
		    i ? ", " : "", (long)pids[i], comm);
	}
}
