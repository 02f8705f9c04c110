/* sysd.c - packages, units and atomic files (see sysd.h). */
#include "host/stack/sysd.h"
#include "host/stack/contract.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/embedded.h"
#include "util/self.h"

int
sysd_present(void)
{
	struct stat st;

	return stat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

int
sysd_run(char *const argv[], struct box_err *e)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return err_set(e, -errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "box: cannot run %s: %s\n", argv[0],
		    strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_set(e, -errno, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return err_set(e, -ECHILD, "%s %s failed (%s %d)", argv[0],
	    argv[1] ? argv[1] : "", WIFEXITED(status) ? "exit" : "signal",
	    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int
sysd_write_atomic(const char *path, const void *data, size_t n, int mode,
    struct box_err *e)
{
	char tmp[4096];
	int fd, rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.box-tmp.%ld", path,
	    (long)getpid()) >= (int)sizeof(tmp))
		return err_set(e, -ENAMETOOLONG, "path too long: %s", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return err_set(e, -errno, "%s: %s", tmp, strerror(errno));
	if (write(fd, data, n) != (ssize_t)n || fsync(fd) < 0)
		rc = errno != 0 ? -errno : -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		return err_set(e, rc, "writing %s: %s", path, strerror(-rc));
	}
	return 0;
}


/*
 * A directory only root may write: owned by root, no group/other write.
 * Created when missing; an existing one that is not is refused, never
 * "fixed" (someone else made it).
 */
static int
root_dir(const char *path, struct box_err *e)
{
	struct stat st;

	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return err_set(e, -errno, "creating %s: %s", path,
		    strerror(errno));
	if (lstat(path, &st) < 0)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return err_set(e, -EPERM, "%s is not a root-owned directory "
		    "that only root can write: the boot firewall will not run "
		    "from it", path);
	return 0;
}

static int
boot_copy(struct box_err *e)
{
	unsigned char *bin = NULL;
	size_t n = 0;
	int rc;

	if ((rc = root_dir("/usr/local/libexec", e)) < 0 ||
	    (rc = root_dir(SYSD_BOOT_DIR, e)) < 0)
		return rc;
	if ((rc = self_read(&bin, &n, e)) < 0)
		return rc;
	rc = sysd_write_atomic(SYSD_BOOT_BIN, bin, n, 0755, e);
	free(bin);
	if (rc == 0 && chmod(SYSD_BOOT_BIN, 0755) < 0)
		rc = err_set(e, -errno, "chmod %s: %s", SYSD_BOOT_BIN,
		    strerror(errno));
	return rc;
}

int
sysd_fill(char *unit, size_t cap, const char *key, const char *value)
{
	char rest[2048], *at = strstr(unit, key);
	int n;

	if (at == NULL)
		return -EINVAL;
	snprintf(rest, sizeof(rest), "%s", at + strlen(key));
	n = snprintf(at, cap - (size_t)(at - unit), "%s%s", value, rest);
	return n < 0 || (size_t)n >= cap - (size_t)(at - unit) ?
	    -ENAMETOOLONG : 0;
}

int
sysd_install_boot(uint32_t net, int *live, struct box_err *e)
{
	const struct embedded_file *f = embedded_find(embedded_host,
	    embedded_host_count, SYSD_UNIT);
	char unit[4096], subnet[32];
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	char *enable[] = { "systemctl", "enable", SYSD_UNIT, NULL };
	char *restart[] = { "systemctl", "restart", SYSD_UNIT, NULL };
	int rc;

	*live = 0;
	if (f == NULL || f->len >= sizeof(unit) / 2)
		return err_set(e, -ENOENT, "the firewall unit is not built in");
	snprintf(subnet, sizeof(subnet), "%u.%u.%u.0/24", net >> 24,
	    (net >> 16) & 255, (net >> 8) & 255);
	memcpy(unit, f->data, f->len);
	unit[f->len] = '\0';
	if (sysd_fill(unit, sizeof(unit), "@BOX@", SYSD_BOOT_BIN) < 0 ||
	    sysd_fill(unit, sizeof(unit), "@SUBNET@", subnet) < 0)
		return err_set(e, -EINVAL, "the built-in firewall unit lacks "
		    "@BOX@ or @SUBNET@");
	if ((rc = boot_copy(e)) < 0)
		return rc;
	rc = sysd_write_atomic(SYSD_UNIT_PATH, unit, strlen(unit), 0644, e);
	if (rc < 0 || !sysd_present())
		return rc;
	if ((rc = sysd_run(reload, e)) == 0 && (rc = sysd_run(enable, e)) == 0)
		rc = sysd_run(restart, e);
	*live = rc == 0;
	return rc;
}

int
sysd_remove_unit(struct box_err *e)
{
	char *disable[] = { "systemctl", "disable", "--now", SYSD_UNIT, NULL };
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	struct box_err ignore;

	(void)unlink(CONTRACT_DHCP_HOOK);	/* host/stack/pins.c wrote it */
	if (unlink(SYSD_BOOT_BIN) < 0 && errno != ENOENT)
		return err_set(e, -errno, "removing %s: %s", SYSD_BOOT_BIN,
		    strerror(errno));
	(void)rmdir(SYSD_BOOT_DIR);	/* only when empty */
	if (access(SYSD_UNIT_PATH, F_OK) != 0)
		return 0;
	err_clear(&ignore);
	if (sysd_present())
		sysd_run(disable, &ignore);	/* an inactive unit is fine */
	if (unlink(SYSD_UNIT_PATH) < 0 && errno != ENOENT)
		return err_set(e, -errno, "removing %s: %s", SYSD_UNIT_PATH,
		    strerror(errno));
	if (sysd_present())
		return sysd_run(reload, e);
	return 0;
}

/* Does pid run bin (NULL: any) with argv[1..] starting words[0..wn)? */
static int
runs(int pid, const char *bin, const char *words, size_t wn)
{
	char path[64], cmd[512];
	size_t a0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	cmd[n] = '\0';
	a0 = strlen(cmd);
	if (bin != NULL && strcmp(cmd, bin) != 0)
		return 0;
	return (size_t)n >= a0 + 1 + wn &&
	    memcmp(cmd + a0 + 1, words, wn) == 0;
}

int
sysd_daemon_pid(const char *pidfile, const char *bin, const char *words,
    size_t wn)
{
	char buf[32];
	ssize_t n;
	int fd, pid;

	if ((fd = open(pidfile, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = atoi(buf);
	return pid > 1 && runs(pid, bin, words, wn) ? pid : 0;
}

void
sysd_stop_daemon(const char *pidfile, const char *bin, const char *words,
    size_t wn)
{
	int pid = sysd_daemon_pid(pidfile, bin, words, wn), i;

	char argvf[256];

	if (pid > 0 && kill(pid, SIGTERM) == 0)
		for (i = 0; i < 40 && kill(pid, 0) == 0; i++)
			usleep(50000);
	/* the argv first: a guard seeing the pid file alone restarts it */
	if (snprintf(argvf, sizeof(argvf), "%s%s", pidfile, SYSD_ARGV) <
	    (int)sizeof(argvf))
		unlink(argvf);
	unlink(pidfile);
}

/* The detached grandchild: never returns. */
static void
daemon_exec(char *const argv[], const char *log)
{
	int fd;

	setsid();
	if ((fd = open("/dev/null", O_RDONLY)) >= 0)
		dup2(fd, 0);
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0640)) >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	/*
	 * A daemon keeps nothing of its starter but 0-2: a descriptor
	 * inherited here (a caller's flock(1) lock, a socket) would live as
	 * long as the daemon does.
	 */
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	execv(argv[0], argv);
	_exit(127);
}

/* pidfile SYSD_ARGV: argv NUL-separated, root's, 0600. */
static int
write_argv(char *const argv[], const char *pidfile, struct box_err *e)
{
	char path[256], buf[SYSD_ARGBYTES];
	size_t n = 0, l;
	int i;

	if (snprintf(path, sizeof(path), "%s%s", pidfile, SYSD_ARGV) >=
	    (int)sizeof(path))
		return err_set(e, -ENAMETOOLONG, "path too long: %s", pidfile);
	for (i = 0; argv[i] != NULL; i++) {
		l = strlen(argv[i]) + 1;
		if (i + 1 >= SYSD_ARGMAX || n + l > sizeof(buf))
			return err_set(e, -E2BIG, "%s: too many arguments to "
			    "keep", argv[0]);
		memcpy(buf + n, argv[i], l);
		n += l;
	}
	return sysd_write_atomic(path, buf, n, 0600, e);
}

int
sysd_start_daemon(char *const argv[], const char *pidfile, const char *log,
    struct box_err *e)
{
	int pfd[2], status, pid = 0, rc;
	pid_t child, g = 0;
	char buf[32];

	if (pipe(pfd) < 0)
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	if ((child = fork()) < 0)
		return err_set(e, -errno, "fork: %s", strerror(errno));
	if (child == 0) {
		close(pfd[0]);
		setsid();
		if ((g = fork()) != 0) {
			(void)write(pfd[1], &g, sizeof(g));
			_exit(g < 0);
		}
		close(pfd[1]);
		daemon_exec(argv, log);
	}
	close(pfd[1]);
	if (read(pfd[0], &g, sizeof(g)) == (ssize_t)sizeof(g))
		pid = (int)g;
	close(pfd[0]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (pid <= 0)
		return err_set(e, -ECHILD, "starting %s failed", argv[1]);
	snprintf(buf, sizeof(buf), "%d\n", pid);
	if ((rc = sysd_write_atomic(pidfile, buf, strlen(buf), 0644, e)) < 0)
		return rc;
	return write_argv(argv, pidfile, e);
}

int
sysd_argv_parse(char *buf, size_t n, char **argv, size_t max)
{
	size_t off = 0, argc = 0, l;

	if (n == 0 || max < 2 || buf[n - 1] != '\0')
		return -EINVAL;
	while (off < n) {
		l = strnlen(buf + off, n - off);
		if (l == 0 || argc + 1 >= max)
			return -EINVAL;
		argv[argc++] = buf + off;
		off += l + 1;
	}
	argv[argc] = NULL;
	return argv[0][0] == '/' ? (int)argc : -EINVAL;
}

int
sysd_restart_daemon(const char *pidfile, const char *log, int *pid,
    struct box_err *e)
{
	char path[256], buf[SYSD_ARGBYTES + 1], *argv[SYSD_ARGMAX];
	struct stat st;
	ssize_t n;
	int fd, rc;

	*pid = 0;
	if (snprintf(path, sizeof(path), "%s%s", pidfile, SYSD_ARGV) >=
	    (int)sizeof(path))
		return err_set(e, -ENAMETOOLONG, "path too long: %s", pidfile);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) < 0)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		close(fd);
		return err_set(e, -EPERM, "%s is not a file only root "
		    "writes: not run", path);
	}
	n = read(fd, buf, SYSD_ARGBYTES);
	close(fd);
	if (n < 0)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (sysd_argv_parse(buf, (size_t)n, argv, SYSD_ARGMAX) < 0)
		return err_set(e, -EINVAL, "%s holds no command line", path);
	if ((rc = sysd_start_daemon(argv, pidfile, log, e)) < 0)
		return rc;
	*pid = sysd_daemon_pid(pidfile, NULL, NULL, 0);
	return 0;
}
