/*
 * vet_bg.c - the vet in a child process, beside the upload (see vet_bg.h).
 */
#include "box/import/vet_bg.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/import/vet_export.h"
#include "util/fdio.h"

static void
child(int fd, int data, unsigned long long bound)
{
	struct vet_verdict *m = calloc(1, sizeof(*m));	/* the vet's state */

	if (m == NULL)
		_exit(1);
	err_clear(&m->e);
	vet_init(&m->v);
	m->v.bound = bound;
	m->rc = vet_export_fd(data, 1, &m->v, m->name, sizeof(m->name),
	    &m->e);
	_exit(fd_write_all(fd, m, sizeof(*m)) == 0 ? 0 : 1);
}

int
vet_bg_start(struct vet_bg *b, unsigned long long bound, struct box_err *e)
{
	struct sigaction sa;
	int p[2], d[2];

	b->pid = 0;
	b->fd = b->feed = -1;
	/* a vet that stopped early (a refusal) closes its end: the feed's
	 * write then fails with EPIPE, not a signal */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_set(e, -errno, "a pipe for the vet: %s",
		    strerror(errno));
	if (pipe2(d, O_CLOEXEC) < 0) {
		close(p[0]);
		close(p[1]);
		return err_set(e, -errno, "a pipe for the vet: %s",
		    strerror(errno));
	}
	b->pid = fork();
	if (b->pid < 0) {
		close(p[0]);
		close(p[1]);
		close(d[0]);
		close(d[1]);
		b->pid = 0;
		return err_set(e, -errno, "forking the vet: %s",
		    strerror(errno));
	}
	if (b->pid == 0) {
		close(p[0]);
		close(d[1]);
		child(p[1], d[0], bound);
	}
	close(p[1]);
	close(d[0]);
	b->fd = p[0];
	b->feed = d[1];
	return 0;
}

void
vet_bg_feed(struct vet_bg *b, const void *buf, size_t n)
{
	if (b->feed >= 0 && fd_write_all(b->feed, buf, n) < 0) {
		close(b->feed);		/* the vet is done: its verdict says */
		b->feed = -1;
	}
}

static void
reap(struct vet_bg *b)
{
	int st;

	if (b->feed >= 0)
		close(b->feed);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = b->feed = -1;
	if (b->pid > 0)
		while (waitpid(b->pid, &st, 0) < 0 && errno == EINTR)
			;
	b->pid = 0;
}

int
vet_bg_wait(struct vet_bg *b, struct vet_verdict *out, struct box_err *e)
{
	size_t got = 0;

	if (b->feed >= 0)
		close(b->feed);		/* the end of the bytes */
	b->feed = -1;
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
