/*
 * netns.c - see netns.h.
 */
#include "net/netns.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
netns_open(struct netns *ns, pid_t pid, struct box_err *e)
{
	char path[64];
	struct stat a, self;

	ns->fd = -1;
	ns->ino = 0;
	if (pid <= 1)
		return err_set(e, -ESRCH, "no init process to enter (pid %ld)",
		    (long)pid);
	snprintf(path, sizeof(path), "/proc/%ld/ns/net", (long)pid);
	ns->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ns->fd < 0)
		return err_set(e, errno == ENOENT ? -ESRCH : -errno, "opening "
		    "%s: %s", path, strerror(errno));
	if (fstat(ns->fd, &a) < 0 || stat("/proc/self/ns/net", &self) < 0) {
		int rc = -errno;

		netns_close(ns);
		return err_set(e, rc, "reading %s: %s", path, strerror(-rc));
	}
	if (a.st_ino == self.st_ino && a.st_dev == self.st_dev) {
		netns_close(ns);
		return err_set(e, -EEXIST, "pid %ld shares this host's network "
		    "namespace: nothing of its own to probe", (long)pid);
	}
	ns->ino = (unsigned long long)a.st_ino;
	return 0;
}

void
netns_close(struct netns *ns)
{
	if (ns->fd >= 0)
		close(ns->fd);
	ns->fd = -1;
}

static long long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The child: enter, run, write, exit (never returns). */
static void
child(const struct netns *ns, ssize_t (*fn)(void *, char *, size_t),
    void *arg, int wfd, size_t cap)
{
	char *out = malloc(cap);
	ssize_t n, k, o = 0;

	if (out == NULL || setns(ns->fd, CLONE_NEWNET) < 0)
		_exit(3);
	n = fn(arg, out, cap);
	if (n < 0 || (size_t)n > cap)
		_exit(4);
	while (o < n) {
		k = write(wfd, out + o, (size_t)(n - o));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(5);
		o += k;
	}
	_exit(0);
}

int
netns_run(const struct netns *ns, ssize_t (*fn)(void *arg, char *out,
    size_t cap), void *arg, char *buf, size_t cap, int timeout_ms,
    struct box_err *e)
{
	long long end = now_ms() + timeout_ms;
	size_t len = 0;
	int fds[2], st = 0, rc = 0;
	pid_t pid;
	ssize_t k;

	if (ns->fd < 0 || cap == 0)
		return err_set(e, -EINVAL, "no namespace to enter");
	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(fds[0]);
		close(fds[1]);
		return err_set(e, rc, "fork: %s", strerror(-rc));
	}
	if (pid == 0) {
		close(fds[0]);
		child(ns, fn, arg, fds[1], cap);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		long long left = end - now_ms();

		if (left <= 0) {
			rc = -ETIMEDOUT;
			break;
		}
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (p.revents == 0)
			continue;
		k = read(fds[0], buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
		if (len == cap)
			break;
	}
	close(fds[0]);
	if (rc < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (rc == -ETIMEDOUT)
		return err_set(e, rc, "the probes in the box's network did not "
		    "finish in %d ms", timeout_ms);
	if (rc < 0)
		return err_set(e, rc, "reading the probes' results: %s",
		    strerror(-rc));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return err_set(e, -EIO, "the probes in the box's network "
		    "failed (%s %d)", WIFEXITED(st) ? "exit" : "signal",
		    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return (int)len;
}
