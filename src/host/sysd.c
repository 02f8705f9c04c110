/* sysd.c - packages, units and atomic files (see sysd.h). */
#include "host/sysd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/embedded.h"

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

void
sysd_box_path(char *buf, size_t cap)
{
	char self[4096], stable[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *r;

	if (n <= 0) {
		snprintf(buf, cap, "/usr/local/bin/box");
		return;
	}
	self[n] = '\0';
	r = realpath("/usr/local/bin/box", stable);
	/* Through the stable link an upgrade keeps the unit pointing right. */
	if (r != NULL && strcmp(stable, self) == 0)
		snprintf(buf, cap, "/usr/local/bin/box");
	else
		snprintf(buf, cap, "%s", self);
}

int
sysd_install_unit(const char *box_path, struct box_err *e)
{
	const struct embedded_file *f = embedded_find(embedded_host,
	    embedded_host_count, SYSD_UNIT);
	char unit[2048], *at;
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	char *enable[] = { "systemctl", "enable", SYSD_UNIT, NULL };
	char *restart[] = { "systemctl", "restart", SYSD_UNIT, NULL };
	int n, rc;

	if (f == NULL || f->len >= sizeof(unit) / 2)
		return err_set(e, -ENOENT, "the firewall unit is not built in");
	if (strpbrk(box_path, " \n\"\\%") != NULL)
		return err_set(e, -EINVAL, "unusable path for the unit: %s",
		    box_path);
	memcpy(unit, f->data, f->len);
	unit[f->len] = '\0';
	at = strstr(unit, "@BOX@");
	if (at == NULL)
		return err_set(e, -EINVAL, "the firewall unit has no @BOX@");
	{
		char rest[1024];

		snprintf(rest, sizeof(rest), "%s", at + 5);
		n = snprintf(at, sizeof(unit) - (size_t)(at - unit), "%s%s",
		    box_path, rest);
		if (n < 0 || (size_t)n >= sizeof(unit) - (size_t)(at - unit))
			return err_set(e, -ENAMETOOLONG, "unit too long");
	}
	rc = sysd_write_atomic(SYSD_UNIT_PATH, unit, strlen(unit), 0644, e);
	if (rc == 0)
		rc = sysd_run(reload, e);
	if (rc == 0)
		rc = sysd_run(enable, e);
	if (rc == 0)
		rc = sysd_run(restart, e);
	return rc;
}

int
sysd_remove_unit(struct box_err *e)
{
	char *disable[] = { "systemctl", "disable", "--now", SYSD_UNIT, NULL };
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	struct box_err ignore;

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
