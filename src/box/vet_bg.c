/*
 * vet_bg.c - the vet in a child process, beside the upload (see vet_bg.h).
 */
#include "box/vet_bg.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/vet_export.h"

static int
write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
child(int fd, const char *file)
{
	static struct vet_verdict m;

	memset(&m, 0, sizeof(m));
	err_clear(&m.e);
	vet_init(&m.v);
	m.rc = vet_export_file(file, &m.v, m.name, sizeof(m.name), &m.e);
	_exit(write_all(fd, &m, sizeof(m)) == 0 ? 0 : 1);
}

int
vet_bg_start(struct vet_bg *b, const char *file, struct box_err *e)
{
	int p[2];

	b->pid = 0;
	b->fd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_set(e, -errno, "a pipe for the vet: %s",
		    strerror(errno));
	b->pid = fork();
	if (b->pid < 0) {
		close(p[0]);
		close(p[1]);
		b->pid = 0;
		return err_set(e, -errno, "forking the vet: %s",
		    strerror(errno));
	}
	if (b->pid == 0) {
		close(p[0]);
		child(p[1], file);
	}
	close(p[1]);
	b->fd = p[0];
	return 0;
}

static void
reap(struct vet_bg *b)
{
	int st;

	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	if (b->pid > 0)
		while (waitpid(b->pid, &st, 0) < 0 && errno == EINTR)
			;
	b->pid = 0;
}

int
vet_bg_wait(struct vet_bg *b, struct vet_verdict *out, struct box_err *e)
{
	size_t got = 0;

	while (b->fd >= 0 && got < sizeof(*out)) {
		ssize_t r = read(b->fd, (char *)out + got, sizeof(*out) - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	reap(b);
	if (got != sizeof(*out))
		return err_set(e, -EIO, "the vet gave no verdict (its process "
		    "ended early); nothing was imported");
	if (out->v.n < 0 || out->v.n > VET_MAX_ITEMS)
		return err_set(e, -EIO, "the vet's verdict is garbled; "
		    "nothing was imported");
	/* the child's text, bounded as ours */
	out->name[sizeof(out->name) - 1] = '\0';
	out->e.msg[sizeof(out->e.msg) - 1] = '\0';
	out->e.fix[sizeof(out->e.fix) - 1] = '\0';
	return 0;
}

void
vet_bg_cancel(struct vet_bg *b)
{
	if (b->pid > 0)
		kill(b->pid, SIGKILL);
	reap(b);
}
