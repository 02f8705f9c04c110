/*
 * transport.c - the unix-socket and in-memory transports.
 *
 * The socket is non-blocking and every read and write waits in poll() for
 * at most timeout_ms, so a daemon that accepts and then goes silent can
 * stall us for one timeout, never for ever.
 */
#include "incus/transport.h"
#include "incus/transport_test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int
wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	return 0;
}

static ssize_t
unix_read(struct transport *t, void *buf, size_t n)
{
	struct unix_transport *u = (struct unix_transport *)t;
	ssize_t r;
	int rc;

	for (;;) {
		r = read(u->fd, buf, n);
		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		rc = wait_fd(u->fd, POLLIN, t->timeout_ms);
		if (rc < 0)
			return rc;
	}
}

static int
unix_write(struct transport *t, const void *buf, size_t n)
{
	struct unix_transport *u = (struct unix_transport *)t;
	const unsigned char *p = buf;
	ssize_t w;
	int rc;

	while (n > 0) {
		w = send(u->fd, p, n, MSG_NOSIGNAL);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		rc = wait_fd(u->fd, POLLOUT, t->timeout_ms);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
unix_fd(struct transport *t)
{
	return ((struct unix_transport *)t)->fd;
}

static size_t
no_pending(struct transport *t)
{
	return 0;
}

static void
unix_close(struct transport *t)
{
	struct unix_transport *u = (struct unix_transport *)t;

	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

static const struct transport_ops unix_ops = {
	unix_read, unix_write, unix_fd, no_pending, unix_close
};

/* Turn a connect() failure into a sentence and the command that fixes it. */
static int
explain_connect(const char *path, int err, struct box_err *e)
{
	struct stat st;

	if (stat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		err_set(e, -ENOTSOCK, "%s is not a socket", path);
		err_fix(e, "point INCUS_SOCKET (or INCUS_DIR) at the daemon's "
		    "unix.socket");
		return -ENOTSOCK;
	}
	switch (err) {
	case ENOENT:
	case ECONNREFUSED:
		if (strstr(path, "unix.socket.user") != NULL) {
			err_set(e, -err, "incus-user (the daemon for the "
			    "restricted tier) is not running (%s: %s)", path,
			    strerror(err));
			err_fix(e, "ask an admin: systemctl enable --now "
			    "incus-user.socket (no systemd: "
			    "/usr/libexec/incus/incus-user --group incus)");
			break;
		}
		err_set(e, -err, "the Incus daemon is not running (%s: %s)",
		    path, strerror(err));
		err_fix(e, "start it: systemctl start incus (or run "
		    "'box setup-host' on a fresh host)");
		break;
	case EACCES:
	case EPERM:
		err_set(e, -err, "no permission to talk to Incus (%s)", path);
		err_fix(e, "run as root, or ask an admin for access: "
		    "box grant <you>");
		break;
	default:
		err_set(e, -err, "cannot connect to %s: %s", path,
		    strerror(err));
	}
	return -err;
}

int
unix_transport_open(struct unix_transport *u, const char *path,
    int timeout_ms, struct box_err *e)
{
	struct sockaddr_un sa;
	size_t n = strlen(path);
	int fd, rc, soerr;
	socklen_t sl = sizeof(soerr);

	u->base.ops = &unix_ops;
	u->base.timeout_ms = timeout_ms;
	u->fd = -1;
	if (n >= sizeof(sa.sun_path))
		return err_set(e, -ENAMETOOLONG, "socket path too long: %s",
		    path);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_set(e, -errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		goto done;
	if (errno != EAGAIN && errno != EINPROGRESS) {
		rc = errno;
		close(fd);
		return explain_connect(path, rc, e);
	}
	rc = wait_fd(fd, POLLOUT, timeout_ms);
	if (rc == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 &&
	    soerr != 0)
		rc = -soerr;
	if (rc < 0) {
		close(fd);
		if (rc == -ETIMEDOUT)
			return err_set(e, rc, "the Incus daemon did not accept "
			    "a connection on %s within %d ms", path, timeout_ms);
		return explain_connect(path, -rc, e);
	}
done:
	u->fd = fd;
	return 0;
}

/* --- the unix dialer: heap transports that free themselves on close ----- */

static void
unix_heap_close(struct transport *t)
{
	unix_close(t);
	free(t);
}

static const struct transport_ops unix_heap_ops = {
	unix_read, unix_write, unix_fd, no_pending, unix_heap_close
};

static int
unix_dial(const struct dialer *d, const char *addr, int timeout_ms,
    struct transport **out, struct box_err *e)
{
	struct unix_transport *u = malloc(sizeof(*u));
	int rc;

	*out = NULL;
	if (u == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = unix_transport_open(u, addr, timeout_ms, e);
	if (rc < 0) {
		free(u);
		return rc;
	}
	u->base.ops = &unix_heap_ops;
	*out = &u->base;
	return 0;
}

const struct dialer unix_dialer = { unix_dial };

/* --- in memory ----------------------------------------------------------- */

static ssize_t
mem_read(struct transport *t, void *buf, size_t n)
{
	struct mem_transport *m = (struct mem_transport *)t;
	size_t left = m->in_len - m->in_pos;

	if (n > left)
		n = left;
	if (m->max_read != 0 && n > m->max_read)
		n = m->max_read;
	if (n > 0)
		memcpy(buf, m->in + m->in_pos, n);
	m->in_pos += n;
	return (ssize_t)n;
}

static int
mem_write(struct transport *t, const void *buf, size_t n)
{
	struct mem_transport *m = (struct mem_transport *)t;

	if (n > m->out_cap - m->out_len)
		return -ENOSPC;
	if (n > 0)
		memcpy(m->out + m->out_len, buf, n);
	m->out_len += n;
	return 0;
}

static int
mem_fd(struct transport *t)
{
	return -1;
}

static void
mem_close(struct transport *t)
{
}

static const struct transport_ops mem_ops = {
	mem_read, mem_write, mem_fd, no_pending, mem_close
};

void
mem_transport_init(struct mem_transport *m, const void *in, size_t n,
    void *out, size_t out_cap)
{
	memset(m, 0, sizeof(*m));
	m->base.ops = &mem_ops;
	m->base.timeout_ms = 1000;
	m->in = in;
	m->in_len = n;
	m->out = out;
	m->out_cap = out == NULL ? 0 : out_cap;
}
